// The sync Realm as a host page uses it: in real Chromium, under a CSP without
// 'unsafe-eval', loading the built package from /pkg/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { start } from './harness.mjs';

let h;
let page;
before(async () => {
  h = await start();
  page = await h.page('/tests/');
  await page.waitForFunction(() => globalThis.ready === true);
});
after(async () => h && h.close());

/** Runs `fn` in the page with the package in scope; returns its result. */
const run = (fn, arg) => page.evaluate(`(${fn})(globalThis.pkg, ${JSON.stringify(arg)})`);

for (const marker of ['quickstart', 'quickstart-realm']) {
  test(`the README ${marker} block runs as written`, async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const block = readme.match(new RegExp(`<!-- ${marker} -->\\s*\`\`\`js\\n([\\s\\S]*?)\`\`\``));
    assert.ok(block, `README has a ${marker} block`);
    // A same-origin module: the page's CSP allows no eval, no inline script, no blob: module.
    const code = block[1]
      .replace(/from 'isolated-realm\/realm'/g, "from '/pkg/realm.js'")
      .replace(/from 'isolated-realm'/g, "from '/pkg/index.js'");
    const file = `${marker}.gen.js`;
    await writeFile(new URL(`./pages/${file}`, import.meta.url), code);
    const p = await h.page('/tests/');
    const logs = [];
    p.on('console', (m) => { if (m.type() === 'log') logs.push(m.text()); });
    await p.evaluate((f) => import(`/tests/${f}`), file);
    assert.deepEqual(logs, ['5', 'SANDBOX_LIMIT_EXCEEDED (timeoutMs)']);
    assert.deepEqual(p.errors, []);
  });
}

test('results are built from the host intrinsics', async () => {
  const r = await run((pkg) => {
    const realm = new pkg.Realm();
    const v = realm.eval("[1, { foo: 'bar' }, new Map([[1, 2]]), new Date(0), /x/g, new Uint8Array([1, 2])]");
    return {
      array: Object.getPrototypeOf(v) === Array.prototype,
      object: Object.getPrototypeOf(v[1]) === Object.prototype,
      map: v[2] instanceof Map && v[2].get(1) === 2,
      date: v[3] instanceof Date && v[3].getTime() === 0,
      regexp: v[4] instanceof RegExp && v[4].flags === 'g',
      bytes: v[5] instanceof Uint8Array && v[5][1] === 2,
    };
  });
  assert.deepEqual(r, { array: true, object: true, map: true, date: true, regexp: true, bytes: true });
});

test('host values cross in with fidelity, cycles and shared references kept', async () => {
  const r = await run((pkg) => {
    const realm = new pkg.Realm();
    const shared = { n: 1 };
    const cyclic = { shared, list: [shared, shared], when: new Date(5), big: 2n ** 64n, neg: -0, sparse: [, 1] };
    cyclic.self = cyclic;
    realm.set('x', cyclic);
    const inside = realm.eval('x.self === x && x.list[0] === x.list[1] && x.list[0] === x.shared && x.when instanceof Date && x.big === 2n ** 64n && Object.is(x.neg, -0) && !(0 in x.sparse)');
    const back = realm.eval('x');
    return { inside, cycle: back.self === back, shared: back.list[0] === back.shared, big: back.big === 2n ** 64n };
  });
  assert.deepEqual(r, { inside: true, cycle: true, shared: true, big: true });
});

test('uncloneable host values are refused with a path', async () => {
  const r = await run((pkg) => {
    const realm = new pkg.Realm();
    try { realm.set('x', { model: { author: { avatar() {} } } }); return 'no error'; } catch (e) {
      return { cls: e instanceof pkg.SandboxError, code: e.code, path: e.path, valueType: e.valueType };
    }
  });
  assert.deepEqual(r, { cls: true, code: 'SANDBOX_NOT_CLONEABLE', path: '$.model.author.avatar', valueType: 'function' });
});

test('the handler sees clones; a host throw reaches the guest as name and message only', async () => {
  const r = await run((pkg) => {
    const seen = [];
    const realm = new pkg.Realm({
      exposeHandlerAs: 'callParent',
      handler(...args) {
        seen.push(args);
        if (args[0] === 'fail') { const e = new TypeError('nope'); e.secret = 'host object'; throw e; }
        return { ok: true, got: args.length };
      },
    });
    const out = realm.eval("callParent(1, 2, { foo: 'bar' })");
    const caught = realm.eval("try { callParent('fail') } catch (e) { [e instanceof TypeError, e.message, 'secret' in e] }");
    let busy;
    const reentrant = new pkg.Realm({ exposeHandlerAs: 'cb', handler() { try { reentrant.eval('1'); } catch (e) { busy = e.code; } return 0; } });
    reentrant.eval('cb()');
    return { out, args: seen[0], proto: Object.getPrototypeOf(seen[0][2]) === Object.prototype, caught, busy };
  });
  assert.deepEqual(r.out, { ok: true, got: 3 });
  assert.deepEqual(r.args, [1, 2, { foo: 'bar' }]);
  assert.equal(r.proto, true);
  assert.deepEqual(r.caught, [true, 'nope', false]);
  assert.equal(r.busy, 'SANDBOX_BUSY');
});

// Host code that runs while a realm is mid-call (a handler, a getter on what a handler
// returns or on a value being set) and reaches into realms: the busy realm refuses, other
// realms work (their allocations may collect the shared heap), and nothing is taken for a crash.
test('host code re-entering realms mid-call is refused or runs, and never crashes the engine', async () => {
  const r = await run((pkg) => {
    const out = {};
    const other = new pkg.Realm();
    const a = new pkg.Realm({ exposeHandlerAs: 'cb', handler: () => ({ get x() { return other.eval('let a = []; for (let i = 0; i < 50000; i++) a.push({ i }); a.length'); } }) });
    out.otherRealmInGetter = a.eval('cb().x');
    let self;
    self = new pkg.Realm({ exposeHandlerAs: 'cb', handler: () => ({ get x() { try { self.dispose(); return 'disposed'; } catch (e) { return e.code; } } }) });
    out.disposeSelfInGetter = [self.eval('cb().x'), self.eval('1 + 1'), self.disposed];
    const victim = new pkg.Realm();
    const killer = new pkg.Realm({ exposeHandlerAs: 'cb', handler: () => { victim.dispose(); const fresh = new pkg.Realm(); const v = fresh.eval('6 * 7'); fresh.dispose(); return v; } });
    out.disposeOthersInHandler = [killer.eval('cb()'), victim.disposed];
    const target = new pkg.Realm();
    let inner;
    target.set('a', { get x() { try { target.set('b', 1); inner = 'set'; } catch (e) { inner = e.code; } return 1; } });
    out.setInSetGetter = [inner, target.eval('typeof b'), target.eval('a.x')];
    out.alive = new pkg.Realm().eval('40 + 2');
    return out;
  });
  assert.deepEqual(r, {
    otherRealmInGetter: 50000,
    disposeSelfInGetter: ['SANDBOX_BUSY', 2, false],
    disposeOthersInHandler: [42, true],
    // A set walks its value before it enters the realm: the getter's own set came first.
    setInSetGetter: ['set', 'number', 1],
    alive: 42,
  });
});

test('typed errors carry codes and structured fields', async () => {
  const r = await run((pkg) => {
    const realm = new pkg.Realm({ limits: { timeoutMs: 200 } });
    const grab = (f) => { try { f(); return null; } catch (e) { return { ...e.toJSON(), isClass: e instanceof pkg.SandboxError && e instanceof Error } } };
    return {
      loop: grab(() => realm.eval('while (true) {}')),
      after: realm.eval('1 + 1'),
      thrown: grab(() => realm.eval('\nfunction f() { null.x }\nf()', { filename: 'card.js' })),
      syntax: grab(() => realm.eval('let = ;', { filename: 'bad.js' })),
      option: grab(() => new pkg.Realm({ limits: { cpu: 1 } })),
      disposed: grab(() => { const d = new pkg.Realm(); d.dispose(); d.eval('1'); }),
    };
  });
  assert.equal(r.loop.code, 'SANDBOX_LIMIT_EXCEEDED');
  assert.equal(r.loop.isClass, true);
  assert.ok(['timeoutMs', 'instructions'].includes(r.loop.limit));
  assert.equal(r.after, 2);
  assert.equal(r.thrown.code, 'SANDBOX_GUEST_THREW');
  assert.equal(r.thrown.guestName, 'TypeError');
  assert.equal(r.thrown.filename, 'card.js');
  assert.equal(r.thrown.line, 2);
  assert.equal(r.syntax.code, 'SANDBOX_SYNTAX');
  assert.equal(r.syntax.line, 1);
  assert.equal(r.option.code, 'SANDBOX_INVALID_OPTIONS');
  assert.equal(r.option.option, 'limits.cpu');
  assert.equal(r.disposed.code, 'SANDBOX_DISPOSED');
});

// Inputs that kill a Boa instance (its parser and GC recurse natively). Each must end in a
// typed error, the dead instance must never be reused, and new realms must work.
const CRASHERS = [
  ['deeply nested array source', '['.repeat(200000) + ']'.repeat(200000)],
  ['deeply nested parens', '('.repeat(200000) + '1' + ')'.repeat(200000)],
  ['long if chain', 'if (1) '.repeat(200000) + '1'],
  ['proxy chain', 'let p = {}; for (let i = 0; i < 100000; i++) p = new Proxy(p, {}); p.x'],
  ['prototype chain', 'let o = {}; for (let i = 0; i < 100000; i++) o = Object.create(o); o.x'],
  ['flat of a deep array', 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; a.flat(Infinity).length'],
  ['join of a deep array', 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; String(a).length'],
  ['JSON.stringify of a deep array', 'let a = []; for (let i = 0; i < 100000; i++) a = [a]; JSON.stringify(a).length'],
];

for (const [name, source] of CRASHERS) {
  test(`crash containment: ${name}`, async () => {
    const r = await run((pkg, source) => {
      const survivor = new pkg.Realm();
      survivor.eval('globalThis.state = 41');
      const victim = new pkg.Realm({ limits: { timeoutMs: 20000 } });
      let first;
      try { victim.eval(source); first = 'no error'; } catch (e) { first = { code: e.code, reason: e.reason, guestName: e.guestName }; }
      let reuse;
      try { victim.eval('1'); reuse = 'reused'; } catch (e) { reuse = e.code; }
      let old;
      try { old = survivor.eval('state + 1'); } catch (e) { old = e.code; }
      const fresh = new pkg.Realm().eval('6 * 7');
      return { first, reuse, old, fresh };
    }, source).catch((e) => ({ page: e.message }));
    assert.equal(r.fresh, 42, JSON.stringify(r));
    console.log(`${name}: ${JSON.stringify(r.first)}`);
    if (r.first.code === 'SANDBOX_TERMINATED') {
      // The instance died: everything in it is gone, and says so.
      assert.equal(r.first.reason, 'crashed');
      assert.equal(r.reuse, 'SANDBOX_TERMINATED');
      assert.equal(r.old, 'SANDBOX_TERMINATED');
    } else {
      // Or the engine handled it (a result, or a catchable typed error) and nothing died.
      assert.ok(r.first === 'no error' || ['SANDBOX_SYNTAX', 'SANDBOX_LIMIT_EXCEEDED', 'SANDBOX_GUEST_THREW'].includes(r.first.code), JSON.stringify(r));
      assert.equal(r.old, 42);
    }
  });
}

test('no request ever left for another origin', () => {
  const foreign = h.requests.filter((u) => !u.startsWith(h.origin));
  assert.deepEqual(foreign, []);
});

test('the sync Realm runs its timers on the host thread and reports as events', async () => {
  const r = await run(async (pkg) => {
    const realm = new pkg.Realm();
    const events = [];
    realm.addEventListener('console', (e) => events.push([e.detail.level, ...e.detail.args]));
    realm.addEventListener('error', (e) => events.push(['error', e.detail.guestMessage]));
    realm.eval("setTimeout(() => console.log('tick', 1), 10); setTimeout(() => { throw new TypeError('boom') }, 20); 0");
    await new Promise((r) => setTimeout(r, 100));
    realm.eval("globalThis.id = setTimeout(() => console.log('never'), 10); 0");
    realm.dispose();
    await new Promise((r) => setTimeout(r, 50));
    return events;
  });
  assert.deepEqual(r, [['log', 'tick', 1], ['error', 'boom']]);
});
