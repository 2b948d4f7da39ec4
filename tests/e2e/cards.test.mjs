// Cards through the compartment tier: card modules from a fake realm server import the card
// API, instances are created and reloaded in the worker, renders are data with genuine
// tokens, actions leave as acknowledged model patches, failures are typed and located.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start } from './harness.mjs';

const files = new Map();
let h;
let page;

const API = 'https://cardstack.com/base/card-api';
const COUNTER = `import { CardDef, contains, linksTo, StringField, NumberField, html, on, tracked, css } from '${API}';
import { Button } from '@ui/components';
export class Person extends CardDef {
  static displayName = 'Person';
  name = contains(StringField);
}
export class Counter extends CardDef {
  static displayName = 'Counter';
  static styles = css\`.n { font-weight: 700 }\`;
  count = contains(NumberField);
  owner = linksTo(Person);
  clicks = tracked(0);
  inc() { this.count = this.count + 1; this.clicks++; }
  async slow() { await new Promise((ok) => setTimeout(ok, 20)); this.count = this.count * 10; }
  static isolated({ model, fields }) {
    return html\`<div><span class="n">\${fields.count}</span>
      <\${Button} variant="primary" \${on('click', model.inc)}>Add</\${Button}>
      <button \${on('click', model.slow)}>x10</button>
      \${fields.owner}</div>\`;
  }
  static embedded({ model }) { return html\`<p>#\${model.count}</p>\`; }
}
export class Spin extends CardDef {
  static isolated() { for (;;) {} }
}
`;

before(async () => {
  h = await start({
    '/realm/': (req, res, url) => {
      const body = files.get(url.pathname);
      if (body === undefined) { res.writeHead(404).end('not found'); return; }
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(body);
    },
  });
  files.set('/realm/alice/counter.js', COUNTER);
  files.set('/realm/alice/broken.js', `import { CardDef } from '${API}';\nexport class Broken extends CardDef {\n  static isolated() { return html\`<p>\`;; }\n  oops = ;\n}`);
  files.set('/realm/alice/faulty.js', `import { CardDef, contains, NumberField, html, on } from '${API}';\nexport class Faulty extends CardDef {\n  n = contains(NumberField);\n  boom() { this.n = 99; throw new RangeError('failed after writing'); }\n  static isolated({ model }) { return html\`<button \${on('click', model.boom)}>\${model.n}</button>\`; }\n}`);
  files.set('/realm/alice/denied.js', `import { CardDef } from '${API}';\nimport '/realm/mallory/steal.js';\nexport class X extends CardDef {}`);
  page = await h.page('/tests/');
  await page.waitForFunction(() => globalThis.ready === true);
});
after(async () => h && h.close());

const run = (fn, arg) => page.evaluate(`(${fn})(globalThis.pkg, ${JSON.stringify(arg)})`);

// The page-side set-up every test uses: a compartment with the card API and a UI library.
const SETUP = `async (pkg, origin, extra = {}) => {
  const pool = new pkg.CompartmentPool();
  const c = await pkg.Compartment.create({
    principal: origin + '/realm/alice/', pool,
    modules: { cardApi: '${API}', trusted: { '@ui/components': { Button: 'value' } } },
    ...extra,
  });
  return { pool, c };
}`;

test('create, render and dispatch a card: data-only trees, genuine tokens, acknowledged patches', async () => {
  const r = await run(async (pkg, { origin, setup }) => {
    const store = [];
    const { pool, c } = await (0, eval)(setup)(pkg, origin, { onModelPatch: (patches) => { store.push(...patches); } });
    const url = origin + '/realm/alice/counter.js';
    const owner = await c.createCard({ module: url, name: 'Person' }, { attributes: { name: 'Ann' } });
    const card = await c.createCard({ module: url, name: 'Counter' }, { id: 'c1', attributes: { title: 'Clicks', count: 1 }, relationships: { owner: owner.id } });
    const first = await c.render('c1', 'isolated');
    const div = first.tree[0].children[0];
    const button = div.children[1];
    const tokenOk = button.component instanceof pkg.TrustedToken && button.component.module === '@ui/components' && button.component.export === 'Button';
    const d = await c.dispatch('c1', button.on.click, { type: 'click' });
    const slow = d.render.tree[0].children[0].children[2].on.click;
    const d2 = await c.dispatch('c1', slow, { type: 'click' });
    const saved = await c.serializeCard('c1');
    const reloaded = await c.loadCard({ ...saved, id: 'c1-copy' });
    pool.close();
    return { card, first, tokenOk, d, d2, store, reloaded, props: button.props };
  }, { origin: h.origin, setup: SETUP });
  assert.equal(r.card.id, 'c1');
  assert.equal(r.card.relationships.owner, 'card-1');
  assert.equal(r.first.css, '.n { font-weight: 700 }');
  assert.ok(r.tokenOk, 'the Button arrives as a TrustedToken');
  assert.deepEqual(r.props, { variant: 'primary' });
  assert.deepEqual(r.d.patches.map((p) => [p.id, p.path, p.value]), [['c1', 'count', 2]]);
  assert.deepEqual(r.d.render.tree[0].children[0].children[0].children, ['2']);
  // The async action waited on a guest timer; its write is a patch too.
  assert.deepEqual(r.d2.patches.map((p) => [p.path, p.value]), [['count', 20]]);
  assert.deepEqual(r.store.map((p) => p.value), [2, 20], 'the host store got every patch, in order');
  assert.deepEqual(r.store.map((p) => p.seq), [1, 2]);
  assert.equal(r.reloaded.attributes.count, 20);
  assert.equal(r.reloaded.id, 'c1-copy');
});

test('patches the host does not acknowledge are retried, reported, kept and delivered later in order', async () => {
  const r = await run(async (pkg, { origin, setup }) => {
    let failing = true;
    const seen = [];
    const { pool, c } = await (0, eval)(setup)(pkg, origin, { onModelPatch: (patches) => { seen.push(patches.map((p) => p.seq)); if (failing) throw new Error('store offline'); } });
    const url = origin + '/realm/alice/counter.js';
    await c.createCard({ module: url, name: 'Counter' }, { id: 'c', attributes: { count: 1 } });
    const events = [];
    c.addEventListener('patchfailed', (e) => events.push(e.detail.patches.length));
    let render = await c.render('c', 'isolated');
    let error;
    try { await c.dispatch('c', render.tree[0].children[0].children[1].on.click, { type: 'click' }); } catch (e) { error = { code: e.code, n: e.patches.length }; }
    const kept = c.unacknowledgedPatches().map((p) => p.value);
    failing = false;
    render = await c.render('c', 'isolated');
    await c.dispatch('c', render.tree[0].children[0].children[1].on.click, { type: 'click' });
    pool.close();
    return { error, events, kept, seen, after: c.unacknowledgedPatches().length };
  }, { origin: h.origin, setup: SETUP });
  assert.deepEqual(r.error, { code: 'SANDBOX_PATCH_UNACKNOWLEDGED', n: 1 });
  assert.deepEqual(r.events, [1]);
  assert.deepEqual(r.kept, [2]);
  // Three attempts with the first patch, then both together, oldest first.
  assert.deepEqual(r.seen, [[1], [1], [1], [1, 2]]);
  assert.equal(r.after, 0);
});

test('renderMany renders 100 and 200 cards in one round trip each; a failing card fails only itself', async () => {
  const r = await run(async (pkg, { origin, setup }) => {
    const { pool, c } = await (0, eval)(setup)(pkg, origin);
    const url = origin + '/realm/alice/counter.js';
    for (let i = 0; i < 200; i++) await c.createCard({ module: url, name: 'Counter' }, { id: `n${i}`, attributes: { count: i } });
    const out = {};
    for (const n of [100, 200]) {
      const before = c.stats().calls;
      const list = Array.from({ length: n }, (_, i) => [`n${i}`, 'embedded']);
      list.push(['missing', 'embedded']);
      const rendered = await c.renderMany(list);
      out[n] = { calls: c.stats().calls - before, ok: rendered.filter((x) => !x.error).length, last: rendered[n - 1].tree[0].children[0].children, error: rendered[n].error.code };
    }
    pool.close();
    return out;
  }, { origin: h.origin, setup: SETUP });
  for (const n of [100, 200]) {
    assert.equal(r[n].calls, 1, 'one round trip');
    assert.equal(r[n].ok, n);
    assert.deepEqual(r[n].last, ['#', String(n - 1)]);
    assert.equal(r[n].error, 'SANDBOX_GUEST_THREW');
  }
});

test('loadCards loads 200 stored cards in one card round trip, in order; a failing card or module fails only its entries', async () => {
  const r = await run(async (pkg, { origin, setup }) => {
    const { pool, c } = await (0, eval)(setup)(pkg, origin);
    const url = origin + '/realm/alice/counter.js';
    const type = (name, module = url) => ({ module, name });
    const stored = [{ type: type('Person'), id: 'ann', attributes: { name: 'Ann' } }];
    for (let i = 0; i < 200; i++) stored.push({ type: type('Counter'), id: `s${i}`, attributes: { count: i }, relationships: { owner: 'ann' } });
    stored.push(
      { type: type('Counter'), id: 'orphan', relationships: { owner: 'nobody' } },
      { type: type('Broken', origin + '/realm/alice/broken.js'), id: 'b1' },
      { type: type('X', origin + '/realm/alice/denied.js'), id: 'd1' },
      { type: type('Broken', origin + '/realm/alice/broken.js') },
      { type: type('Nope'), id: 'nope' },
      { type: type('Counter'), attributes: { count: -1 } },
    );
    const before = c.stats().calls;
    const out = await c.loadCards(stored);
    const calls = c.stats().calls - before;
    const rendered = await c.renderMany([['s199', 'embedded'], ['orphan', 'embedded']]);
    const saved = await c.serializeCard('s7');
    const bad = await Promise.all([c.loadCards('x'), c.loadCards([null]), c.loadCards([{ type: 'Counter' }])].map((p) => p.then(() => 'ok', (e) => e.code)));
    const empty = await c.loadCards([]);
    pool.close();
    const tail = out.slice(201).map((e) => (e.error ? [e.id, e.error.code, e.error.path ?? e.error.guestName ?? null] : [e.id, e.attributes.count]));
    return { calls, n: out.length, first: out[0].attributes.name, ok: out.slice(0, 201).every((e, i) => !e.error && e.id === stored[i].id), tail, rendered: rendered.map((x) => (x.error ? x.error.code : x.tree[0].children[0].children)), saved, bad, empty };
  }, { origin: h.origin, setup: SETUP });
  // Three modules imported (one fails to parse, one is denied), then one message for the cards.
  assert.equal(r.calls, 4);
  assert.equal(r.n, 207);
  assert.equal(r.first, 'Ann');
  assert.ok(r.ok, 'the 201 good cards loaded, in order, with their ids');
  assert.deepEqual(r.tail, [
    ['orphan', 'SANDBOX_GUEST_THREW', 'TypeError'],
    ['b1', 'SANDBOX_SYNTAX', 'SyntaxError'],
    ['d1', 'SANDBOX_POLICY_DENIED', '/realm/mallory/steal.js'],
    [null, 'SANDBOX_SYNTAX', 'SyntaxError'],
    ['nope', 'SANDBOX_GUEST_THREW', 'TypeError'],
    ['card-1', -1],
  ]);
  assert.deepEqual(r.rendered, [['#', '199'], 'SANDBOX_GUEST_THREW']);
  assert.deepEqual([r.saved.attributes.count, r.saved.relationships.owner], [7, 'ann']);
  assert.deepEqual(r.bad, ['SANDBOX_INVALID_OPTIONS', 'SANDBOX_INVALID_OPTIONS', 'SANDBOX_INVALID_OPTIONS']);
  assert.deepEqual(r.empty, []);
});

test('a guest that breaks the builtins the card runtime uses gets a batch refused, typed, not a host TypeError', async () => {
  const r = await run(async (pkg, { origin, setup }) => {
    const { pool, c } = await (0, eval)(setup)(pkg, origin);
    const url = origin + '/realm/alice/counter.js';
    await c.createCard({ module: url, name: 'Counter' }, { id: 'k1', attributes: { count: 1 } });
    await c.eval('Array.prototype.map = function () { return [42]; }; 0');
    const grab = (p) => p.then((v) => ['ok', v.length], (e) => [e.code, e instanceof pkg.SandboxError]);
    const loaded = await grab(c.loadCards([{ type: { module: url, name: 'Counter' }, id: 'k2' }, { type: { module: url, name: 'Counter' }, id: 'k3' }]));
    const rendered = await grab(c.renderMany([['k1', 'embedded'], ['k1', 'atom']]));
    pool.close();
    return { loaded, rendered };
  }, { origin: h.origin, setup: SETUP });
  assert.deepEqual(r.loaded, ['SANDBOX_PROTOCOL', true]);
  assert.deepEqual(r.rendered, ['SANDBOX_PROTOCOL', true]);
});

test('failures are typed and located: syntax, denied import, runaway render; the compartment lives on', async () => {
  const r = await run(async (pkg, { origin, setup }) => {
    // A second, not less: the first module load runs on a cold wasm, and the machine may be busy.
    const { pool, c } = await (0, eval)(setup)(pkg, origin, { limits: { timeoutMs: 1000 } });
    const grab = (p) => p.then(() => 'ok', (e) => ({ code: e.code, filename: e.filename, line: e.line, path: e.path }));
    const broken = await grab(c.createCard({ module: origin + '/realm/alice/broken.js', name: 'Broken' }));
    const denied = await grab(c.createCard({ module: origin + '/realm/alice/denied.js', name: 'X' }));
    const url = origin + '/realm/alice/counter.js';
    await c.createCard({ module: url, name: 'Spin' }, { id: 'spin' });
    await c.createCard({ module: url, name: 'Counter' }, { id: 'fine', attributes: { count: 7 } });
    const spin = await grab(c.render('spin', 'isolated'));
    const fine = await c.render('fine', 'embedded');
    const badFormat = await grab(c.render('fine', 'fancy'));
    const described = await c.describe(url);
    pool.close();
    return { broken, denied, spin, fine: fine.tree[0].children[0].children, badFormat, described };
  }, { origin: h.origin, setup: SETUP });
  assert.equal(r.broken.code, 'SANDBOX_SYNTAX');
  assert.equal(r.broken.filename, `${h.origin}/realm/alice/broken.js`);
  assert.equal(r.broken.line, 4);
  assert.equal(r.denied.code, 'SANDBOX_POLICY_DENIED');
  assert.equal(r.denied.path, '/realm/mallory/steal.js');
  assert.equal(r.spin.code, 'SANDBOX_LIMIT_EXCEEDED');
  assert.deepEqual(r.fine, ['#', '7']);
  assert.equal(r.badFormat.code, 'SANDBOX_INVALID_OPTIONS');
  assert.deepEqual(r.described.exports.map((e) => `${e.name}:${e.kind}`), ['Counter:card', 'Person:card', 'Spin:card']);
  assert.deepEqual(r.described.exports[0].fields.owner, { kind: 'linksTo', type: 'Person', computed: false });
});

test('hot reload: after the module is edited and invalidated, the instance is rebuilt on the new code with its data', async () => {
  files.set('/realm/alice/note.js', `import { CardDef, contains, StringField, html } from '${API}';\nexport class Note extends CardDef {\n  body = contains(StringField);\n  static isolated({ model }) { return html\`<p>v1: \${model.body}</p>\`; }\n}`);
  const r = await run(async (pkg, { origin, setup }) => {
    const { pool, c } = await (0, eval)(setup)(pkg, origin);
    const url = origin + '/realm/alice/note.js';
    await c.createCard({ module: url, name: 'Note' }, { id: 'n', attributes: { body: 'hello' } });
    const before = (await c.render('n', 'isolated')).tree[0].children[0].children;
    // Kept for the second half, after the test edits the file on the server.
    globalThis.__cardPool = pool;
    globalThis.__cardC = c;
    return { before, url };
  }, { origin: h.origin, setup: SETUP });
  files.set('/realm/alice/note.js', files.get('/realm/alice/note.js').replace('v1:', 'v2:'));
  const after = await page.evaluate(async (url) => {
    const pool = globalThis.__cardPool;
    const c = globalThis.__cardC;
    const gone = await pool.invalidate(url);
    const saved = await c.serializeCard('n');
    await c.dropCard('n');
    const again = await c.loadCard(saved);
    const tree = (await c.render('n', 'isolated')).tree[0].children[0].children;
    pool.close();
    return { gone, again, tree };
  }, r.url);
  assert.deepEqual(r.before, ['v1: ', 'hello']);
  assert.deepEqual(after.gone, [r.url]);
  assert.equal(after.again.id, 'n');
  assert.deepEqual(after.tree, ['v2: ', 'hello']);
});

test('an action that throws after writing rejects, and its write still reaches the host store', async () => {
  const r = await run(async (pkg, { origin, setup }) => {
    const store = [];
    const { pool, c } = await (0, eval)(setup)(pkg, origin, { onModelPatch: (patches) => { store.push(...patches); } });
    await c.createCard({ module: origin + '/realm/alice/faulty.js', name: 'Faulty' }, { id: 'f', attributes: { n: 1 } });
    const render = await c.render('f', 'isolated');
    const error = await c.dispatch('f', render.tree[0].children[0].on.click, { type: 'click' }).then(() => null, (e) => ({ code: e.code, guestName: e.guestName, line: e.line }));
    const saved = await c.serializeCard('f');
    pool.close();
    return { error, store, saved };
  }, { origin: h.origin, setup: SETUP });
  assert.deepEqual(r.error, { code: 'SANDBOX_GUEST_THREW', guestName: 'RangeError', line: 4 });
  assert.deepEqual(r.store.map((p) => [p.id, p.path, p.value]), [['f', 'n', 99]]);
  assert.equal(r.saved.attributes.n, 99, 'the store mirrors the guest model');
});
