// isolated-realm's synchronous Realm, inside a dedicated module worker.
import { init, Realm } from '/pkg/realm.js';
import { serveEngine, Capped, CAP_MS, CARD_GLUE, fetchText } from './driver.js';

// Only the deadline is the benchmark's cap; the instruction budget is effectively off.
const limits = () => ({ timeoutMs: CAP_MS, instructions: Number.MAX_SAFE_INTEGER });
let realm = null;

function guard(fn) {
  try {
    return fn();
  } catch (e) {
    if (e && e.code === 'SANDBOX_LIMIT_EXCEEDED' && e.limit === 'timeoutMs') throw new Capped(e.message);
    throw e;
  }
}

serveEngine({
  async start(module) {
    await init(module);
    realm = new Realm({ limits: limits() });
  },
  load(src) {
    guard(() => realm.eval(src, { filename: 'workloads.js' }));
  },
  eval(src) {
    return guard(() => realm.eval(src));
  },
  call(name, ...args) {
    return guard(() => realm.call(name, ...args));
  },
  boundary(model) {
    return realm.call('identity', model);
  },
  newRealm(withEval) {
    const r = new Realm({ limits: limits() });
    if (withEval) r.eval('40 + 2');
    return () => r.dispose();
  },
  // Cards: the sync Realm has no module loader, so the card module comes as a classic script
  // (/cards-gen/<name>.script.js: the same text, import and export rewritten by server.mjs).
  async cardsLoad(url) {
    const name = new URL(url).pathname.split('/').pop().replace(/\.js$/, '');
    const [runtime, script] = await Promise.all([fetchText('/cards-gen/runtime.js'), fetchText(`/cards-gen/${name}.script.js`)]);
    guard(() => realm.eval(`globalThis.__cardRuntime = ${runtime}\n;undefined`, { filename: 'runtime.js' }));
    guard(() => realm.eval(script, { filename: url }));
    guard(() => realm.eval(CARD_GLUE, { filename: 'glue.js' }));
    return realm.eval(`Object.keys(globalThis.__cardModules[${JSON.stringify(url)}])`);
  },
  cardsCall(op, args) {
    return guard(() => realm.call(`__cards_${op}`, ...args));
  },
  softStop(source, timeoutMs) {
    const r = new Realm({ limits: { timeoutMs } });
    const t = performance.now();
    let error = null;
    try {
      r.eval(source);
    } catch (e) {
      error = `${e.code} (${e.limit})`;
    }
    const ms = performance.now() - t;
    r.dispose();
    return { ms, error };
  },
});
