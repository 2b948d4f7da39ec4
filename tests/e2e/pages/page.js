// Loads the package the way a host app does and exposes it to the test driver.
import * as client from '/pkg/index.js';
import * as realm from '/pkg/realm.js';

// Proof that the page's CSP is in force: string compilation is refused here.
try {
  (0, eval)('1');
  globalThis.pageEval = 'allowed';
} catch (e) {
  globalThis.pageEval = e.name;
}

await realm.init();
globalThis.pkg = { ...realm, ...client };
globalThis.ready = true;
