// Bounded soak in Chromium: many entries in one compartment, and many compartment lifetimes
// in a small pool. The worker's wasm memory (which can only grow) and the pool's worker count
// are sampled after a warm-up and at the end; both must stay flat.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
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

const MB = (n) => (n / 1024 / 1024).toFixed(1);

// A small card: one render function over a 20-field model, returning markup as a string.
// `Intl;` at top level first: a function that is the first to touch a lazy platform global
// fails on its second call (Boa's global inline cache; see the todo test in
// security.test.mjs). This soak measures memory, not that bug.
const RENDER = `Intl;
function render(m) {
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const price = new Intl.NumberFormat(m.lang, { style: 'currency', currency: m.currency }).format(m.price);
  return '<article class="card ' + esc(m.kind) + (m.featured ? ' featured' : '') + '" data-id="' + m.id + '">'
    + '<h2>' + esc(m.title) + '</h2><p>' + esc(m.body) + '</p>'
    + '<ul>' + m.tags.map((t) => '<li>' + esc(t) + '</li>').join('') + '</ul>'
    + '<footer>' + esc(m.author) + ' · ' + new Date(m.updated).toISOString().slice(0, 10) + ' · ' + price
    + ' · ' + m.rating.toFixed(1) + '★ · ' + m.views + ' views · ' + m.likes + ' likes · ' + m.comments + ' comments · '
    + m.stock + ' in stock · ' + esc(m.sku) + ' · ' + esc(m.color) + '/' + esc(m.size) + ' · ' + m.weight + ' kg</footer></article>';
}`;

const CYCLES = 10_000;
// Sampled after a warm-up: the first entries size Boa's heap and the allocator's arenas.
const WARMUP = 1_000;
const LIFETIMES = 1_000;

/** Runs `cycles` render evals after `warmup` ones; `literal` puts the model into the source. */
const renderSoak = (literal) => run(async (pkg, { render, cycles, warmup, literal }) => {
  const pool = new pkg.CompartmentPool({ maxWorkers: 2 });
  const c = await pkg.Compartment.create({ principal: 'soak-render', pool });
  await c.eval(render);
  const model = (i) => ({
    id: i, kind: 'product', title: `Title ${i}`, body: `Body <b>${i}</b> `.repeat(4), tags: ['new', `t${i % 13}`, 'sale'],
    author: 'Alice & Bob', updated: 1700000000000 + i * 60000, price: (i % 1000) / 7, currency: 'EUR', views: i * 3,
    likes: i % 97, comments: i % 11, featured: i % 2 === 0, rating: (i % 50) / 10, stock: i % 20, sku: `SKU-${i}`,
    color: 'red', size: 'M', weight: 1.25, lang: 'de-DE',
  });
  if (Object.keys(model(0)).length !== 20) throw new Error('the model must have 20 fields');
  const cycle = async (i) => {
    let html;
    if (literal) {
      html = await c.eval(`render(${JSON.stringify(model(i))})`);
    } else {
      await c.set('model', model(i));
      html = await c.eval('render(model)');
    }
    if (typeof html !== 'string' || !html.includes(`data-id="${i}"`) || !html.includes('€')) throw new Error(`bad render at ${i}: ${html}`);
  };
  for (let i = 0; i < warmup; i++) await cycle(i);
  const first = { memory: c.stats().memoryBytes, workers: pool.workerCount };
  const samples = [];
  const t0 = performance.now();
  for (let i = 0; i < cycles; i++) {
    await cycle(warmup + i);
    if ((i + 1) % 2000 === 0) samples.push(c.stats().memoryBytes);
  }
  const ms = performance.now() - t0;
  const last = { memory: c.stats().memoryBytes, workers: pool.workerCount };
  const stats = c.stats();
  pool.close();
  return { first, last, samples, ms, stats };
}, { render: RENDER, cycles: CYCLES, warmup: WARMUP, literal });

function reportRender(what, r) {
  const rate = CYCLES / (r.ms / 1000);
  console.log(`${what}: ${WARMUP} warm-up cycles, then ${CYCLES} in ${(r.ms / 1000).toFixed(1)} s (${rate.toFixed(0)}/s, ${(r.ms / CYCLES).toFixed(2)} ms each); `
    + `wasm memory ${MB(r.first.memory)} MB after warm-up -> ${MB(r.last.memory)} MB at the end `
    + `(every 2000: ${r.samples.map(MB).join(', ')} MB); workers ${r.first.workers} -> ${r.last.workers}`);
}

test(`${CYCLES} render cycles in one compartment (set model, eval render): memory and workers stay flat`, async () => {
  const r = await renderSoak(false);
  reportRender('render soak', r);
  assert.ok(r.last.memory <= r.first.memory * 1.1, `memory grew from ${r.first.memory} to ${r.last.memory}`);
  assert.ok(r.last.workers <= r.first.workers, `workers grew from ${r.first.workers} to ${r.last.workers}`);
  assert.equal(r.stats.errors, 0);
  assert.equal(r.stats.respawns, 0);
});

test(`${CYCLES} evals of distinct source text (the model as a literal): memory stays flat`, {
  todo: 'LEAK: every eval of new source text leaves roughly 600 bytes in the worker for good (30,000 such evals: 13.8 -> 32.5 MB, ' +
    'still climbing; the same renders through set+eval or call stay flat at ~12 MB). Consistent with Boa\'s per-context ' +
    'string interner keeping every identifier and string literal ever parsed. A long-lived compartment fed fresh ' +
    'source (or a guest calling eval/Function with fresh text) grows until memoryLimitMb ends its worker.',
}, async () => {
  const r = await renderSoak(true);
  reportRender('literal-source soak', r);
  assert.ok(r.last.memory <= r.first.memory * 1.1, `memory grew from ${MB(r.first.memory)} MB to ${MB(r.last.memory)} MB`);
});

test(`${LIFETIMES} compartment creations and disposals in a pool of 2 workers: memory and workers stay flat`, async () => {
  const r = await run(async (pkg, { lifetimes, warmup, churn }) => {
    const pool = new pkg.CompartmentPool({ maxWorkers: 2 });
    const principals = ['soak-a', 'soak-b'];
    const memory = {};
    let maxWorkers = 0;
    const lifetime = async (i, principal) => {
      const c = await pkg.Compartment.create({ principal, pool, limits: { timeoutMs: 1000 } });
      const v = await c.eval(`globalThis.n = ${i}; const list = Array.from({ length: 200 }, (_, k) => ({ k, s: 'x' + k })); n * 2 + list.length`);
      if (v !== i * 2 + 200) throw new Error(`bad answer at ${i}: ${v}`);
      memory[principal] = c.stats().memoryBytes;
      maxWorkers = Math.max(maxWorkers, pool.workerCount);
      await c.dispose();
    };
    for (let i = 0; i < warmup; i++) await lifetime(i, principals[i % 2]);
    const first = { memory: { ...memory }, workers: pool.workerCount };
    const t0 = performance.now();
    for (let i = 0; i < lifetimes; i++) await lifetime(i, principals[i % 2]);
    const ms = performance.now() - t0;
    const last = { memory: { ...memory }, workers: pool.workerCount };
    // Eviction churn: a third principal forces the pool to close the least recently used
    // worker each time; the count must stay at the cap.
    const t1 = performance.now();
    for (let i = 0; i < churn; i++) await lifetime(i, ['soak-a', 'soak-b', 'soak-c'][i % 3]);
    const churnMs = performance.now() - t1;
    const afterChurn = pool.workerCount;
    pool.close();
    return { first, last, ms, maxWorkers, churnMs, afterChurn, closed: pool.workerCount };
  }, { lifetimes: LIFETIMES, warmup: 50, churn: 15 });
  console.log(`lifetime soak: ${LIFETIMES} create+eval+dispose in ${(r.ms / 1000).toFixed(1)} s (${(r.ms / LIFETIMES).toFixed(2)} ms each); `
    + `wasm memory per worker after warm-up ${Object.entries(r.first.memory).map(([p, m]) => `${p} ${MB(m)} MB`).join(', ')} -> at the end `
    + `${Object.entries(r.last.memory).map(([p, m]) => `${p} ${MB(m)} MB`).join(', ')}; workers ${r.first.workers} -> ${r.last.workers} `
    + `(max seen ${r.maxWorkers}); eviction churn: 15 lifetimes over 3 principals in ${(r.churnMs / 1000).toFixed(1)} s, ${r.afterChurn} workers`);
  for (const p of Object.keys(r.first.memory)) {
    assert.ok(r.last.memory[p] <= r.first.memory[p] * 1.1, `${p}: memory grew from ${r.first.memory[p]} to ${r.last.memory[p]}`);
  }
  assert.ok(r.last.workers <= r.first.workers, `workers grew from ${r.first.workers} to ${r.last.workers}`);
  assert.ok(r.maxWorkers <= 2 && r.afterChurn <= 2, `the pool went past maxWorkers (${r.maxWorkers}, ${r.afterChurn})`);
  assert.equal(r.closed, 0);
});
