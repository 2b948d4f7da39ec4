// The main-thread entry: compartments in workers. The sync Realm is at 'isolated-realm/realm'.
export { Compartment, CompartmentPool, TrustedToken, getDefaultPool, WASM_URL, SMALL_WASM_URL } from './client.js';
export { SandboxError } from './errors.js';
