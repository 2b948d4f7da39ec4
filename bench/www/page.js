// The page side of the benchmark. run.mjs drives it through page.evaluate(); every method
// of `globalThis.bench` returns plain data. Engines:
//   realm       isolated-realm's sync Realm in a dedicated worker (worker-realm.js)
//   compartment isolated-realm's Compartment, called from this (main) thread
//   quickjs     quickjs-emscripten release-sync in a dedicated worker (worker-quickjs.js)
//   v8          the same workloads as a native module in a dedicated worker (worker-v8.js)
import { Compartment, CompartmentPool, SMALL_WASM_URL } from '/pkg/index.js';
import { mountCard } from '/pkg/cards.js';
import * as W from '/workloads.mjs';

// Proof that the CSP is in force on this page: string compilation is refused.
let pageEval;
try {
  (0, eval)('1');
  pageEval = 'allowed';
} catch (e) {
  pageEval = e.name;
}

const now = () => performance.now();
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const CAP_MS = Number(new URLSearchParams(location.search).get('cap')) || 30_000;
const WATCHDOG_MS = CAP_MS + 5_000;
const LIMITS = { timeoutMs: CAP_MS, instructions: Number.MAX_SAFE_INTEGER };
const SRC = await (await fetch('/workloads.src.js')).text();
// ?wasm=small (BENCH_WASM=small): the package's size-optimised build, for every Realm and
// Compartment.
const BUILD = new URLSearchParams(location.search).get('wasm') ?? 'fast';
const POOL_OPTIONS = BUILD === 'small' ? { wasm: SMALL_WASM_URL } : {};
const POOL = BUILD === 'small' ? new CompartmentPool(POOL_OPTIONS) : undefined;
const createCompartment = (options) => Compartment.create(POOL ? { pool: POOL, ...options } : options);
const WASM = {
  realm: BUILD === 'small' ? '/pkg/isolated_realm_small_bg.wasm' : '/pkg/isolated_realm_bg.wasm',
  quickjs: '/nm/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm',
};
const compiled = {};
const compiledModule = (kind) => (compiled[kind] ??= WebAssembly.compileStreaming(fetch(WASM[kind])));

/** A dedicated worker running one engine, with a page-side watchdog per request. */
class WorkerEngine {
  constructor(kind) {
    this.kind = kind;
    this.worker = null;
  }

  spawn() {
    this.pending = new Map();
    this.nextId = 1;
    this.worker = new Worker(`/worker-${this.kind}.js`, { type: 'module', name: `bench-${this.kind}` });
    this.worker.onmessage = (e) => {
      const { id, ok, value, error } = e.data;
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      clearTimeout(p.timer);
      if (ok) p.resolve(value);
      else p.reject(Object.assign(new Error(error.message), error));
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.#failAll(new Error(`worker ${this.kind} failed: ${e.message}`));
    };
  }

  #failAll(error) {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
  }

  request(op, args = {}, watchdogMs = WATCHDOG_MS) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(Object.assign(new Error(`${this.kind}: no answer in ${watchdogMs} ms, worker killed`), { capped: true, killed: true }));
      }, watchdogMs);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, op, ...args });
    });
  }

  kill() {
    if (!this.worker) return;
    this.worker.terminate();
    this.worker = null;
    this.#failAll(Object.assign(new Error(`${this.kind}: worker killed`), { killed: true }));
  }

  async module() {
    return this.kind === 'v8' ? undefined : compiledModule(this.kind);
  }

  // --- the uniform engine interface -----------------------------------------------------
  async init() {
    this.spawn();
    return this.request('init', { module: await this.module(), src: SRC, capMs: CAP_MS });
  }
  setup(name) { return this.request('setup', { name }); }
  async run(name) {
    try {
      return await this.request('run', { name });
    } catch (e) {
      if (!e.capped) throw e;
      await this.init(); // the watchdog killed it: a fresh worker for what follows
      return { ms: WATCHDOG_MS, capped: true, error: e.message };
    }
  }
  calls(n) { return this.request('calls', { n }); }
  boundary(bytes, n, via) { return this.request('boundary', { bytes, n, via }); }
  newRealm(batches, per, withEval) { return this.request('newRealm', { batches, per, withEval }); }
  dispose() { this.kill(); }
}

/** A Compartment driven from this thread: every call is a round trip to its worker. */
class CompartmentEngine {
  constructor() {
    this.kind = 'compartment';
    this.c = null;
  }
  async init() {
    this.c = await createCompartment({ principal: 'bench', limits: LIMITS });
    await this.c.eval(SRC, { filename: 'workloads.js' });
    return this.c.call('add', 40, 2);
  }
  setup(name) {
    this.lastSetup = name;
    return this.c.call(`setup_${name}`);
  }
  async run(name) {
    const t = now();
    try {
      const value = await this.c.call(`run_${name}`);
      return { ms: now() - t, value };
    } catch (e) {
      const ms = now() - t;
      if (e.code === 'SANDBOX_LIMIT_EXCEEDED' && e.limit === 'timeoutMs') return { ms, capped: true, error: e.message };
      if (e.code === 'SANDBOX_TERMINATED') {
        await this.c.dispose();
        await this.init();
        return { ms, capped: true, error: e.message };
      }
      throw e;
    }
  }
  async calls(n) {
    let sum = 0;
    const t = now();
    for (let i = 0; i < n; i++) sum += await this.c.call('add', i, 1);
    return { ms: now() - t, value: sum };
  }
  async boundary(bytes, n) {
    const model = W.makeModel(bytes, 5);
    let out;
    const t = now();
    for (let i = 0; i < n; i++) out = await this.c.call('identity', model);
    const ms = now() - t;
    const json = JSON.stringify(out);
    return { ms, value: W.digest(json), bytes: JSON.stringify(model).length, same: json === JSON.stringify(model) };
  }
  // A new realm in a warm worker: Compartment.create for a principal whose worker is running.
  async newRealm(batches, per, withEval) {
    const create = [], dispose = [];
    for (let b = 0; b < batches; b++) {
      const cs = [];
      const t = now();
      for (let i = 0; i < per; i++) {
        const c = await createCompartment({ principal: 'bench', limits: LIMITS });
        if (withEval) await c.eval('40 + 2');
        cs.push(c);
      }
      create.push((now() - t) / per);
      const t1 = now();
      for (const c of cs) await c.dispose();
      dispose.push((now() - t1) / per);
    }
    return { create, dispose };
  }
  dispose() { return this.c?.dispose(); }
}

const ENGINES = ['realm', 'compartment', 'quickjs', 'v8'];
let engines = null;
/** The engines of `list` that are set up on this tab, in its order. */
const live = (list = ENGINES) => list.filter((k) => engines[k]);

// `kinds`: the engines to set up, all by default. The throughput rows set up one per tab
// (bench/README.md, "What is measured"); the rows below run whichever are set up.
async function setupEngines(kinds = ENGINES) {
  engines = {};
  const answers = {};
  for (const kind of ENGINES.filter((k) => kinds.includes(k))) {
    engines[kind] = kind === 'compartment' ? new CompartmentEngine() : new WorkerEngine(kind);
    answers[kind] = await engines[kind].init();
  }
  return answers;
}

// A first visit's use, for the return-visit cold start: every engine set up, then each
// workload once in each, untimed, so the engines have optimised code the browser can keep.
async function prime(names) {
  await setupEngines();
  for (const name of names) {
    for (const kind of ENGINES) {
      if (typeof W[`setup_${name}`] === 'function') await engines[kind].setup(name);
      await engines[kind].run(name);
    }
  }
}

// One workload in every engine, one engine at a time: setup (untimed), a warm-up run (kept,
// as the first run on a fresh engine), then timed runs: 5 when the warm-up took under
// 200 ms, 3 under 5 s, 1 under 10 s; past 10 s none (the warm-up is then the only sample).
async function workload(name) {
  const out = {};
  for (const kind of live()) {
    const e = engines[kind];
    const r = { samples: [], values: [], setup: null, capped: false, error: null };
    out[kind] = r;
    try {
      if (typeof W[`setup_${name}`] === 'function') r.setup = await e.setup(name);
      const warm = await e.run(name);
      // An array, so the runner pools it over tabs: each is a first run on a fresh engine.
      r.firstRun = [warm.ms];
      if (warm.capped) {
        r.capped = true;
        r.error = warm.error;
        continue;
      }
      r.values.push(warm.value);
      if (warm.ms > 10_000) {
        r.samples.push(warm.ms);
        r.note = 'one run (the first) only: over 10 s';
        continue;
      }
      const runs = warm.ms < 200 ? 5 : warm.ms < 5_000 ? 3 : 1;
      if (runs === 1) r.note = 'one timed run: the warm-up took over 5 s';
      for (let i = 0; i < runs; i++) {
        const x = await e.run(name);
        if (x.capped) {
          r.capped = true;
          r.error = x.error;
          break;
        }
        r.samples.push(x.ms);
        r.values.push(x.value);
      }
    } catch (err) {
      r.error = `${err.code || ''} ${err.message}`.trim();
    }
  }
  return out;
}

// One untimed run first: each throughput row starts on a fresh tab (bench/README.md), so
// its first run is the JIT's tier-up.
async function repeat(kind, runs, fn) {
  const r = { samples: [], values: [], error: null };
  try {
    await fn(engines[kind]);
    for (let i = 0; i < runs; i++) {
      const x = await fn(engines[kind]);
      r.samples.push(x.ms);
      r.values.push(x.value);
      if (x.same === false) r.error = 'identity changed the model';
    }
  } catch (err) {
    r.error = `${err.code || ''} ${err.message}`.trim();
  }
  return r;
}

async function smallCalls(n, runs) {
  const out = {};
  for (const kind of live()) out[kind] = await repeat(kind, runs, (e) => e.calls(n));
  return out;
}

async function boundary(bytes, n, runs) {
  const out = {};
  for (const kind of live()) if (kind !== 'realm') out[kind] = await repeat(kind, runs, (e) => e.boundary(bytes, n));
  if (!engines.realm) return out;
  // The sync Realm and its baselines, in the same worker and interleaved sample by sample:
  // this machine's speed drifts by tens of percent within a run, and the target is their ratio.
  const via = { realm: undefined, 'realm-worker:structuredClone': 'structuredClone', 'realm-worker:json': 'json' };
  for (const key of Object.keys(via)) out[key] = { samples: [], values: [], error: null };
  for (const [key, how] of Object.entries(via)) {
    try {
      await engines.realm.boundary(bytes, n, how);
    } catch (err) {
      out[key].error = `${err.code || ''} ${err.message}`.trim();
    }
  }
  for (let i = 0; i < runs; i++) {
    for (const [key, how] of Object.entries(via)) {
      const r = out[key];
      if (r.error) continue;
      try {
        const x = await engines.realm.boundary(bytes, n, how);
        r.samples.push(x.ms);
        r.values.push(x.value);
        if (x.same === false) r.error = 'identity changed the model';
      } catch (err) {
        r.error = `${err.code || ''} ${err.message}`.trim();
      }
    }
  }
  return out;
}

// Five untimed batches first, for every engine: the first batches of a run time the JIT's
// tier-up of creation and disposal code (4.5 ms a realm in the first batch, 0.3 ms by the tenth).
const REALM_WARMUP_BATCHES = 5;

async function newRealm(batches, per, withEval) {
  const out = {};
  for (const kind of live(['realm', 'compartment', 'quickjs'])) {
    try {
      await engines[kind].newRealm(REALM_WARMUP_BATCHES, per, withEval);
      const { create, dispose } = await engines[kind].newRealm(batches, per, withEval);
      out[kind] = { samples: create, dispose };
    } catch (err) {
      out[kind] = { samples: [], dispose: [], error: err.message };
    }
  }
  return out;
}

// --- cold start --------------------------------------------------------------------------

let coldCount = 0;
// `new Worker` (inside Compartment.create for the compartment) to the first eval result.
// fresh: nothing compiled on this page yet. warm: the compiled module is on the page
// already (compiled before the clock starts) and is posted to the new worker.
async function coldStart(kind, warm) {
  const module = warm && kind !== 'compartment' && kind !== 'v8' ? await compiledModule(kind) : undefined;
  let value;
  let ms;
  if (kind === 'compartment') {
    const t = now();
    const c = await createCompartment({ principal: `cold-${coldCount++}` });
    value = await c.eval('40 + 2');
    ms = now() - t;
    c.terminate();
  } else {
    const e = new WorkerEngine(kind);
    const t = now();
    e.spawn();
    value = await e.request('cold', { module }, 20_000);
    ms = now() - t;
    e.kill();
  }
  return { ms, value };
}

// A host that calls pool.warm() while its page is idle: how long the warm-up takes on a
// fresh tab (off the critical path), then Compartment.create → the first eval result.
async function warmedStart() {
  const pool = new CompartmentPool(POOL_OPTIONS);
  let t = now();
  await pool.warm();
  const warmMs = now() - t;
  await new Promise((r) => setTimeout(r, 100)); // the page goes on with its own work
  t = now();
  const c = await Compartment.create({ principal: 'warmed', pool });
  const value = await c.eval('40 + 2');
  const ms = now() - t;
  pool.close();
  return { warmMs, ms, value };
}

// --- termination -------------------------------------------------------------------------

const RUNAWAY_LOOP = 'while (true) {}';
const RUNAWAY_REGEX = "/^(a+)+$/.test('a'.repeat(40) + 'b')";

async function softStop(kind, timeoutMs) {
  if (kind === 'compartment') {
    const c = await createCompartment({ principal: 'soft', limits: { timeoutMs } });
    const t = now();
    let error = null;
    try {
      await c.eval(RUNAWAY_LOOP);
    } catch (e) {
      error = `${e.code} (${e.limit || e.reason})`;
    }
    const ms = now() - t;
    await c.dispose();
    return { ms, error };
  }
  const e = engines[kind];
  const t = now();
  const r = await e.request('softStop', { source: RUNAWAY_LOOP, timeoutMs }, 10_000);
  return { ms: now() - t, inWorkerMs: r.ms, error: r.error };
}

// The regex cannot be interrupted by a bytecode budget. Compartment: its own watchdog kills
// the worker at timeoutMs + graceMs (100 by default). quickjs and v8: the page kills the
// worker at the same timeoutMs + 100 ms, unless the engine stops the regex by itself.
// Then the next call's answer (a respawn: new worker, cached module, new realm, eval).
async function hardKill(kind, timeoutMs) {
  const graceMs = 100;
  if (kind === 'compartment') {
    const c = await createCompartment({ principal: 'hard', limits: { timeoutMs } });
    const t = now();
    let error = null;
    try {
      await c.eval(RUNAWAY_REGEX);
      error = 'it returned';
    } catch (e) {
      error = `${e.code} (${e.limit || e.reason})`;
    }
    const stopMs = now() - t;
    let value;
    let nextError = null;
    try {
      value = await c.eval('40 + 2');
    } catch (e) {
      nextError = `${e.code} (${e.reason || e.limit})`;
      value = await c.eval('40 + 2'); // the README: a second call respawns
    }
    const nextMs = now() - t - stopMs;
    const respawns = c.stats().respawns;
    await c.dispose();
    return { stopMs, error, nextMs, value, nextError, respawns };
  }
  let e = engines[`hard-${kind}`];
  if (!e || !e.worker) {
    e = engines[`hard-${kind}`] = new WorkerEngine(kind);
    await e.init();
  }
  const t = now();
  let error = null;
  let killed = false;
  try {
    const r = await e.request('softStop', { source: RUNAWAY_REGEX, timeoutMs }, timeoutMs + graceMs);
    error = r.error || `it returned ${r.value}`;
  } catch (err) {
    killed = !!err.killed;
    error = err.message;
  }
  const stopMs = now() - t;
  let value;
  if (killed) {
    e.spawn();
    value = await e.request('cold', { module: await e.module() }, 20_000);
  } else {
    value = await e.request('ping', {}, 20_000);
  }
  const nextMs = now() - t - stopMs;
  return { stopMs, error, killed, nextMs, value };
}

// The largest gap between requestAnimationFrame callbacks on this page while `during` runs.
// Each frame changes a counter on the page, as an animating page would: without a change to
// paint, Chromium does not make frames any faster than 60 Hz even when unpaced.
function frameMonitor() {
  let last = 0;
  let max = 0;
  let frames = 0;
  let running = true;
  const counter = document.body.appendChild(document.createElement('output'));
  const tick = () => {
    if (!running) return;
    const t = now();
    if (last) max = Math.max(max, t - last);
    last = t;
    frames++;
    counter.textContent = frames;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return { stop() { running = false; counter.remove(); return { maxGapMs: max, frames }; } };
}

async function frameGap(what) {
  await sleep(200);
  const mon = frameMonitor();
  await sleep(100);
  const t = now();
  let detail = null;
  if (what === 'idle') {
    await sleep(1000);
  } else if (what === 'loop') {
    const c = await createCompartment({ principal: 'frames-loop', limits: { timeoutMs: 1000 } });
    try { await c.eval(RUNAWAY_LOOP); } catch (e) { detail = `${e.code} (${e.limit || e.reason})`; }
    await c.dispose();
  } else if (what === 'regex') {
    const c = await createCompartment({ principal: 'frames-regex', limits: { timeoutMs: 1000 } });
    try { await c.eval(RUNAWAY_REGEX); } catch (e) { detail = `${e.code} (${e.limit || e.reason})`; }
    try { await c.eval('40 + 2'); } catch (e) { await c.eval('40 + 2'); }
    await c.dispose();
  }
  const ms = now() - t;
  await sleep(100);
  return { ...mon.stop(), ms, detail };
}

// --- cards -------------------------------------------------------------------------------
//
// The card runtime (src/cards/runtime.js) and one card module (cards/list.js, a product
// listing with an embedded template) in each engine: the Compartment from this page (its
// realm is this origin's /cards/, fetched by the broker), and, in dedicated workers, the
// sync Realm, QuickJS and native V8 running the same runtime text (worker-*.js, cardsLoad).
// Every figure here is timed on the page around the await: a round trip, the rendered trees
// cloned back to this thread. Workers also report their own time around the engine call.

const CARD_API = 'https://cardstack.com/base/card-api';
const CARD_REALM = `${location.origin}/cards/`;
const CARD_MODULE = `${CARD_REALM}list.js`;
const CARD_NAME = 'Listing';
const CARD_WORDS = ['oak', 'walnut', 'steel', 'linen', 'desk', 'lamp', 'chair', 'shelf', 'vintage', 'compact', 'modular', 'studio'];
const CARD_CITIES = [['Berlin', 'DE', '10115'], ['Lyon', 'FR', '69001'], ['Leeds', 'GB', 'LS1 4AP'], ['Porto', 'PT', '4000-322'], ['Austin', 'US', '78701']];

/** Instance data of listing `i`: deterministic, about 400 bytes of JSON. */
function listingData(i) {
  const w = (k) => CARD_WORDS[(i * 7 + k * 5) % CARD_WORDS.length];
  const [city, country, postcode] = CARD_CITIES[i % CARD_CITIES.length];
  const pad = (n) => String(n).padStart(2, '0');
  return {
    id: `l${i}`,
    attributes: {
      title: `${w(0)} ${w(1)} no. ${i}`,
      description: `A ${w(2)} ${w(3)} ${w(1)} in good condition; collection or delivery within ${1 + (i % 9)} days. Ask about ${w(4)} options.`,
      sku: `SKU-${10000 + i * 13}`,
      price: 19 + ((i * 37) % 480) + (i % 4) * 0.25,
      currency: ['EUR', 'GBP', 'USD'][i % 3],
      inStock: i % 5 !== 0,
      listed: `2024-${pad(1 + (i % 12))}-${pad(1 + (i % 28))}`,
      likes: (i * 7) % 23,
      tags: [w(5), w(6), w(7)].slice(0, 1 + (i % 3)),
      address: { street: `${1 + (i % 120)} ${w(8)} Street`, city, postcode, country },
    },
  };
}

// Render output, compared across engines: action ids are "<render seq>:<n>", and the render
// sequence is the runtime's own counter, so only the <n> part is compared.
function cardDigest(value) {
  const s = JSON.stringify(value, (k, v) => (k === 'on' && v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v).map(([ev, id]) => [ev, String(id).split(':').pop()]))
    : v));
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return `${s.length}#${(h >>> 0).toString(16)}`;
}

function findAction(render, className, event) {
  const walk = (nodes) => {
    for (const n of nodes || []) {
      if (!n || typeof n !== 'object') continue;
      if (n.attrs && n.attrs.class === className && n.on && n.on[event]) return n.on[event];
      const hit = walk(n.children);
      if (hit) return hit;
    }
    return null;
  };
  const id = walk(render.tree);
  if (!id) throw new Error(`no ${event} action on .${className} in the render of ${render.id}`);
  return id;
}

/** The Compartment: every call is a round trip to its worker. */
class CardsCompartment {
  async start() {
    this.acked = 0;
    this.c = await createCompartment({
      principal: CARD_REALM, limits: LIMITS, modules: { cardApi: CARD_API },
      // The host store: acknowledges each dispatch's patches at once.
      onModelPatch: (patches) => { this.acked += patches.length; },
    });
    return { exports: await this.c.import(CARD_MODULE) };
  }
  // Stored cards, all in one batch: an import round trip, then one for the cards.
  async create(items) {
    const loaded = await this.c.loadCards(items.map((data) => ({ ...data, type: { module: CARD_MODULE, name: CARD_NAME } })));
    const failed = loaded.filter((r) => r.error);
    if (failed.length) throw new Error(`loadCards: ${failed.length} failed: ${failed[0].error.message}`);
    return { n: items.length, last: loaded[loaded.length - 1] };
  }
  // The same, one createCard round trip (an import, then the card) per card.
  async createEach(items) {
    for (const data of items) await this.c.createCard({ module: CARD_MODULE, name: CARD_NAME }, data);
  }
  renderMany(list) { return this.c.renderMany(list); }
  render(id, format) { return this.c.render(id, format); }
  dispatch(id, actionId, event) { return this.c.dispatch(id, actionId, event); }
  dispose() { return this.c?.dispose(); }
}

/** The same runtime in a dedicated worker (realm, quickjs, v8): one request per call. */
class CardsWorker {
  constructor(kind) {
    this.e = new WorkerEngine(kind);
    this.inWorkerMs = 0;
  }
  async start() {
    this.e.spawn();
    return this.e.request('cardsStart', { module: await this.e.module(), moduleUrl: CARD_MODULE, capMs: CAP_MS });
  }
  create(items) { return this.e.request('cardsCreate', { moduleUrl: CARD_MODULE, name: CARD_NAME, items }); }
  async op(op, args) {
    const r = await this.e.request('cards', { cardOp: op, args });
    this.inWorkerMs += r.ms;
    return r.value;
  }
  renderMany(list) { return this.op('renderMany', [list]); }
  render(id, format) { return this.op('render', [id, format]); }
  dispatch(id, actionId, event) { return this.op('dispatch', [id, actionId, event]); }
  dispose() { this.e.kill(); }
}

// One engine: set up (untimed: the runtime, the module, max(sizes) instances), then per
// size N: (a) renderMany of the first N ids in 'embedded' (one round trip) and (b) N
// sequential render(id, 'embedded') calls (N round trips); one warm-up each, then `runs`
// timed pairs, (a) and (b) alternating (fewer when slow). Then `dispatches` sequential
// dispatches of the like button of card l0 (each returns the new render and its patch; the
// next click uses the action id of that render).
async function cards(kind, { sizes = [100, 200], runs = 5, dispatches = 50 } = {}) {
  const e = kind === 'compartment' ? new CardsCompartment() : new CardsWorker(kind);
  const out = { kind, sizes: {}, dispatch: null, error: null };
  try {
    let t = now();
    const started = await e.start();
    out.startMs = now() - t;
    out.exports = started.exports;
    const items = Array.from({ length: Math.max(...sizes) }, (_, i) => listingData(i));
    out.dataBytes = JSON.stringify(items).length;
    t = now();
    const created = await e.create(items);
    out.createMs = now() - t;
    out.createInWorkerMs = created.ms ?? null;
    out.created = cardDigest(created.last);
    const inWorker = () => (e.inWorkerMs === undefined ? null : e.inWorkerMs);
    for (const n of sizes) {
      const list = items.slice(0, n).map((d) => [d.id, 'embedded']);
      const many = async () => {
        const w0 = inWorker();
        const t0 = now();
        const renders = await e.renderMany(list);
        const ms = now() - t0;
        const failed = renders.filter((r) => r.error);
        if (renders.length !== n || failed.length) throw new Error(`renderMany(${n}): ${renders.length} renders, ${failed.length} failed: ${failed[0]?.error?.message}`);
        return { ms, inWorkerMs: w0 === null ? null : inWorker() - w0, renders };
      };
      const each = async () => {
        const w0 = inWorker();
        const renders = [];
        const t0 = now();
        for (const [id, format] of list) renders.push(await e.render(id, format));
        const ms = now() - t0;
        return { ms, inWorkerMs: w0 === null ? null : inWorker() - w0, renders };
      };
      // First paint: the N cards on screen. Their renders in one renderMany, each mounted by
      // the host shim (`mountCard`: a shadow root per card, the tree through `renderTree`'s
      // sanitiser, the CSS through `sanitizeCss`), and the clock stops once the frame that
      // shows them is done: a task queued from its requestAnimationFrame callback runs after
      // the frame's style, layout and paint. Frames are paced at 60 Hz here, so this includes
      // up to 16.7 ms of waiting for the next frame.
      const paint = async () => {
        const stage = document.createElement('div');
        document.body.append(stage);
        try {
          const t0 = now();
          const renders = await e.renderMany(list);
          const t1 = now();
          const views = renders.map((render) => {
            if (render.error) throw new Error(`renderMany(${n}): ${render.id} failed: ${render.error.message}`);
            const box = stage.appendChild(document.createElement('div'));
            return mountCard(box, { id: render.id, format: 'embedded', render });
          });
          const mountMs = now() - t1;
          await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
          const ms = now() - t0;
          const failed = stage.querySelectorAll('[data-card-error]').length;
          if (views.length !== n || failed) throw new Error(`first paint of ${n}: ${views.length} cards mounted, ${failed} with an error panel`);
          // What is on screen, compared across engines: each card's text and element count.
          const shown = views.map((v) => `${v.contentRoot.querySelectorAll('*').length}:${v.contentRoot.textContent}`);
          return { ms, mountMs, shown: cardDigest(shown) };
        } finally {
          stage.remove();
        }
      };
      const r = { many: [], manyInWorker: [], each: [], eachInWorker: [], paint: [], mount: [], values: [], shown: [] };
      const w3 = await paint();
      r.shown.push(w3.shown);
      const w1 = await many();
      const w2 = await each();
      r.warmupMs = { many: w1.ms, each: w2.ms, paint: w3.ms };
      r.bytes = JSON.stringify(w1.renders).length;
      r.values.push(cardDigest(w1.renders), cardDigest(w2.renders));
      const slowest = Math.max(w1.ms, w2.ms);
      const reps = slowest < 3_000 ? runs : slowest < 10_000 ? 3 : 1;
      for (let i = 0; i < reps; i++) {
        const a = await many();
        const b = await each();
        const c = await paint();
        r.many.push(a.ms);
        r.each.push(b.ms);
        r.paint.push(c.ms);
        r.mount.push(c.mountMs);
        r.shown.push(c.shown);
        if (a.inWorkerMs !== null) r.manyInWorker.push(a.inWorkerMs);
        if (b.inWorkerMs !== null) r.eachInWorker.push(b.inWorkerMs);
        r.values.push(cardDigest(a.renders), cardDigest(b.renders));
      }
      out.sizes[n] = r;
    }
    const d = { samples: [], inWorker: [], values: [] };
    let render = await e.render('l0', 'embedded');
    let last = null;
    for (let i = 0; i < dispatches; i++) {
      const action = findAction(render, 'like', 'click');
      const w0 = inWorker();
      const t0 = now();
      last = await e.dispatch('l0', action, { type: 'click' });
      d.samples.push(now() - t0);
      if (w0 !== null) d.inWorker.push(inWorker() - w0);
      render = last.render;
    }
    // The last click: its patch, what changed, and the new render.
    d.values.push({ patches: last.patches.map((p) => [p.seq, p.id, p.path, p.op, p.value]), changed: last.changed, render: cardDigest(last.render) });
    if (kind === 'compartment') d.acked = e.acked;
    out.dispatch = d;
    // Last, so the extra cards weigh on no row above: the per-card way of loading them, and
    // the batch again, both on a warm engine.
    if (e.createEach) {
      let t0 = now();
      await e.createEach(items.map((data) => ({ ...data, id: `each-${data.id}` })));
      out.createEachMs = now() - t0;
      t0 = now();
      await e.create(items.map((data) => ({ ...data, id: `batch-${data.id}` })));
      out.createWarmMs = now() - t0;
    }
  } catch (err) {
    out.error = `${err.code || ''} ${err.message}`.trim();
  } finally {
    await e.dispose();
  }
  return out;
}

// --- module parse cache ------------------------------------------------------------------
//
// Per run, a module never loaded before (its own bytes, about 140 KB) is imported by one
// compartment (a cache miss: the worker parses it), then by a second compartment of the same
// principal, so in the same worker (a hit: no parse). Each is timed on this page around
// `import`: the broker's fetch, load, link and evaluate. One untimed run first.
async function moduleCache(runs = 7) {
  const pool = new CompartmentPool(POOL_OPTIONS);
  const realm = `${location.origin}/modgen/`;
  const out = { miss: [], hit: [], exports: [], stats: null, error: null };
  try {
    for (let i = 0; i <= runs; i++) {
      const url = `${realm}m${Date.now()}x${i}.js`;
      const a = await Compartment.create({ principal: realm, pool, limits: LIMITS });
      const b = await Compartment.create({ principal: realm, pool, limits: LIMITS });
      let t = now();
      const first = await a.import(url);
      const miss = now() - t;
      t = now();
      const second = await b.import(url);
      const hit = now() - t;
      await a.dispose();
      await b.dispose();
      if (i === 0) continue;
      out.miss.push(miss);
      out.hit.push(hit);
      out.exports.push([first.length, second.length]);
    }
    out.stats = (await pool.workerStats())[0];
  } catch (err) {
    out.error = `${err.code || ''} ${err.message}`.trim();
  } finally {
    pool.close();
  }
  return out;
}

async function disposeAll() {
  for (const e of Object.values(engines || {})) await e.dispose();
  engines = null;
}

globalThis.bench = {
  pageEval, capMs: CAP_MS, setupEngines, prime, workload, smallCalls, boundary, newRealm, coldStart, warmedStart, softStop, hardKill,
  frameGap, disposeAll, cards, moduleCache,
};
globalThis.benchReady = true;
