// Loads the package the way a host app does and exposes it to the test driver.
import * as client from '/pkg/index.js';
import * as realm from '/pkg/realm.js';

await realm.init();
globalThis.pkg = { ...realm, ...client };
globalThis.ready = true;
