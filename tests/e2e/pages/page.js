// Loads the package the way a host app does and exposes it to the test driver.
import * as pkg from '/pkg/index.js';
await pkg.init();
globalThis.pkg = pkg;
globalThis.ready = true;
