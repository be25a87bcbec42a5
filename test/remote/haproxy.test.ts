// The deployment's other proxy: deploy/haproxy.cfg run by a real HAProxy (`haproxy -db -f`, PROXY_BIND
// on loopback and no TLS: test/helpers/haproxy.ts), in front of two replicas of `serve --remote` (the
// tests of test/remote/behind-proxy.ts). HAProxy 2.6, which Debian ships, resends a request whose
// connection was refused, body included, to the other replica: here a replica killed mid-session is
// tested on every machine.
import { findHaproxy, markedDown, startHaproxy } from '../helpers/haproxy.js';
import type { ProxyHandle } from '../helpers/proxy.js';
import { describeBehindProxy } from './behind-proxy.js';

describeBehindProxy({
  name: 'HAProxy',
  file: 'deploy/haproxy.cfg',
  prefix: [],
  find: findHaproxy,
  start: startHaproxy,
  takenOutAfter503: (haproxy: ProxyHandle, address: string) => markedDown(haproxy, address, 'code: 503'),
  failoverGap: () => undefined,
});
