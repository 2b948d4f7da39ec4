export { Realm, init, initSync } from './realm.js';
export { SandboxError } from './errors.js';
