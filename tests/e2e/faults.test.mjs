// Faults in Chromium: a worker killed in the middle of a call and in the middle of a
// renderMany batch, by the host (`terminate()`) and by the pool's watchdog (a guest stuck in
// a regex, which the instruction budget cannot interrupt). Every pending call must reject with
// SANDBOX_TERMINATED and the kill's reason, model patches the host acknowledged must never be
// lost, patches it had not acknowledged must be reported, and the next call must be served
// correctly by a fresh worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start } from './harness.mjs';

const API = 'https://cardstack.com/base/card-api';
const COUNTER = `import { CardDef, contains, NumberField, html, on } from '${API}';
export class Counter extends CardDef {
  static displayName = 'Counter';
  count = contains(NumberField);
  inc() { this.count = this.count + 1; }
  // Writes, then waits a minute for a guest timer: the dispatch is pending, not running.
  async incThenWait() { this.count = this.count + 1; await new Promise((ok) => setTimeout(ok, 60000)); }
  // Writes, then throws: the dispatch fails after the model changed.
  incThenThrow() { this.count = this.count + 1; throw new Error('after the write'); }
  // Returns at once; a guest timer writes afterwards.
  incLater() { setTimeout(() => { this.count = this.count + 1; }, 0); }
  static isolated({ model, fields }) {
    return html\`<div><span>\${fields.count}</span><button \${on('click', model.inc)}>+</button><button \${on('click', model.incThenWait)}>wait</button><button \${on('click', model.incThenThrow)}>throw</button><button \${on('click', model.incLater)}>later</button></div>\`;
  }
  static embedded({ model }) { return html\`<p>#\${model.count}</p>\`; }
}
// Catastrophic backtracking: a native builtin the instruction budget cannot interrupt.
export class Stuck extends CardDef {
  static embedded() { /^(a+)+$/.test('a'.repeat(40) + 'b'); return html\`<p>never</p>\`; }
}
`;

let h;
let page;
before(async () => {
  h = await start({
    '/realm/': (req, res, url) => {
      const body = url.pathname === '/realm/faults/counter.js' ? COUNTER
        // A module with top-level await whose synchronous part runs out of budget.
        : url.pathname === '/realm/faults/tla-spin.js' ? 'for (;;) {}\nawait 0;\nexport const never = 1;'
          : null;
      if (body === null) { res.writeHead(404).end('not found'); return; }
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(body);
    },
  });
  page = await h.page('/tests/');
  await page.waitForFunction(() => globalThis.ready === true);
  // Page-side helpers every test uses.
  await page.evaluate(`globalThis.faults = {
    sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)),
    // Waits until \`cond()\` holds (at most 10 s).
    async until(cond) {
      const t0 = performance.now();
      while (!cond()) {
        if (performance.now() - t0 > 10_000) throw new Error('timed out waiting');
        await faults.sleep(5);
      }
    },
    // Settles a promise into data: the value, or the error's code, reason and patches.
    grab: (p) => p.then((value) => ({ ok: true, value }), (e) => ({ code: e.code, reason: e.reason, patches: e.patches ? e.patches.map((x) => x.value) : undefined, message: e.message })),
    // Action ids of a render, in document order.
    actions(render) {
      const out = [];
      const walk = (n) => {
        if (n === null || typeof n !== 'object') return;
        if (n.on && n.on.click) out.push(n.on.click);
        (n.children || []).forEach(walk);
      };
      render.tree.forEach(walk);
      return out;
    },
    // The text of a render (the counter's value, for the Counter card).
    text(render) {
      let s = '';
      const walk = (n) => { if (typeof n === 'string') s += n; else if (n && typeof n === 'object') (n.children || []).forEach(walk); };
      render.tree.forEach(walk);
      return s;
    },
    // A compartment with the card API, a host store behind onModelPatch, and a host handler
    // that never answers (so a guest call to it stays pending).
    async setup(pkg, origin, limits, mode = { value: 'ok' }) {
      const store = [];
      const pool = new pkg.CompartmentPool({ spareAfterKill: false });
      const events = { compartment: [], pool: [], patchfailed: [] };
      pool.addEventListener('terminated', (e) => events.pool.push(e.detail.reason));
      const c = await pkg.Compartment.create({
        principal: origin + '/realm/faults/', pool, limits,
        modules: { cardApi: '${API}' },
        exposeHandlerAs: 'host', handler: () => new Promise(() => {}),
        onModelPatch: async (patches) => {
          if (mode.value === 'fail') throw new Error('store offline');
          if (mode.value === 'slow') await faults.sleep(300);
          store.push(...patches.map((p) => ({ id: p.id, path: p.path, value: p.value, seq: p.seq })));
        },
      });
      c.addEventListener('terminated', (e) => events.compartment.push(e.detail.reason));
      c.addEventListener('patchfailed', (e) => events.patchfailed.push(e.detail.patches.map((p) => p.value)));
      return { pool, c, store, events, mode, url: origin + '/realm/faults/counter.js' };
    },
    // The count the host store says card \`id\` has (its last acknowledged write).
    stored(store, id, initial) {
      const mine = store.filter((p) => p.id === id && p.path === 'count');
      return mine.length ? mine[mine.length - 1].value : initial;
    },
  };`);
});
after(async () => h && h.close());

const run = (fn, arg) => page.evaluate(`(${fn})(globalThis.pkg, ${JSON.stringify(arg)})`);

const TERMINATED = (reason) => ({ code: 'SANDBOX_TERMINATED', reason });

test('terminate() in the middle of a call: every pending call rejects (requested); the next call gets a fresh worker', async () => {
  const r = await run(async (pkg, { origin }) => {
    const { sleep, grab, actions, text } = faults;
    const { pool, c, store, events, url } = await faults.setup(pkg, origin, { timeoutMs: 10_000 });
    await c.createCard({ module: url, name: 'Counter' }, { id: 'c1', attributes: { count: 0 } });
    for (let i = 0; i < 3; i++) {
      const [inc] = actions(await c.render('c1', 'isolated'));
      await c.dispatch('c1', inc, { type: 'click' });
    }
    await c.eval('globalThis.leftover = 1');
    // Waiting, not running: a guest promise on a host call that never answers, and an async
    // action waiting on a guest timer.
    const [, wait] = actions(await c.render('c1', 'isolated'));
    const waiting = {
      hostCall: grab(c.eval('host(1)')),
      asyncAction: grab(c.dispatch('c1', wait, { type: 'click' })),
    };
    await sleep(100);
    // Running: a regex the budget cannot stop; queued behind it: an eval, a render, a batch.
    const running = grab(c.eval("/^(a+)+$/.test('a'.repeat(40) + 'b')"));
    const queued = { eval: grab(c.eval('1 + 1')), render: grab(c.render('c1', 'embedded')), batch: grab(c.renderMany([['c1', 'embedded']])) };
    await sleep(200);
    const workersBefore = pool.workerCount;
    c.terminate();
    const settled = {
      running: await running,
      hostCall: await waiting.hostCall,
      asyncAction: await waiting.asyncAction,
      eval: await queued.eval,
      render: await queued.render,
      batch: await queued.batch,
    };
    const afterKill = { workers: pool.workerCount, events: structuredClone(events) };
    // The next call: a fresh worker, with none of the old state, serving correctly.
    const leftover = await c.eval('typeof globalThis.leftover');
    const lostCard = await grab(c.render('c1', 'embedded'));
    await c.loadCard({ type: { module: url, name: 'Counter' }, id: 'c1', attributes: { count: faults.stored(store, 'c1', 0) }, relationships: {} });
    const reloaded = text(await c.render('c1', 'embedded'));
    const [inc] = actions(await c.render('c1', 'isolated'));
    const d = await c.dispatch('c1', inc, { type: 'click' });
    const out = { settled, afterKill, workersBefore, leftover, lostCard: lostCard.code, reloaded, next: text(d.render), patches: d.patches.map((p) => p.value), stats: c.stats(), store: store.map((p) => p.value) };
    pool.close();
    return out;
  }, { origin: h.origin });
  console.log(`terminate() mid-call: ${Object.entries(r.settled).map(([k, v]) => `${k} ${v.code}/${v.reason}`).join(', ')}; workers ${r.workersBefore} -> ${r.afterKill.workers}; next call: ${r.leftover}, card reloaded from the store at ${r.reloaded}`);
  for (const [what, result] of Object.entries(r.settled)) {
    assert.deepEqual({ code: result.code, reason: result.reason }, TERMINATED('requested'), what);
  }
  assert.equal(r.workersBefore, 1);
  // The dead worker left the pool, and nothing started another before the next call.
  assert.equal(r.afterKill.workers, 0);
  assert.deepEqual(r.afterKill.events.compartment, ['requested']);
  assert.deepEqual(r.afterKill.events.pool, ['requested']);
  assert.equal(r.leftover, 'undefined', 'a fresh realm: nothing of the old one survives');
  assert.equal(r.lostCard, 'SANDBOX_GUEST_THREW', 'the card is gone with the worker, and says so');
  // The async action wrote 4 before it began to wait: that patch reached the host at once.
  assert.equal(r.reloaded, '#4', 'reloaded from the acknowledged patches');
  assert.equal(r.next, '5+waitthrowlater');
  assert.deepEqual(r.patches, [5]);
  assert.deepEqual(r.store, [1, 2, 3, 4, 5], 'every acknowledged patch is in the store, in order');
  assert.equal(r.stats.respawns, 1);
});

test('the watchdog kills a call stuck in a regex: every pending call rejects (timeout); the next call gets a fresh worker', async () => {
  const r = await run(async (pkg, { origin }) => {
    const { sleep, grab, actions, text } = faults;
    const { pool, c, url } = await faults.setup(pkg, origin, { timeoutMs: 200 });
    await c.createCard({ module: url, name: 'Counter' }, { id: 'c1', attributes: { count: 5 } });
    const [, wait] = actions(await c.render('c1', 'isolated'));
    const asyncAction = grab(c.dispatch('c1', wait, { type: 'click' }));
    const hostCall = grab(c.eval('host(2)'));
    await sleep(50);
    const t0 = performance.now();
    const running = grab(c.eval("/^(a+)+$/.test('a'.repeat(40) + 'b')"));
    const queued = grab(c.eval('2 + 2'));
    const settled = { running: await running, queued: await queued, asyncAction: await asyncAction, hostCall: await hostCall };
    const killedAfterMs = Math.round(performance.now() - t0);
    const next = await c.eval('6 * 7');
    await c.createCard({ module: url, name: 'Counter' }, { id: 'c2', attributes: { count: 1 } });
    const rendered = text(await c.render('c2', 'embedded'));
    const out = { settled, killedAfterMs, next, rendered, stats: c.stats() };
    pool.close();
    return out;
  }, { origin: h.origin });
  console.log(`watchdog mid-call: killed after ${r.killedAfterMs} ms (timeoutMs 200 + graceMs 100); ${Object.entries(r.settled).map(([k, v]) => `${k} ${v.code}/${v.reason}`).join(', ')}`);
  for (const [what, result] of Object.entries(r.settled)) {
    assert.deepEqual({ code: result.code, reason: result.reason }, TERMINATED('timeout'), what);
  }
  assert.ok(r.killedAfterMs >= 250 && r.killedAfterMs < 3000, `killed after ${r.killedAfterMs} ms`);
  assert.equal(r.next, 42);
  assert.equal(r.rendered, '#1');
  assert.equal(r.stats.respawns, 1);
});

test('a kill in the middle of a renderMany batch: by the watchdog (timeout) and by terminate() (requested)', async () => {
  const r = await run(async (pkg, { origin }) => {
    const { sleep, grab, text } = faults;
    const out = {};
    for (const how of ['watchdog', 'terminate']) {
      const { pool, c, url } = await faults.setup(pkg, origin, { timeoutMs: how === 'watchdog' ? 300 : 10_000 });
      const N = 100;
      for (let i = 0; i < N; i++) await c.createCard({ module: url, name: 'Counter' }, { id: `n${i}`, attributes: { count: i } });
      await c.createCard({ module: url, name: 'Stuck' }, { id: 'stuck' });
      const good = Array.from({ length: N }, (_, i) => [`n${i}`, 'embedded']);
      // The stuck card sits in the middle: half the batch has rendered when it hangs.
      const list = [...good.slice(0, N / 2), ['stuck', 'embedded'], ...good.slice(N / 2)];
      const t0 = performance.now();
      const batch = grab(c.renderMany(list));
      const behind = { render: grab(c.render('n1', 'embedded')), batch: grab(c.renderMany(good.slice(0, 3))) };
      if (how === 'terminate') {
        await sleep(300);
        c.terminate();
      }
      const settled = { batch: await batch, render: await behind.render, queuedBatch: await behind.batch };
      const ms = Math.round(performance.now() - t0);
      // Fresh worker: the cards went with the old one; the host reloads them and renders the
      // whole batch again in one round trip.
      const gone = await c.renderMany([['n0', 'embedded']]);
      for (let i = 0; i < N; i++) await c.loadCard({ type: { module: url, name: 'Counter' }, id: `n${i}`, attributes: { count: i }, relationships: {} });
      const again = await c.renderMany(good);
      out[how] = { settled, ms, gone: gone[0].error && gone[0].error.code, againOk: again.filter((x) => !x.error).length, last: text(again[N - 1]), respawns: c.stats().respawns };
      pool.close();
    }
    return out;
  }, { origin: h.origin });
  for (const [how, reason] of [['watchdog', 'timeout'], ['terminate', 'requested']]) {
    const x = r[how];
    console.log(`renderMany killed by ${how} after ${x.ms} ms: ${Object.entries(x.settled).map(([k, v]) => `${k} ${v.code}/${v.reason}`).join(', ')}; then ${x.againOk} cards re-rendered in one batch`);
    for (const [what, result] of Object.entries(x.settled)) {
      assert.deepEqual({ code: result.code, reason: result.reason }, TERMINATED(reason), `${how}: ${what}`);
    }
    assert.equal(x.gone, 'SANDBOX_GUEST_THREW', `${how}: the old cards are gone`);
    assert.equal(x.againOk, 100);
    assert.equal(x.last, '#99');
    assert.equal(x.respawns, 1);
  }
});

test('patches: acknowledged ones survive a kill; ones the host has not acknowledged yet are reported and can be retried', async () => {
  const r = await run(async (pkg, { origin }) => {
    const { sleep, grab, actions, text } = faults;
    const mode = { value: 'ok' };
    const { pool, c, store, events, url } = await faults.setup(pkg, origin, { timeoutMs: 10_000 }, mode);
    const type = { module: url, name: 'Counter' };
    const reload = () => c.loadCard({ type, id: 'c1', attributes: { count: faults.stored(store, 'c1', 10) }, relationships: {} });
    await c.createCard(type, { id: 'c1', attributes: { count: 10 } });
    const click = async (n = 0) => {
      const ids = actions(await c.render('c1', 'isolated'));
      return c.dispatch('c1', ids[n], { type: 'click' });
    };
    for (let i = 0; i < 3; i++) await click();
    // An action that writes, then throws: the dispatch fails, its write is still delivered.
    const thrown = await grab(click(2));
    const acked = store.map((p) => p.value);

    // 1. The host is slow to acknowledge; the worker dies while it is still storing.
    mode.value = 'slow';
    const slow = grab(click());
    await faults.until(() => c.unacknowledgedPatches().length > 0);
    const inFlight = c.unacknowledgedPatches().map((p) => p.value);
    c.terminate();
    const slowResult = await slow;
    const afterSlow = { store: store.map((p) => p.value), unacked: c.unacknowledgedPatches().length };
    // Nothing was running when it died: the next call is told once, then served afresh.
    const told = await grab(c.eval('1'));

    // 2. The host's store fails; the worker dies during the retries.
    mode.value = 'fail';
    await reload();
    const failing = grab(click());
    await faults.until(() => c.unacknowledgedPatches().length > 0);
    c.terminate();
    const failResult = await failing;
    const reported = { unacked: c.unacknowledgedPatches().map((p) => p.value), patchfailed: structuredClone(events.patchfailed) };
    // The store is back: the kept patch is delivered, and nothing else.
    mode.value = 'ok';
    await c.retryPatches();
    const final = { store: store.map((p) => p.value), unacked: c.unacknowledgedPatches().length };
    const toldAgain = await grab(c.eval('1'));
    // Rebuilt from the store alone, the card shows every acknowledged write.
    await reload();
    const rebuilt = text(await c.render('c1', 'embedded'));
    pool.close();
    return {
      thrown: { code: thrown.code }, acked, inFlight, slowResult: { ok: slowResult.ok, patches: slowResult.ok && slowResult.value.patches.map((p) => p.value) },
      afterSlow, told: { code: told.code, reason: told.reason }, failResult, reported, final, toldAgain: { code: toldAgain.code, reason: toldAgain.reason }, rebuilt, respawns: c.stats().respawns,
    };
  }, { origin: h.origin });
  console.log(`patches: acknowledged ${JSON.stringify(r.acked)} (the last from an action that threw: ${r.thrown.code}); slow host, killed while storing ${JSON.stringify(r.inFlight)} -> dispatch ${r.slowResult.ok ? 'resolved' : 'rejected'}, store ${JSON.stringify(r.afterSlow.store)}; `
    + `failing host, killed during the retries -> ${r.failResult.code}, reported ${JSON.stringify(r.reported)}, after retryPatches the store has ${JSON.stringify(r.final.store)}; rebuilt from the store: ${r.rebuilt}`);
  assert.equal(r.thrown.code, 'SANDBOX_GUEST_THREW');
  assert.deepEqual(r.acked, [11, 12, 13, 14]);
  // A patch that reached the host is the host's: the kill does not touch it.
  assert.deepEqual(r.inFlight, [15]);
  assert.deepEqual(r.slowResult, { ok: true, patches: [15] });
  assert.deepEqual(r.afterSlow, { store: [11, 12, 13, 14, 15], unacked: 0 });
  assert.deepEqual(r.told, TERMINATED('requested'));
  assert.equal(r.failResult.code, 'SANDBOX_PATCH_UNACKNOWLEDGED');
  assert.deepEqual(r.failResult.patches, [16]);
  assert.deepEqual(r.reported, { unacked: [16], patchfailed: [[16]] });
  assert.deepEqual(r.final, { store: [11, 12, 13, 14, 15, 16], unacked: 0 });
  assert.deepEqual(r.toldAgain, TERMINATED('requested'));
  assert.equal(r.rebuilt, '#16');
  assert.equal(r.respawns, 2);
});

// Such a write (an async action still waiting, a guest timer) used to stay in the worker
// until the next dispatch ended: the worker now sends it at once (protocol.rs).
test('patches: a write whose action has not finished, or made by a timer, reaches the host before a kill', async () => {
  const r = await run(async (pkg, { origin }) => {
    const { sleep, grab, actions, text } = faults;
    const { pool, c, store, events, url } = await faults.setup(pkg, origin, { timeoutMs: 10_000 });
    const out = {};
    for (const [which, n] of [['async action still waiting', 1], ['timer after the action', 3]]) {
      await c.createCard({ module: url, name: 'Counter' }, { id: 'c1', attributes: { count: 0 } });
      const ids = actions(await c.render('c1', 'isolated'));
      const dispatched = grab(c.dispatch('c1', ids[n], { type: 'click' }));
      await sleep(100);
      // The host renders the card and sees the write.
      const seen = text(await c.render('c1', 'embedded'));
      // Kill the worker while a call runs (so the compartment is not told on its next call).
      const running = grab(c.eval("/^(a+)+$/.test('a'.repeat(40) + 'b')"));
      await sleep(50);
      c.terminate();
      await running;
      const result = await dispatched;
      await sleep(100);
      out[which] = {
        seen, result: { code: result.code, reason: result.reason, patches: result.ok ? result.value.patches.map((p) => p.value) : result.patches },
        unacked: c.unacknowledgedPatches().map((p) => p.value), patchfailed: structuredClone(events.patchfailed), store: store.map((p) => p.value),
      };
      store.length = 0;
    }
    pool.close();
    return out;
  }, { origin: h.origin });
  for (const [which, x] of Object.entries(r)) {
    console.log(`${which}: the host rendered ${x.seen}; then the worker died: dispatch ${x.result.code ? `${x.result.code}/${x.result.reason}` : 'resolved'}, `
      + `patches with it ${JSON.stringify(x.result.patches)}, unacknowledged ${JSON.stringify(x.unacked)}, patchfailed ${JSON.stringify(x.patchfailed)}, store ${JSON.stringify(x.store)}`);
  }
  for (const [which, x] of Object.entries(r)) {
    assert.equal(x.seen, '#1', `${which}: the write was visible to the host`);
    const reported = [...(x.result.patches || []), ...x.unacked, ...x.patchfailed.flat(), ...x.store];
    assert.ok(reported.includes(1), `${which}: the patch of a write the host saw (count 1) was neither delivered nor reported`);
  }
});

test('terminate() stops the compartment: no worker starts again before the host calls it', async () => {
  const r = await run(async (pkg, { origin }) => {
    const { sleep, grab, actions } = faults;
    const { pool, c, url } = await faults.setup(pkg, origin, { timeoutMs: 10_000 });
    await c.createCard({ module: url, name: 'Counter' }, { id: 'c1', attributes: { count: 0 } });
    const [, wait] = actions(await c.render('c1', 'isolated'));
    const dispatched = grab(c.dispatch('c1', wait, { type: 'click' }));
    await sleep(100);
    c.terminate();
    const result = await dispatched;
    await sleep(300);
    const out = { result: { code: result.code, reason: result.reason }, workers: pool.workerCount, respawns: c.stats().respawns };
    pool.close();
    return out;
  }, { origin: h.origin });
  console.log(`after terminate() of a compartment waiting in an async action: dispatch ${r.result.code}/${r.result.reason}, ${r.workers} workers, ${r.respawns} respawns before any host call`);
  assert.deepEqual(r.result, TERMINATED('requested'));
  assert.equal(r.workers, 0);
  assert.equal(r.respawns, 0);
});

// Found by the fuzzers (fuzz/regressions/, tests/fuzz_regressions.rs): Boa `expect`ed
// operations that a limit can make fail — creating a promise capability at the recursion
// limit, and the synchronous part of a module with top-level await — so a guest at a limit
// panicked the engine, a trap that ended the worker. Patch 07: a typed limit error, and the
// same realm serves the next call.
test('a limit hit in import(), an async generator or a top-level-await module is a typed error; the realm and its worker live on', async () => {
  const r = await run(async (pkg, { origin }) => {
    const { grab } = faults;
    const out = {};
    for (const [which, source] of [
      ['import() at the limit', "function r() { import('./x.js').catch(() => {}); r() } r()"],
      ['async generator at the limit', 'async function* g() {} function r() { g().next(); r() } r()'],
      ['top-level-await module out of budget', null],
    ]) {
      const { pool, c, events } = await faults.setup(pkg, origin, { timeoutMs: 2000, instructions: 1_000_000 });
      const other = await pkg.Compartment.create({ principal: 'bystander', pool });
      await other.eval('globalThis.kept = 7');
      await c.eval('globalThis.before = 1');
      const crashed = await grab(source === null ? c.import(origin + '/realm/faults/tla-spin.js') : c.eval(source));
      const next = await grab(c.eval('[typeof globalThis.before, 6 * 7]'));
      out[which] = { crashed: { code: crashed.code, reason: crashed.reason }, next, events: structuredClone(events), bystander: await other.eval('kept'), respawns: c.stats().respawns };
      pool.close();
    }
    return out;
  }, { origin: h.origin });
  for (const [which, x] of Object.entries(r)) {
    console.log(`${which}: ${x.crashed.code}/${x.crashed.reason}; next call ${JSON.stringify(x.next.value)}; another principal kept ${x.bystander}`);
    assert.equal(x.crashed.code, 'SANDBOX_LIMIT_EXCEEDED', which);
    assert.deepEqual(x.next, { ok: true, value: ['number', 42] }, `${which}: the same realm`);
    assert.deepEqual(x.events.compartment, []);
    assert.equal(x.bystander, 7);
    assert.equal(x.respawns, 0);
  }
});

// This source was an engine failure the worker survived (SANDBOX_TERMINATED, crashed, and a
// fresh realm): the async function's promise capability called an executor past the
// recursion limit, inside a step Boa expected to succeed. Patch 25 makes that capability
// without a call, so the limit is now hit by the guest's own call: a typed error, in the
// same realm.
test('an async function at the recursion limit is a typed limit error; the same realm serves the next call', async () => {
  const r = await run(async (pkg, { origin }) => {
    const { grab } = faults;
    const { pool, c, events } = await faults.setup(pkg, origin, { timeoutMs: 2000 });
    await c.eval('globalThis.before = 1');
    const stopped = await c.eval('async function a() {} function r() { a(); r() } r()').then(() => ({}), (e) => e);
    const next = await grab(c.eval('[typeof globalThis.before, 6 * 7]'));
    const seen = structuredClone(events);
    const respawns = c.stats().respawns;
    pool.close();
    return { stopped: { code: stopped.code, limit: stopped.limit }, next: next.ok ? next.value : next.code, events: seen, respawns };
  }, { origin: h.origin });
  console.log(`async function at the recursion limit: ${r.stopped.code}/${r.stopped.limit}; next call ${JSON.stringify(r.next)}; terminated events ${JSON.stringify(r.events.compartment)}`);
  assert.deepEqual(r.stopped, { code: 'SANDBOX_LIMIT_EXCEEDED', limit: 'maxRecursion' });
  assert.deepEqual(r.next, ['number', 42]);
  assert.deepEqual(r.events.compartment, []);
  assert.equal(r.respawns, 0);
});
