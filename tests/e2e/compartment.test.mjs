// The compartment tier in real Chromium: realms in dedicated module workers, with soft
// stops, hard kills, crash and memory containment, and a page that never freezes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { start } from './harness.mjs';

let h;
let page;
before(async () => {
  h = await start();
  page = await h.page('/tests/');
  await page.waitForFunction(() => globalThis.ready === true);
});
after(async () => h && h.close());

const run = (fn, arg) => page.evaluate(`(${fn})(globalThis.pkg, ${JSON.stringify(arg)})`);

// The largest frame gap a runaway may cause on the page. Each runaway below lasts 300 ms,
// which a guest on the page's own thread would freeze it for; headless Chromium on two
// busy cores drops a few 60 Hz frames by itself (a 50 ms gap was seen once, and the bench
// measures up to 44 ms at 60 Hz), so the bound is a third of the runaway.
const MAX_FRAME_GAP_MS = 100;

/** Runs `fn` while a requestAnimationFrame loop measures the page's largest frame gap. */
const withFrameGap = (fn) => page.evaluate(`(async () => {
  let last = performance.now(), worst = 0, on = true;
  const tick = (t) => { worst = Math.max(worst, t - last); last = t; if (on) requestAnimationFrame(tick); };
  globalThis.frameWorst = () => worst;
  requestAnimationFrame(tick);
  await new Promise((r) => setTimeout(r, 50));
  worst = 0;
  const result = await (${fn})(globalThis.pkg);
  on = false;
  return { result, worstFrameGapMs: worst };
})()`);

const grab = (p) => p.then((v) => ({ value: v }), (e) => ({ code: e.code, reason: e.reason, limit: e.limit, path: e.path, cls: e instanceof Error && e.name }));

test('eval, set and call cross by clone; promise results are awaited', async () => {
  const r = await run(async (pkg) => {
    const c = await pkg.Compartment.create({ principal: 'https://realm-a.example/' });
    await c.set('model', { title: 'Card', tags: new Set(['x']), when: new Date(0) });
    await c.eval('function describe(m) { return `${m.title}:${[...m.tags]}:${m.when.getTime()}` }');
    const described = await c.call('describe', await c.eval('model'));
    const awaited = await c.eval('(async () => { await null; return [1, 2n, new Map([[1, 2]])] })()');
    const isMap = awaited[2] instanceof Map && Object.getPrototypeOf(awaited) === Array.prototype;
    await c.dispose();
    let after;
    try { await c.eval('1'); } catch (e) { after = e.code; }
    return { described, awaitedBig: awaited[1] === 2n, isMap, after };
  });
  assert.deepEqual(r, { described: 'Card:x:0', awaitedBig: true, isMap: true, after: 'SANDBOX_DISPOSED' });
});

test('disposing compartments gives their memory back in the worker, and the survivor is intact', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool({ maxWorkers: 1 });
    const principal = 'https://realm-heap.example/';
    const survivor = await pkg.Compartment.create({ principal, pool });
    await survivor.eval('globalThis.kept = { list: [1, 2, 3] }; 0');
    const heap = async () => (await pool.workerStats())[0].heapBytes;
    const base = await heap();
    const batch = [];
    for (let i = 0; i < 8; i++) {
      const c = await pkg.Compartment.create({ principal, pool });
      await c.eval('globalThis.k = Array.from({ length: 2000 }, (_, i) => ({ i })); 0');
      batch.push(c);
    }
    const held = await heap();
    for (const c of batch) await c.dispose();
    const after = await heap();
    const sum = await survivor.eval('kept.list.reduce((a, b) => a + b, 0)');
    pool.close();
    return { base, held, after, sum };
  });
  assert.ok(r.held > r.base + 8 * 2000 * 32, `the batch is counted: ${JSON.stringify(r)}`);
  assert.ok(r.after < r.base + (r.held - r.base) / 10, `collected at dispose: ${JSON.stringify(r)}`);
  assert.equal(r.sum, 6);
});

test('the host handler runs on the main thread and the guest awaits it', async () => {
  const r = await run(async (pkg) => {
    const seen = [];
    const c = await pkg.Compartment.create({
      principal: 'https://realm-a.example/',
      exposeHandlerAs: 'host',
      async handler(op, payload) {
        seen.push([op, payload, Object.getPrototypeOf(payload) === Object.prototype]);
        if (op === 'fail') throw new RangeError('denied by host');
        await new Promise((r) => setTimeout(r, 5));
        return { echoed: payload.n * 2 };
      },
    });
    const ok = await c.eval("(async () => (await host('double', { n: 21 })).echoed)()");
    const failed = await c.eval("host('fail', {}).then(() => 'no', (e) => `${e.name}: ${e.message}`)");
    let uncloneable;
    const c2 = await pkg.Compartment.create({ principal: 'p2', exposeHandlerAs: 'host', handler: () => () => 1 });
    uncloneable = await c2.eval("host().then(() => 'no', (e) => e.name)");
    await c.dispose(); await c2.dispose();
    return { ok, failed, seen, uncloneable };
  });
  assert.equal(r.ok, 42);
  assert.equal(r.failed, 'RangeError: denied by host');
  assert.deepEqual(r.seen[0], ['double', { n: 21 }, true]);
  assert.equal(r.uncloneable, 'TypeError');
});

test('soft stop: a runaway ends with SANDBOX_LIMIT_EXCEEDED, the page keeps painting, state survives', async () => {
  const { result, worstFrameGapMs } = await withFrameGap(async (pkg) => {
    const c = await pkg.Compartment.create({ principal: 'soft', limits: { timeoutMs: 300 } });
    await c.eval('globalThis.kept = 7');
    const t0 = performance.now();
    let error;
    try { await c.eval('while (true) {}'); } catch (e) { error = { code: e.code, limit: e.limit }; }
    const ms = performance.now() - t0;
    const kept = await c.eval('kept');
    const stats = c.stats();
    await c.dispose();
    return { error, ms, kept, respawns: stats.respawns };
  });
  assert.deepEqual(result.error, { code: 'SANDBOX_LIMIT_EXCEEDED', limit: 'timeoutMs' });
  assert.equal(result.kept, 7);
  assert.equal(result.respawns, 0);
  assert.ok(result.ms < 300 + 200, `soft stop took ${result.ms} ms`);
  assert.ok(worstFrameGapMs < MAX_FRAME_GAP_MS, `largest frame gap ${worstFrameGapMs} ms`);
  console.log(`soft stop: ${result.ms.toFixed(1)} ms for a 300 ms deadline; worst frame gap ${worstFrameGapMs.toFixed(1)} ms`);
});

test('hard kill: a guest stuck in a native builtin is killed, pending calls reject, the next call respawns', async () => {
  const { result, worstFrameGapMs } = await withFrameGap(async (pkg) => {
    const pool = new pkg.CompartmentPool({ graceMs: 100 });
    const events = [];
    pool.addEventListener('terminated', (e) => events.push(e.detail.reason));
    const c = await pkg.Compartment.create({ principal: 'hard', limits: { timeoutMs: 200 }, pool });
    await c.eval('globalThis.kept = 1');
    // Catastrophic backtracking: one native call that never reaches a budget check.
    const t0 = performance.now();
    const stuck = c.eval("/^(a+)+$/.test('a'.repeat(40) + 'b')").then(() => 'answered', (e) => ({ code: e.code, reason: e.reason }));
    const queued = c.eval('1 + 1').then(() => 'answered', (e) => ({ code: e.code, reason: e.reason }));
    const [a, b] = await Promise.all([stuck, queued]);
    const killedAfter = performance.now() - t0;
    const gapDuringRunaway = globalThis.frameWorst();
    const t1 = performance.now();
    const next = await c.eval('typeof kept');
    const respawnMs = performance.now() - t1;
    const stats = c.stats();
    pool.close();
    return { a, b, killedAfter, next, respawnMs, events, respawns: stats.respawns, gapDuringRunaway };
  });
  assert.deepEqual(result.a, { code: 'SANDBOX_TERMINATED', reason: 'timeout' });
  assert.deepEqual(result.b, { code: 'SANDBOX_TERMINATED', reason: 'timeout' });
  assert.equal(result.next, 'undefined', 'state is gone after a kill');
  assert.equal(result.respawns, 1);
  assert.ok(result.events.includes('timeout'));
  assert.ok(result.killedAfter < 200 + 100 + 150, `killed after ${result.killedAfter} ms`);
  assert.ok(result.gapDuringRunaway < MAX_FRAME_GAP_MS, `largest frame gap during the runaway ${result.gapDuringRunaway} ms`);
  console.log(`hard kill after ${result.killedAfter.toFixed(1)} ms (deadline 200 + grace 100); respawn to first answer ${result.respawnMs.toFixed(1)} ms; worst frame gap during the runaway ${result.gapDuringRunaway.toFixed(1)} ms, including the respawn ${worstFrameGapMs.toFixed(1)} ms`);
});

test('a memory bomb ends with reason memory and a fresh worker', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool({ memoryLimitMb: 64 });
    const c = await pkg.Compartment.create({ principal: 'memory', pool, limits: { timeoutMs: 5000 } });
    let error;
    try { await c.eval('globalThis.keep = []; for (let i = 0; i < 200; i++) keep.push(new ArrayBuffer(1 << 20)); keep.length'); } catch (e) { error = { code: e.code, reason: e.reason }; }
    const next = await c.eval('6 * 7');
    pool.close();
    return { error, next };
  });
  assert.deepEqual(r.error, { code: 'SANDBOX_TERMINATED', reason: 'memory' });
  assert.equal(r.next, 42);
});

test('an engine crash ends with reason crashed, other principals are untouched', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool();
    const victim = await pkg.Compartment.create({ principal: 'victim', pool });
    const bystander = await pkg.Compartment.create({ principal: 'bystander', pool });
    await bystander.eval('globalThis.state = 41');
    const workers = pool.workerCount;
    let error;
    try { await victim.eval('['.repeat(200000) + ']'.repeat(200000)); } catch (e) { error = { code: e.code, reason: e.reason }; }
    const bystanderState = await bystander.eval('state + 1');
    const next = await victim.eval('1 + 1');
    pool.close();
    return { workers, error, bystanderState, next };
  });
  assert.equal(r.workers, 2, 'principals get their own workers');
  assert.deepEqual(r.error, { code: 'SANDBOX_TERMINATED', reason: 'crashed' });
  assert.equal(r.bystanderState, 42);
  assert.equal(r.next, 2);
});

test('a death with nothing pending is still reported, once, on the next call', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool();
    const a = await pkg.Compartment.create({ principal: 'shared', pool });
    const b = await pkg.Compartment.create({ principal: 'shared', pool });
    await b.eval('globalThis.x = 1');
    a.terminate(); // kills the shared worker? no: b is a sibling and a is idle, so only a's realm goes
    const bStill = await b.eval('x');
    const events = [];
    b.addEventListener('terminated', (e) => events.push(e.detail.reason));
    pool.close();
    let first, second;
    try { await b.eval('1'); first = 'ok'; } catch (e) { first = { code: e.code, reason: e.reason }; }
    try { second = await b.eval('typeof x'); } catch (e) { second = e.code; }
    return { bStill, first, second, events };
  });
  assert.equal(r.bStill, 1);
  assert.deepEqual(r.first, { code: 'SANDBOX_TERMINATED', reason: 'requested' });
  assert.equal(r.second, 'undefined');
  assert.deepEqual(r.events, ['requested']);
});

test('options and arguments fail closed with typed errors', async () => {
  const r = await run(async (pkg) => {
    const grab = async (f) => { try { await f(); return 'no error'; } catch (e) { return { code: e.code, option: e.option, path: e.path, limit: e.limit }; } };
    const c = await pkg.Compartment.create({ principal: 'opts' });
    const out = {
      noPrincipal: await grab(() => pkg.Compartment.create({})),
      unknown: await grab(() => pkg.Compartment.create({ principal: 'p', colour: 1 })),
      badLimit: await grab(() => pkg.Compartment.create({ principal: 'p', limits: { cpu: 1 } })),
      handlerWithoutName: await grab(() => pkg.Compartment.create({ principal: 'p', handler() {} })),
      badPool: await grab(() => new pkg.CompartmentPool({ maxWorkers: -1 })),
      badWasm: await grab(() => new pkg.CompartmentPool({ wasm: 42 })),
      uncloneable: await grab(() => c.set('x', { a: [1, { f() {} }] })),
      notString: await grab(() => c.eval(42)),
    };
    await c.dispose();
    return out;
  });
  assert.deepEqual(r.noPrincipal, { code: 'SANDBOX_INVALID_OPTIONS', option: 'principal', path: undefined, limit: undefined });
  assert.equal(r.unknown.option, 'colour');
  assert.deepEqual([r.badLimit.code, r.badLimit.option], ['SANDBOX_INVALID_OPTIONS', 'limits.cpu']);
  assert.equal(r.handlerWithoutName.option, 'exposeHandlerAs');
  assert.equal(r.badPool.option, 'maxWorkers');
  assert.deepEqual([r.badWasm.code, r.badWasm.option], ['SANDBOX_INVALID_OPTIONS', 'wasm']);
  assert.deepEqual([r.uncloneable.code, r.uncloneable.path], ['SANDBOX_NOT_CLONEABLE', '$.a[1].f']);
  assert.equal(r.notString.code, 'SANDBOX_INVALID_OPTIONS');
});

test('maxInFlight caps calls made in one go, frees a place as each settles, and keeps their order', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool({ maxInFlight: 8 });
    const c = await pkg.Compartment.create({ principal: 'in-flight', pool });
    const sibling = await pkg.Compartment.create({ principal: 'in-flight', pool });
    await c.eval('var log = []; function note(i) { log.push(i); return i; }');
    const outcome = (p) => p.then((v) => v, (e) => e.code);
    // Twelve in one synchronous go: eight are sent, four refused before anything is sent.
    const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => outcome(c.call('note', i))));
    const order = await c.eval('log.join()');
    // Refusals and failures free their places too: an uncloneable argument, a guest throw.
    const failing = await Promise.all([
      outcome(c.call('note', () => {})),
      outcome(c.call('nope')),
      ...Array.from({ length: 8 }, (_, i) => outcome(c.call('note', 100 + i))),
    ]);
    // Eight waiting on the guest: a ninth is refused, a sibling compartment is not.
    await c.eval('var gate = new Promise((r) => setTimeout(r, 300)); async function wait(i) { await gate; return i; }');
    const waiting = Array.from({ length: 8 }, (_, i) => outcome(c.call('wait', i)));
    const ninth = await outcome(c.call('note', 9));
    const siblingAnswer = await outcome(sibling.eval('1 + 1'));
    const waited = await Promise.all(waiting);
    const after = await outcome(c.call('note', 42));
    pool.close();
    return { burst, order, failing, ninth, siblingAnswer, waited, after };
  });
  const LIMIT = 'SANDBOX_LIMIT_EXCEEDED';
  assert.deepEqual(r.burst, [0, 1, 2, 3, 4, 5, 6, 7, LIMIT, LIMIT, LIMIT, LIMIT]);
  assert.equal(r.order, '0,1,2,3,4,5,6,7');
  assert.deepEqual(r.failing, ['SANDBOX_NOT_CLONEABLE', 'SANDBOX_GUEST_THREW', 100, 101, 102, 103, 104, 105, LIMIT, LIMIT]);
  assert.equal(r.ninth, LIMIT);
  assert.equal(r.siblingAnswer, 2);
  assert.deepEqual(r.waited, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(r.after, 42);
});

test('call and set payloads cross as the sync Realm\'s do: shapes, cycles and types kept, the realm\'s clone limits enforced', async () => {
  const r = await run(async (pkg) => {
    const grab = async (f) => { try { return { value: await f() }; } catch (e) { return { code: e.code, limit: e.limit, path: e.path }; } };
    const c = await pkg.Compartment.create({ principal: 'payloads', limits: { maxCloneObjects: 6 } });
    await c.eval('function identity(x) { return x } function stored() { return kept }');
    const shared = { s: 1 };
    const model = { shared, list: [shared, -0, NaN, 2n], when: new Date(5), tags: new Set(['a']) };
    model.self = model;
    const back = await c.call('identity', model);
    await c.set('kept', new Map([[1, 'one']]));
    const kept = await c.call('stored');
    const deep = { a: { b: { c: { d: { e: { f: {} } } } } } };
    const overCall = await grab(() => c.call('identity', deep));
    const overSet = await grab(() => c.set('x', deep));
    const after = await c.call('identity', [1, 'two']);
    await c.dispose();
    return {
      cycle: back.self === back,
      shared: back.list[0] === back.shared && back.shared.s === 1,
      negZero: Object.is(back.list[1], -0), nan: Number.isNaN(back.list[2]), big: back.list[3] === 2n,
      date: back.when instanceof Date && back.when.getTime() === 5,
      set: back.tags instanceof Set && back.tags.has('a'),
      plainProto: Object.getPrototypeOf(back) === Object.prototype,
      kept: kept instanceof Map && kept.get(1) === 'one',
      overCall, overSet, after: after.value ?? after,
    };
  });
  assert.deepEqual(r, {
    cycle: true, shared: true, negZero: true, nan: true, big: true, date: true, set: true, plainProto: true, kept: true,
    overCall: { code: 'SANDBOX_LIMIT_EXCEEDED', limit: 'maxCloneObjects', path: '$[0].a.b.c.d.e' },
    overSet: { code: 'SANDBOX_LIMIT_EXCEEDED', limit: 'maxCloneObjects', path: '$.a.b.c.d.e.f' },
    after: [1, 'two'],
  });
});

test('protocol fuzzing: malformed messages get typed errors and the worker lives on', async () => {
  const r = await page.evaluate(async () => {
    const module = await WebAssembly.compileStreaming(fetch('/pkg/isolated_realm_bg.wasm'));
    const w = new Worker('/pkg/worker.js', { type: 'module' });
    const inbox = [];
    let wake = null;
    w.onmessage = (e) => { inbox.push(e.data); if (wake) wake(); };
    const next = async () => { while (!inbox.length) await new Promise((r) => { wake = r; }); return inbox.shift(); };
    w.postMessage('not even an object');
    const beforeInit = await next();
    w.postMessage({ v: 1, type: 'init', module });
    const ready = await next();
    const cyclic = { v: 1, type: 'eval', id: 9, realm: 1 }; cyclic.source = cyclic;
    const garbage = [null, 42, 'eval', [], { v: 2, type: 'eval', id: 1 }, { v: 1 }, { v: 1, type: 'nope', id: 2 },
      { v: 1, type: 'eval', id: 3, realm: 1, source: 1 }, { v: 1, type: 'eval', id: -4, realm: 1, source: '1' },
      { v: 1, type: 'call', id: 5, realm: 1, name: 'f', args: 'x' }, { v: 1, type: 'settle', id: 6, realm: 1, call: 1, ok: 'yes' },
      { v: 1, type: 'create', id: 7, realm: 1, options: { limits: { timeoutMs: 'soon' } } },
      { v: 1, type: 'eval', id: 8, realm: 99, source: '1' }, cyclic,
      { v: 1, type: 'eval', id: 2 ** 60, realm: 1, source: '1' }, new Uint8Array(16), { v: 1, type: 'create', id: 10, realm: 1, __proto__: { polluted: true } }];
    const codes = [];
    for (const g of garbage) { w.postMessage(g); const m = await next(); codes.push(m.type === 'error' ? m.error.code : m.type); }
    // Call, card and set messages have their payload walked apart: an array posing as a
    // message, an own `__proto__` field and a payload that is not an argument list are still
    // refused.
    const posing = Object.assign([1], { v: 1, type: 'call', id: 20, realm: 1, name: 'f', args: [] });
    const walkedApart = [posing, JSON.parse('{"v":1,"type":"set","id":21,"realm":1,"name":"x","value":1,"__proto__":2}'),
      { v: 1, type: 'card', id: 22, realm: 1, op: 'render', args: { 0: 'x' } }, { v: 1, type: 'call', id: 23, realm: 1, name: 'f', args: new Map() }];
    const apart = [];
    for (const g of walkedApart) { w.postMessage(g); const m = await next(); apart.push(m.type === 'error' ? m.error.code : m.type); }
    w.postMessage({ v: 1, type: 'create', id: 100, realm: 5 });
    const created = await next();
    w.postMessage({ v: 1, type: 'eval', id: 101, realm: 5, source: '40 + 2' });
    const answered = await next();
    w.terminate();
    return { beforeInit: beforeInit.error.code, ready: ready.type, codes, apart, created: created.type, answer: answered.value };
  });
  assert.equal(r.beforeInit, 'SANDBOX_PROTOCOL');
  assert.equal(r.ready, 'ready');
  const allowed = new Set(['SANDBOX_PROTOCOL', 'SANDBOX_INVALID_OPTIONS', 'SANDBOX_DISPOSED', 'result']);
  for (const code of r.codes) assert.ok(allowed.has(code), `unexpected reply ${code} in ${r.codes}`);
  assert.equal(r.codes.filter((c) => c === 'SANDBOX_PROTOCOL').length >= 12, true, r.codes.join());
  assert.deepEqual(r.apart, ['SANDBOX_PROTOCOL', 'SANDBOX_PROTOCOL', 'SANDBOX_PROTOCOL', 'SANDBOX_PROTOCOL']);
  assert.equal(r.created, 'result');
  assert.equal(r.answer, 42);
});

test('the pool caps workers, evicts the least recently used idle one, and closes idle ones', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool({ maxWorkers: 2, idleTimeoutMs: 300 });
    const events = [];
    pool.addEventListener('terminated', (e) => events.push([e.detail.principal, e.detail.reason]));
    const a = await pkg.Compartment.create({ principal: 'a', pool });
    await a.eval('globalThis.s = "a"');
    const b = await pkg.Compartment.create({ principal: 'b', pool });
    await b.eval('globalThis.s = "b"');
    const c = await pkg.Compartment.create({ principal: 'c', pool }); // evicts a, the LRU idle worker
    const afterCap = pool.workerCount;
    let first;
    try { await a.eval('s'); first = 'kept'; } catch (e) { first = [e.code, e.reason]; }
    const second = await a.eval('typeof s'); // respawned (evicting b), fresh state
    await new Promise((r) => setTimeout(r, 900));
    const afterIdle = pool.workerCount;
    const stats = a.stats();
    pool.close();
    return { afterCap, first, second, afterIdle, events, stats, c: typeof c };
  });
  assert.equal(r.afterCap, 2);
  assert.deepEqual(r.first, ['SANDBOX_TERMINATED', 'evicted']);
  assert.equal(r.second, 'undefined');
  assert.equal(r.afterIdle, 0, 'idle workers are closed');
  assert.deepEqual(r.events.slice(0, 2), [['a', 'evicted'], ['b', 'evicted']]);
  assert.equal(r.stats.respawns, 1);
  // Counted: the host's own eval/set/call requests that reached a worker, not internal ones.
  assert.ok(r.stats.calls === 2 && r.stats.totalMs > 0 && r.stats.memoryBytes > 0, JSON.stringify(r.stats));
});

test('the page runs under a CSP without unsafe-eval, and compartments still work', async () => {
  const r = await page.evaluate(async () => {
    const pageEval = globalThis.pageEval;
    const c = await globalThis.pkg.Compartment.create({ principal: 'csp' });
    const inside = await c.eval("eval('20 + 22')"); // the guest's eval is Boa's, not the page's
    await c.dispose();
    return { pageEval, inside };
  });
  const response = await page.request.get(h.origin + '/tests/');
  const csp = response.headers()['content-security-policy'];
  assert.ok(csp.includes("script-src 'self' 'wasm-unsafe-eval'") && !csp.includes("'unsafe-eval'"), csp);
  assert.equal(r.pageEval, 'EvalError');
  assert.equal(r.inside, 42);
});

test('main-thread JS stays small', async () => {
  const files = ['index.js', 'client.js', 'errors.js'];
  const source = (await Promise.all(files.map((f) => readFile(new URL(`../../pkg/${f}`, import.meta.url), 'utf8')))).join('\n');
  const gz = gzipSync(source, { level: 9 }).length;
  console.log(`main-thread JS: ${source.length} bytes, ${gz} gzipped`);
  assert.ok(gz <= 10 * 1024, `${gz} bytes gzipped`);
});

/** Runs `fn` in a page of its own, in a browser context of its own: nothing compiled yet. */
async function inFreshPage(fn, onContext) {
  const context = await h.browser.newContext();
  try {
    onContext?.(context);
    const p = await context.newPage();
    await p.goto(`${h.origin}/pkg/package.json`);
    return await p.evaluate(fn);
  } finally {
    await context.close();
  }
}

test('a compartment worker starts from one script: it fetches no module of its own', async () => {
  // The page loads only the client: whatever script it fetches besides is the worker's.
  const paths = [];
  const answer = await inFreshPage(async () => {
    const { Compartment } = await import('/pkg/index.js');
    const c = await Compartment.create({ principal: 'one-script' });
    try {
      return await c.eval('40 + 2');
    } finally {
      c.terminate();
    }
  }, (context) => context.on('request', (r) => paths.push(new URL(r.url()).pathname)));
  assert.equal(answer, 42);
  const scripts = paths.filter((x) => x.endsWith('.js'));
  assert.ok(scripts.includes('/pkg/worker.js'), scripts.join(', '));
  // The glue and its snippets are inside worker.js; the page fetched only the client.
  assert.deepEqual(scripts.filter((x) => !['/pkg/index.js', '/pkg/client.js', '/pkg/errors.js', '/pkg/worker.js'].includes(x)), []);
});

test('a new worker gets its first create right after init, without waiting a round trip for ready', async () => {
  const r = await inFreshPage(async () => {
    // What the page sends to its workers and hears back, in order.
    const log = [];
    const Base = globalThis.Worker;
    globalThis.Worker = class extends Base {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => log.push(`got ${e.data.type}`));
      }
      postMessage(m, ...rest) {
        log.push(`sent ${m.type}`);
        return super.postMessage(m, ...rest);
      }
    };
    const { Compartment, CompartmentPool } = await import('/pkg/index.js');
    const pool = new CompartmentPool();
    const c = await Compartment.create({ principal: 'pipelined', pool });
    const first = log.slice();
    const answer = await c.eval('40 + 2');
    pool.close();
    // A pool closed before its worker is ready: the create in flight rejects.
    const early = new CompartmentPool();
    const creating = Compartment.create({ principal: 'closed-early', pool: early });
    early.close();
    const closed = await creating.then(() => 'created', (e) => `${e.code} ${e.reason}`);
    return { first, answer, stats: c.stats(), closed };
  });
  assert.deepEqual(r.first, ['sent init', 'sent create', 'got ready', 'got result']);
  assert.equal(r.answer, 42);
  assert.equal(r.stats.respawns, 0);
  assert.equal(r.closed, 'SANDBOX_TERMINATED requested');
});

test('pool.warm() starts one worker ahead, and the next compartment adopts it with the warm-up realm gone', async () => {
  const r = await inFreshPage(async () => {
    let workers = 0;
    const sent = [];
    const Base = globalThis.Worker;
    globalThis.Worker = class extends Base {
      constructor(...args) {
        super(...args);
        workers++;
      }
      postMessage(m, ...rest) {
        sent.push(m.type);
        return super.postMessage(m, ...rest);
      }
    };
    const grab = (x) => x.then(() => 'resolved', (e) => `${e.code} ${e.reason}`);
    const { Compartment, CompartmentPool } = await import('/pkg/index.js');
    const pool = new CompartmentPool();
    const first = pool.warm();
    const again = pool.warm();
    const same = first === again;
    await first;
    const afterWarm = { workers, workerCount: pool.workerCount, sent: sent.slice() };
    const a = await Compartment.create({ principal: 'warmed', pool });
    const answer = await a.eval('typeof warm + typeof Row + (40 + 2)');
    const adopted = { workers, workerCount: pool.workerCount, stats: await pool.workerStats() };
    // The spare went to `warmed`: warming again starts another one.
    await pool.warm();
    const rewarmed = { workers, workerCount: pool.workerCount };
    const b = await Compartment.create({ principal: 'second', pool });
    const second = { answer: await b.eval('1 + 1'), workers, workerCount: pool.workerCount };
    // A create that adopts the worker while its warm-up runs waits behind it.
    const warming = pool.warm();
    const c = await Compartment.create({ principal: 'while-warming', pool });
    await warming;
    const queued = { answer: await c.eval('2 + 3'), workers, sent: sent.slice(-4) };
    // At maxWorkers there is no room for a spare: warm() only compiles.
    const full = new CompartmentPool({ maxWorkers: 1 });
    await Compartment.create({ principal: 'only', pool: full });
    const fullWarm = await grab(full.warm());
    const fullCount = full.workerCount;
    full.close();
    pool.close();
    return { same, afterWarm, answer, adopted, rewarmed, second, queued, fullWarm, fullCount, closed: await grab(pool.warm()) };
  });
  assert.equal(r.same, true);
  assert.deepEqual(r.afterWarm, { workers: 1, workerCount: 1, sent: ['init', 'warm'] });
  // The warm-up's globals were in a realm of their own, disposed before the adoption.
  assert.equal(r.answer, 'undefinedundefined42');
  assert.equal(r.adopted.workers, 1, 'the compartment adopted the warmed worker');
  assert.equal(r.adopted.workerCount, 1);
  assert.deepEqual(r.adopted.stats.map((s) => [s.principal, s.realms]), [['warmed', 1]]);
  assert.deepEqual(r.rewarmed, { workers: 2, workerCount: 2 });
  assert.deepEqual(r.second, { answer: 2, workers: 2, workerCount: 2 });
  assert.deepEqual(r.queued, { answer: 5, workers: 3, sent: ['init', 'warm', 'create', 'eval'] });
  assert.equal(r.fullWarm, 'resolved');
  assert.equal(r.fullCount, 1);
  assert.equal(r.closed, 'SANDBOX_TERMINATED requested');
});

test('no request ever left for another origin', () => {
  assert.deepEqual(h.requests.filter((u) => !u.startsWith(h.origin)), []);
});

test('guest timers run in the worker; results can wait for them; console and errors arrive as events', async () => {
  const r = await run(async (pkg) => {
    const pool = new pkg.CompartmentPool();
    const c = await pkg.Compartment.create({ principal: 'platform', pool, limits: { timeoutMs: 500 } });
    const events = [];
    c.addEventListener('console', (e) => events.push(['console', e.detail.level, e.detail.args]));
    c.addEventListener('error', (e) => events.push(['error', e.detail.code, e.detail.guestMessage]));
    c.addEventListener('unhandledrejection', (e) => events.push(['unhandledrejection', e.detail.guestMessage]));
    const waited = await c.eval("new Promise((resolve) => setTimeout(() => resolve('after a timer'), 30))");
    await c.eval("console.info('hello', { n: 1 }); setTimeout(() => { throw new Error('in a timer') }, 5); Promise.reject(new Error('nobody')); 0");
    await new Promise((r) => setTimeout(r, 150));
    // A timer stuck in a native builtin is watched like a call: the worker is killed.
    const killed = new Promise((resolve) => c.addEventListener('terminated', (e) => resolve(e.detail.reason)));
    await c.eval("setTimeout(() => /^(a+)+$/.test('a'.repeat(40) + 'b'), 1); 0");
    const reason = await killed;
    const after = await c.eval("typeof setTimeout").catch((e) => e.reason);
    const again = await c.eval('typeof setTimeout');
    pool.close();
    return { waited, events, reason, after, again };
  });
  assert.equal(r.waited, 'after a timer');
  assert.deepEqual(r.events.find((e) => e[0] === 'console'), ['console', 'info', ['hello', { n: 1 }]]);
  assert.deepEqual(r.events.find((e) => e[0] === 'error'), ['error', 'SANDBOX_GUEST_THREW', 'in a timer']);
  assert.deepEqual(r.events.find((e) => e[0] === 'unhandledrejection'), ['unhandledrejection', 'nobody']);
  assert.equal(r.reason, 'timeout');
  assert.equal(r.after, 'timeout', 'the first call after an unreported death says so');
  assert.equal(r.again, 'function');
});

test('URL and Intl in a compartment agree with the page', async () => {
  const r = await run(async (pkg) => {
    const c = await pkg.Compartment.create({ principal: 'intl' });
    const src = "[new URL('../x?a=1 2', 'https://a.example/b/c').href, new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(1234.5), new Date(0).toLocaleDateString('en-US', { timeZone: 'UTC' })]";
    const guest = await c.eval(src);
    await c.dispose();
    const host = [new URL('../x?a=1 2', 'https://a.example/b/c').href, new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(1234.5), new Date(0).toLocaleDateString('en-US', { timeZone: 'UTC' })];
    return { guest, host };
  });
  assert.deepEqual(r.guest, r.host);
});

test('after a kill the pool starts one spare worker, and the respawn adopts it', async () => {
  const r = await run(async (pkg) => {
    const counts = async (spareAfterKill) => {
      const pool = new pkg.CompartmentPool({ spareAfterKill });
      const c = await pkg.Compartment.create({ principal: 'spare-test', pool });
      await c.eval('1');
      const before = pool.workerCount;
      c.terminate();
      const afterKill = pool.workerCount;
      // The death is reported once, on the next call; the call after it respawns.
      const reported = await c.eval('1').then(() => 'answered', (e) => e.code);
      const answer = await c.eval('40 + 2');
      const afterRespawn = pool.workerCount;
      const other = await pkg.Compartment.create({ principal: 'spare-other', pool });
      await other.eval('1');
      const withOther = pool.workerCount;
      pool.close();
      return { before, afterKill, reported, answer, afterRespawn, withOther, closed: pool.workerCount };
    };
    return { on: await counts(undefined), off: await counts(false) };
  });
  // On: the killed worker is replaced by an unowned spare at once, which the respawn adopts
  // (no extra worker), and no spare is started for the second principal.
  const reported = 'SANDBOX_TERMINATED';
  assert.deepEqual(r.on, { before: 1, afterKill: 1, reported, answer: 42, afterRespawn: 1, withOther: 2, closed: 0 });
  assert.deepEqual(r.off, { before: 1, afterKill: 0, reported, answer: 42, afterRespawn: 1, withOther: 2, closed: 0 });
});

test('the size-optimised build answers like the default one, from its own file', async () => {
  const r = await run(async (pkg) => {
    const work = `(() => {
      function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
      const text = 'caf\\u00e9 \\u4e2d lorem, ipsum'.repeat(50);
      const json = JSON.parse(JSON.stringify({ a: [1, 2.5, 'x'], b: { c: null } }));
      return [fib(20), text.replace(/[aeiou]/g, (m) => m.toUpperCase()).length, text.split(/\\s+/).length,
        JSON.stringify(json), [3, 1, 2].sort().join(), new Date(0).toISOString(), (123.456).toFixed(1),
        'stra\\u00dfe'.normalize('NFD').length, new URL('../x?y#z', 'https://a.example/b/c').href];
    })()`;
    const answers = {};
    for (const [name, wasm] of [['fast', pkg.WASM_URL], ['small', pkg.SMALL_WASM_URL]]) {
      const pool = new pkg.CompartmentPool({ wasm });
      // The first eval runs on a cold wasm in a fresh worker: on two busy cores it has taken
      // over 100 ms, so the deadline is a second.
      const c = await pkg.Compartment.create({ principal: `build-${name}`, pool, limits: { timeoutMs: 1000 } });
      const result = await c.eval(work);
      const stopped = await c.eval('for (;;) {}').then(() => 'ran', (e) => [e.code, e.limit]);
      const after = await c.eval('6 * 7');
      pool.close();
      answers[name] = { result, stopped, after };
    }
    const fetched = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)
      .filter((p) => p.endsWith('.wasm'));
    return { answers, fetched, urls: [String(pkg.WASM_URL), String(pkg.SMALL_WASM_URL)] };
  });
  assert.deepEqual(r.answers.small, r.answers.fast);
  assert.deepEqual(r.answers.fast.stopped, ['SANDBOX_LIMIT_EXCEEDED', 'timeoutMs']);
  assert.equal(r.answers.fast.result[0], 6765);
  assert.ok(r.fetched.includes('/pkg/isolated_realm_small_bg.wasm'), `fetched: ${r.fetched.join(', ')}`);
  assert.ok(r.urls[1].endsWith('/pkg/isolated_realm_small_bg.wasm'), r.urls[1]);
  const [fast, small] = await Promise.all(['isolated_realm_bg.wasm', 'isolated_realm_small_bg.wasm']
    .map((f) => readFile(new URL(`../../pkg/${f}`, import.meta.url))));
  const [fastGz, smallGz] = [gzipSync(fast).length, gzipSync(small).length];
  console.log(`wasm gzipped: ${fastGz} B (speed), ${smallGz} B (size)`);
  assert.ok(smallGz < fastGz * 0.9, `the small build is at least 10% smaller gzipped: ${smallGz} vs ${fastGz}`);
});
