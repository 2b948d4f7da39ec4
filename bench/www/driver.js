// The worker side of the benchmark, shared by the three engine workers. Each worker supplies
// an `engine` with the same small interface; the timing loops below are identical for all.
// Times are taken inside the worker, around synchronous engine calls.
// The workload module is imported lazily (only the boundary needs it host-side), so it is
// not part of any worker's cold start.
let W = null;

const now = () => performance.now();
// The cap on one workload call; the page sends its own (BENCH_CAP_MS) with `init`.
export let CAP_MS = 30_000;

export class Capped extends Error {
  constructor(message) {
    super(message);
    this.capped = true;
  }
}

// Cards (bench/README.md, "Cards"). The interpreters that take text (QuickJS, the sync
// Realm) evaluate src/cards/runtime.js into globalThis.__cardRuntime, register each card
// module's namespace in globalThis.__cardModules[url], and are then driven through these
// globals; native V8 has the same four functions natively (worker-v8.js).
export const CARD_API = 'https://cardstack.com/base/card-api';
export const CARD_GLUE = `
function __cards_create(url, name, data) { return globalThis.__cardRuntime.ops.create(globalThis.__cardModules[url], { module: url, name: name }, data); }
function __cards_render(id, format) { return globalThis.__cardRuntime.ops.render(id, format); }
function __cards_renderMany(list) { return globalThis.__cardRuntime.ops.renderMany(list); }
function __cards_dispatch(id, actionId, event) { return globalThis.__cardRuntime.ops.dispatch(id, actionId, event); }
`;
export async function fetchText(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.text();
}

/** engine: { start(module?), load(src), eval(src), call(name, ...args), boundary(model),
 *            newRealm(withEval) -> dispose fn, softStop(src, timeoutMs) -> { ms, error },
 *            cardsLoad(moduleUrl) -> export names, cardsCall(op, args) } */
export function serveEngine(engine) {
  const ops = {
    // Cold start: the worker's module graph is already loaded; init the engine, make a
    // realm, and answer the first eval.
    async cold({ module }) {
      await engine.start(module);
      return engine.eval('40 + 2');
    },
    async init({ module, src, capMs }) {
      if (capMs) CAP_MS = capMs;
      await engine.start(module);
      engine.load(src);
      return engine.call('add', 40, 2);
    },
    setup({ name }) {
      return engine.call(`setup_${name}`);
    },
    // One timed call of run_<name>; the page decides how many.
    run({ name }) {
      const t = now();
      let value;
      try {
        value = engine.call(`run_${name}`);
      } catch (e) {
        if (e && e.capped) return { ms: now() - t, capped: true, error: String(e.message) };
        throw e;
      }
      return { ms: now() - t, value };
    },
    calls({ n }) {
      let sum = 0;
      const t = now();
      for (let i = 0; i < n; i++) sum += engine.call('add', i, 1);
      return { ms: now() - t, value: sum };
    },
    async boundary({ bytes, n, via }) {
      W ??= await import('/workloads.mjs');
      const model = W.makeModel(bytes, 5);
      const fn = via === 'structuredClone' ? (m) => structuredClone(W.identity(structuredClone(m)))
        : via === 'json' ? (m) => JSON.parse(JSON.stringify(W.identity(JSON.parse(JSON.stringify(m)))))
          : (m) => engine.boundary(m);
      let out;
      const t = now();
      for (let i = 0; i < n; i++) out = fn(model);
      const ms = now() - t;
      const json = JSON.stringify(out);
      return { ms, value: W.digest(json), bytes: JSON.stringify(model).length, same: json === JSON.stringify(model) };
    },
    // Per-realm cost of creating and of disposing, from batches: performance.now() is
    // coarse (100 µs) without isolation.
    newRealm({ batches, per, withEval }) {
      const create = [], dispose = [];
      for (let b = 0; b < batches; b++) {
        const disposers = [];
        const t = now();
        for (let i = 0; i < per; i++) disposers.push(engine.newRealm(withEval));
        create.push((now() - t) / per);
        const t1 = now();
        for (const d of disposers) d();
        dispose.push((now() - t1) / per);
      }
      return { create, dispose };
    },
    ping() {
      return engine.eval('40 + 2');
    },
    softStop({ source, timeoutMs }) {
      return engine.softStop(source, timeoutMs);
    },
    // --- cards: a fresh engine with the card runtime and one card module (untimed setup)
    async cardsStart({ module, moduleUrl, capMs }) {
      if (capMs) CAP_MS = capMs;
      await engine.start(module);
      const t = now();
      const exports = await engine.cardsLoad(moduleUrl);
      return { ms: now() - t, exports };
    },
    // Creates every instance in one message (setup: only the cards' render and dispatch
    // paths are compared).
    cardsCreate({ moduleUrl, name, items }) {
      const t = now();
      let last = null;
      for (const data of items) last = engine.cardsCall('create', [moduleUrl, name, data]);
      return { ms: now() - t, n: items.length, last };
    },
    // One runtime op (render, renderMany, dispatch), timed in the worker; the result goes
    // back to the page (the page times the round trip).
    cards({ cardOp, args }) {
      const t = now();
      const value = engine.cardsCall(cardOp, args);
      return { ms: now() - t, value };
    },
  };
  self.onmessage = async (e) => {
    const { id, op, ...args } = e.data;
    try {
      const value = await ops[op](args);
      self.postMessage({ id, ok: true, value });
    } catch (err) {
      self.postMessage({ id, ok: false, error: { message: String(err && err.message || err), code: err && err.code, capped: !!(err && err.capped) } });
    }
  };
  self.postMessage({ id: 0, ok: true, value: 'loaded' });
}
