// isolated-realm's synchronous Realm, inside a dedicated module worker.
import { init, Realm } from '/pkg/realm.js';
import { serveEngine, Capped, CAP_MS } from './driver.js';

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
