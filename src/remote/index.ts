// The remote mode's public surface: what `serve --remote` wires (see createRemoteFront).
export { createRemoteFront, type RemoteFront, type RemoteFrontOptions } from './front.js';
export { GrantEndedError } from './grants.js';
export { parsePublicUrl, RemoteConfigError, type RemoteScope } from './metadata.js';
export { PERSONAL_TOKEN_HEADER } from './personal.js';
export { authInfoFor, principalOf, type RemotePrincipal } from './principal.js';
export { parseStateKey, StateKeyError } from './sealing.js';
