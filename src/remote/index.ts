// The remote mode's public surface: what `serve --remote` wires (see createRemoteFront).
export { createRemoteFront } from './front.js';
export { GrantEndedError } from './grants.js';
export { authInfoFor, principalOf, type RemotePrincipal } from './principal.js';
