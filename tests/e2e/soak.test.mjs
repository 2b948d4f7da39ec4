// Bounded soak in Chromium: many entries in one compartment (evals, and card render+dispatch
// cycles), and many compartment lifetimes in a small pool. The worker's wasm memory (which can only grow) and the pool's worker count
// are sampled after a warm-up and at the end; both must stay flat.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start } from './harness.mjs';

// A counter card for the card soak, served by a fake realm server.
const API = 'https://cardstack.com/base/card-api';
const COUNTER = `import { CardDef, contains, NumberField, StringField, html, on } from '${API}';
export class Counter extends CardDef {
  static displayName = 'Counter';
  count = contains(NumberField);
  label = contains(StringField);
  inc() { this.count = this.count + 1; }
  static isolated({ model, fields }) {
    return html\`<section><h2>\${fields.label}</h2><span class="n">\${fields.count}</span><button \${on('click', model.inc)}>+</button></section>\`;
  }
  static embedded({ model }) { return html\`<p>\${model.label}: \${model.count}</p>\`; }
}
`;

/** A module of 100 identifiers no other module uses (what a context's interner would keep). */
function generated(n) {
  const names = Array.from({ length: 100 }, (_, k) => `soak_identifier_${n}_${k}_${'x'.repeat(12)}`);
  return `${names.map((id, k) => `export const ${id} = ${k};`).join('\n')}\nexport const total = ${names.join(' + ')};\n`;
}

let h;
let page;
before(async () => {
  h = await start({
    '/realm/': (req, res, url) => {
      const gen = /^\/realm\/soak\/gen\/m(\d+)\.js$/.exec(url.pathname);
      if (gen) {
        res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(generated(gen[1]));
        return;
      }
      if (url.pathname !== '/realm/soak/counter.js') { res.writeHead(404).end('not found'); return; }
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(COUNTER);
    },
  });
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

// Each eval of fresh source used to leave ~600 B in Boa's context interner for good (30,000
// evals: 13.8 -> 32.5 MB); host evals now parse and compile with a scratch interner.
test(`${CYCLES} evals of distinct source text (the model as a literal): memory stays flat`, async () => {
  const r = await renderSoak(true);
  reportRender('literal-source soak', r);
  assert.ok(r.last.memory <= r.first.memory * 1.1, `memory grew from ${MB(r.first.memory)} MB to ${MB(r.last.memory)} MB`);
});

// Card cycles: each renders the counter (with four sibling cards, in one renderMany round trip)
// and dispatches an increment; the host store acknowledges every patch.
const CARD_CYCLES = Number(process.env.SOAK_CARD_CYCLES || 10_000);
const CARD_WARMUP = 1_000;

test(`${CARD_CYCLES} card render+dispatch cycles in one compartment: memory and workers stay flat`, async () => {
  const r = await run(async (pkg, { origin, api, cycles, warmup }) => {
    const pool = new pkg.CompartmentPool({ maxWorkers: 2 });
    let stored = 0;
    let last = null;
    const c = await pkg.Compartment.create({
      principal: origin + '/realm/soak/', pool, modules: { cardApi: api },
      onModelPatch: (patches) => { stored += patches.length; last = patches[patches.length - 1].value; },
    });
    const type = { module: origin + '/realm/soak/counter.js', name: 'Counter' };
    await c.createCard(type, { id: 'counter', attributes: { count: 0, label: 'Clicks' } });
    for (let k = 0; k < 4; k++) await c.createCard(type, { id: `sib${k}`, attributes: { count: k, label: `Sibling ${k}` } });
    const list = [['counter', 'isolated'], ...[0, 1, 2, 3].map((k) => [`sib${k}`, 'embedded'])];
    const cycle = async (i) => {
      const [view, ...siblings] = await c.renderMany(list);
      const section = view.tree[0].children[0];
      const shown = section.children[1].children[0];
      if (shown !== String(i) || siblings.some((s) => s.error)) throw new Error(`bad render at ${i}: ${JSON.stringify(view.tree)}`);
      const d = await c.dispatch('counter', section.children[2].on.click, { type: 'click' });
      if (d.patches.length !== 1 || d.patches[0].value !== i + 1 || last !== i + 1) throw new Error(`bad dispatch at ${i}: ${JSON.stringify(d.patches)}`);
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
    const end = { memory: c.stats().memoryBytes, workers: pool.workerCount };
    const stats = c.stats();
    const unacked = c.unacknowledgedPatches().length;
    pool.close();
    return { first, last: end, samples, ms, stats, stored, unacked };
  }, { origin: h.origin, api: API, cycles: CARD_CYCLES, warmup: CARD_WARMUP });
  const rate = CARD_CYCLES / (r.ms / 1000);
  console.log(`card soak: ${CARD_WARMUP} warm-up cycles, then ${CARD_CYCLES} render (renderMany of 5) + dispatch cycles in ${(r.ms / 1000).toFixed(1)} s `
    + `(${rate.toFixed(0)}/s, ${(r.ms / CARD_CYCLES).toFixed(2)} ms each); wasm memory ${MB(r.first.memory)} MB (${r.first.memory} B) after warm-up -> ${MB(r.last.memory)} MB (${r.last.memory} B) at the end `
    + `(every 2000: ${r.samples.map(MB).join(', ')} MB); workers ${r.first.workers} -> ${r.last.workers}; ${r.stored} patches acknowledged, ${r.unacked} not`);
  assert.ok(r.last.memory <= r.first.memory * 1.1, `memory grew from ${r.first.memory} to ${r.last.memory}`);
  assert.ok(r.last.workers <= r.first.workers, `workers grew from ${r.first.workers} to ${r.last.workers}`);
  assert.equal(r.stored, CARD_WARMUP + CARD_CYCLES, 'every dispatch delivered its patch');
  assert.equal(r.unacked, 0);
  assert.equal(r.stats.errors, 0);
  assert.equal(r.stats.respawns, 0);
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

// Compartments that load a card (so import a module) and are disposed, one after another in
// one worker.
const CARD_LIFETIMES = Number(process.env.SOAK_CARD_LIFETIMES || 300);

// A realm that imported a module used to stay alive after disposal (~800 KB per card
// compartment): Boa patch 06.
test(`${CARD_LIFETIMES} lifetimes of compartments that load a card, in one worker: memory stays flat`, async () => {
  const r = await run(async (pkg, { origin, api, lifetimes, warmup }) => {
    const pool = new pkg.CompartmentPool({ maxWorkers: 1 });
    const type = { module: origin + '/realm/soak/counter.js', name: 'Counter' };
    let memory = 0;
    const lifetime = async (i) => {
      const c = await pkg.Compartment.create({ principal: origin + '/realm/soak/', pool, modules: { cardApi: api } });
      await c.createCard(type, { id: 'c', attributes: { count: i, label: 'L' } });
      const [view] = await c.renderMany([['c', 'embedded']]);
      if (view.error) throw view.error;
      memory = c.stats().memoryBytes;
      await c.dispose();
    };
    for (let i = 0; i < warmup; i++) await lifetime(i);
    const first = memory;
    const t0 = performance.now();
    for (let i = 0; i < lifetimes; i++) await lifetime(i);
    const ms = performance.now() - t0;
    const out = { first, last: memory, ms, workers: pool.workerCount };
    pool.close();
    return out;
  }, { origin: h.origin, api: API, lifetimes: CARD_LIFETIMES, warmup: 20 });
  console.log(`card lifetime soak: ${CARD_LIFETIMES} create + load card + render + dispose in ${(r.ms / 1000).toFixed(1)} s (${(r.ms / CARD_LIFETIMES).toFixed(1)} ms each); `
    + `wasm memory ${MB(r.first)} MB after warm-up -> ${MB(r.last)} MB at the end (${((r.last - r.first) / CARD_LIFETIMES / 1024).toFixed(0)} KB per lifetime); ${r.workers} worker`);
  assert.ok(r.last <= r.first * 1.1, `memory grew from ${MB(r.first)} MB to ${MB(r.last)} MB`);
});

// Distinct modules loaded and invalidated one after another in one long-lived compartment.
// Each module's strings used to stay in the compartment's interner for good; now they live in
// the module's own, freed with it and its (bounded) parse cache entry: Boa patch 10.
const MODULE_CYCLES = Number(process.env.SOAK_MODULE_CYCLES || 1000);

test(`${MODULE_CYCLES} distinct modules loaded and invalidated in one compartment: memory stays flat`, async () => {
  const r = await run(async (pkg, { origin, cycles, warmup }) => {
    const pool = new pkg.CompartmentPool({ maxWorkers: 1 });
    const c = await pkg.Compartment.create({ principal: origin + '/realm/soak/', pool });
    const cycle = async (i) => {
      const url = `${origin}/realm/soak/gen/m${i}.js`;
      await c.import(url);
      const total = await c.eval(`import('${url}').then((m) => m.total)`);
      if (total !== 4950) throw new Error(`module ${i}: total ${total}`);
      await pool.invalidate(url);
    };
    // Past the cache's entry bound, so it is evicting by the end of the warm-up.
    for (let i = 0; i < warmup; i++) await cycle(i);
    const first = c.stats().memoryBytes;
    const t0 = performance.now();
    for (let i = warmup; i < warmup + cycles; i++) await cycle(i);
    const ms = performance.now() - t0;
    const [stats] = await pool.workerStats();
    const out = { first, last: c.stats().memoryBytes, ms, cache: stats.moduleCache };
    pool.close();
    return out;
  }, { origin: h.origin, cycles: MODULE_CYCLES, warmup: 300 });
  console.log(`module soak: ${MODULE_CYCLES} distinct modules (100 identifiers each) imported + invalidated in ${(r.ms / 1000).toFixed(1)} s; `
    + `wasm memory ${MB(r.first)} MB after warm-up -> ${MB(r.last)} MB at the end; parse cache ${r.cache.entries} entries, ${r.cache.sourceBytes} source bytes, ${r.cache.evictions} evictions`);
  assert.ok(r.cache.evictions >= MODULE_CYCLES, 'the cache stayed within its bounds');
  assert.ok(r.last <= r.first * 1.1, `memory grew from ${MB(r.first)} MB to ${MB(r.last)} MB`);
});

// Boa's JSON.parse ran the text through the script parser, so every key and string it saw
// stayed in the context's interner for good; ours builds the values directly.
const JSON_PARSES = Number(process.env.SOAK_JSON_PARSES || 100_000);

test(`${JSON_PARSES} JSON.parse calls on distinct text in one compartment: memory stays flat`, async () => {
  const r = await run(async (pkg, { total }) => {
    const pool = new pkg.CompartmentPool({ maxWorkers: 1 });
    const c = await pkg.Compartment.create({ principal: 'soak-json', pool });
    const batch = (from) => c.eval(`(() => { let n = 0; for (let i = ${from}; i < ${from} + 10000; i++) {
      const o = JSON.parse('{"key_number_' + i + '_of_a_long_series": "value number ' + i + ' of a long series"}');
      n += o['key_number_' + i + '_of_a_long_series'].length; } return n; })()`);
    await batch(0); // warm-up
    const first = c.stats().memoryBytes;
    const t0 = performance.now();
    let chars = 0;
    for (let from = 10000; from < 10000 + total; from += 10000) chars += await batch(from);
    const ms = performance.now() - t0;
    const out = { first, last: c.stats().memoryBytes, ms, chars };
    pool.close();
    return out;
  }, { total: JSON_PARSES });
  console.log(`JSON soak: ${JSON_PARSES} parses of distinct text in ${(r.ms / 1000).toFixed(1)} s; wasm memory ${MB(r.first)} MB after warm-up -> ${MB(r.last)} MB at the end`);
  assert.ok(r.chars > JSON_PARSES * 30, 'every parse read back its value');
  assert.ok(r.last <= r.first * 1.1, `memory grew from ${MB(r.first)} MB to ${MB(r.last)} MB`);
});
