// The card gallery: cards from two realms (principals), each realm in a compartment of its
// own, drawn by the host shim. This page never runs card code. It gets render trees and
// model patches (data), keeps a store of plain objects, and maps the two trusted tokens the
// cards may use (Button, Badge) to components of its own.
import { Compartment, CompartmentPool, SandboxError } from '/pkg/index.js';
import { createTokenMapper, mountCard } from '/pkg/cards.js';
import { format } from './format.js';

const CARD_API = 'https://cardstack.com/base/card-api';
const MODULES = { cardApi: CARD_API, trusted: { '@ui/components': { Button: 'value', Badge: 'value' } } };
const REALMS = {
  acme: `${location.origin}/realms/acme/`,
  globex: `${location.origin}/realms/globex/`,
};
const RUNAWAY_BUDGET_MS = 1000;
const TEAM_SIZE = 100;
const BATCH_CHUNK = 10;
const MAX_PATCH_ROWS = 40;
// Idle workers are normally closed after a minute; these hold the cards on screen.
const IDLE_MS = 24 * 60 * 60 * 1000;

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'testid') node.dataset.testid = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

const gallery = $('gallery');
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const ms = (x) => (x < 10 ? `${x.toFixed(1)} ms` : `${Math.round(x)} ms`);

// ---------------------------------------------------------------- the host's store

// The host's copy of every card: serialized instances, kept current by model patches.
const store = { cards: Object.create(null) };
const patchRows = new Map(); // `${compartment}:${seq}` -> <li>
const patchLog = $('patch-log');
const storeJson = $('store-json');

// Patch paths come from the guest: never let one walk into a prototype.
const UNSAFE_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

function applyPatch(p) {
  const card = store.cards[p.id];
  if (!card) throw new Error(`the store has no card "${p.id}"`);
  if (p.op !== 'replace') throw new Error(`unknown patch op ${String(p.op)}`);
  const keys = String(p.path).split('.');
  if (keys.some((k) => k === '' || UNSAFE_KEYS.has(k))) throw new Error(`refusing patch path ${p.path}`);
  let target = card.attributes;
  for (const k of keys.slice(0, -1)) {
    if (!Object.hasOwn(target, k) || target[k] === null || typeof target[k] !== 'object') {
      Object.defineProperty(target, k, { value: {}, writable: true, enumerable: true, configurable: true });
    }
    target = target[k];
  }
  Object.defineProperty(target, keys.at(-1), { value: structuredClone(p.value), writable: true, enumerable: true, configurable: true });
}

/** `onModelPatch` for compartment `name`: apply, log, and return (that return is the ack). */
function patchHandler(name) {
  return (patches) => {
    for (const p of patches) applyPatch(p);
    for (const p of patches) logPatch(name, p);
    showStore();
  };
}

function logPatch(name, p) {
  patchLog.querySelector('.patch-empty')?.remove();
  const principal = name === 'acme' ? 'acme' : 'globex';
  const row = el('li', { class: 'patch', testid: 'patch', 'data-state': 'applied', 'data-id': p.id, 'data-path': p.path, 'data-seq': String(p.seq) },
    el('span', { class: 'patch-seq', testid: 'patch-seq', text: `#${p.seq}` }),
    el('span', { class: 'patch-where' },
      el('span', { class: 'realm-dot', 'data-principal': principal, title: REALMS[principal] }),
      el('code', { class: 'patch-id', testid: 'patch-id', text: p.id }),
      el('code', { class: 'patch-path', testid: 'patch-path', text: p.path })),
    el('span', { class: 'patch-ack', testid: 'patch-ack', text: 'applied' }),
    el('code', { class: 'patch-value', testid: 'patch-value', text: format(p.value) }));
  patchRows.set(`${name}:${p.seq}`, row);
  patchLog.prepend(row);
  while (patchLog.children.length > MAX_PATCH_ROWS) patchLog.lastElementChild.remove();
}

/** The dispatch resolved: the client got our acknowledgement for these patches. */
function acknowledge(name, patches) {
  for (const p of patches) {
    const row = patchRows.get(`${name}:${p.seq}`);
    if (!row) continue;
    patchRows.delete(`${name}:${p.seq}`);
    row.dataset.state = 'acknowledged';
    row.querySelector('.patch-ack').textContent = 'acknowledged';
  }
}

function showStore() {
  const contact = store.cards.contact;
  storeJson.textContent = contact ? JSON.stringify(contact.attributes, null, 2) : '…';
}

// ---------------------------------------------------------------- host components

// The page's own Button and Badge. Each lives in a shadow root of its own: the card's CSS
// (which shares the card's shadow root with them) cannot restyle or fake them.
const hostSheet = new CSSStyleSheet();
hostSheet.replaceSync(`
  :host { display: inline-flex; vertical-align: middle; }
  .host-button {
    appearance: none; cursor: pointer; display: inline-flex; align-items: center; gap: 7px;
    padding: 7px 12px; border-radius: 8px; border: 1px solid #2d3548; background: #10141d; color: #e6e9f0;
    font: 600 13.5px/1.2 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
    transition: background 0.12s, border-color 0.12s;
  }
  .host-button:hover { border-color: #46506a; background: #171d2a; }
  .host-button:focus-visible { outline: 2px solid #7c9cff; outline-offset: 2px; }
  .host-button--primary { background: #5b7cf5; border-color: #5b7cf5; color: #fff; }
  .host-button--primary:hover { background: #6a89ff; border-color: #6a89ff; }
  .host-button::after {
    content: "host"; font: 600 9px/1 ui-monospace, Menlo, Consolas, monospace; letter-spacing: 0.04em;
    text-transform: uppercase; padding: 2px 3px; border-radius: 4px; opacity: 0.7;
    border: 1px solid currentColor;
  }
  .host-badge {
    display: inline-flex; align-items: center; gap: 6px; padding: 4px 9px; border-radius: 99px;
    font: 700 11.5px/1 ui-monospace, "SF Mono", Menlo, Consolas, monospace; letter-spacing: 0.02em;
    color: #aab2c5; background: rgba(170, 178, 197, 0.1); border: 1px solid rgba(170, 178, 197, 0.3);
  }
  .host-badge::before { content: ""; width: 6px; height: 6px; border-radius: 50%; background: currentColor; }
  .host-badge--success { color: #3ecf8e; background: rgba(62, 207, 142, 0.12); border-color: rgba(62, 207, 142, 0.35); }
  .host-badge--danger { color: #ff6b6b; background: rgba(255, 107, 107, 0.12); border-color: rgba(255, 107, 107, 0.4); }
`);

function hostElement(name, inner) {
  const wrap = el('span', { class: 'host-component', 'data-host-component': name });
  const root = wrap.attachShadow({ mode: 'open' });
  root.adoptedStyleSheets = [hostSheet];
  inner.append(document.createElement('slot'));
  root.append(inner);
  return wrap;
}

let hostClicks = 0;
const hostClicksBox = $('host-button-clicks');

const Button = (props, children, on) => {
  const variant = props.variant === 'primary' ? 'primary' : 'secondary';
  const button = el('button', { type: 'button', class: `host-button host-button--${variant}`, part: 'button', title: 'The host page’s own Button component' });
  button.addEventListener('click', (event) => {
    hostClicks++;
    hostClicksBox.textContent = plural(hostClicks, 'host button click');
    on.click?.(event);
  });
  const wrap = hostElement('Button', button);
  wrap.append(...children);
  return wrap;
};

const Badge = (props, children) => {
  const tone = ['success', 'danger'].includes(props.tone) ? props.tone : 'neutral';
  const wrap = hostElement('Badge', el('span', { class: `host-badge host-badge--${tone}`, part: 'badge' }));
  wrap.append(...children);
  return wrap;
};

const mapper = createTokenMapper({ '@ui/components': { Button, Badge } });

// ---------------------------------------------------------------- card errors

const errorLog = $('card-errors');

function describeError(e) {
  if (!e) return { code: 'Error', where: '' };
  const code = e instanceof SandboxError ? e.code : e.name || 'Error';
  const file = e.filename ? String(e.filename).split('/').pop() : '';
  const where = file ? `${file}${e.line !== undefined ? `:${e.line}:${e.column ?? '?'}` : ''}` : (e.limit ? `limit ${e.limit}` : '');
  return { code, where };
}

// hh:mm:ss by hand: the first toLocaleTimeString() loads locale data, a long task at page load.
const clock = (d = new Date()) => [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');

function onCardError(error, { id, format: fmt }) {
  errorLog.querySelector('.log-empty')?.remove();
  const { code, where } = describeError(error);
  const time = clock();
  errorLog.prepend(el('li', { class: 'card-error', testid: 'card-error', 'data-id': id, 'data-code': code },
    el('div', { class: 'ce-line' },
      el('code', { class: 'ce-code', text: code }),
      el('span', { class: 'ce-time', text: time })),
    el('div', { class: 'ce-where' },
      el('span', { text: `${id} (${fmt})` }),
      where ? el('code', { text: where }) : null)));
  while (errorLog.children.length > 30) errorLog.lastElementChild.remove();
}

// ---------------------------------------------------------------- mounting

const views = new Map(); // card id -> { view, compartment, name, container, format }

function mount(container, { compartment, name, id, format: fmt, render }) {
  const view = mountCard(container, { compartment, id, format: fmt, mapper, onCardError, ...(render ? { render } : {}) });
  container.addEventListener('cardpatches', (e) => {
    acknowledge(name, e.detail.patches);
    updateStats();
  });
  views.set(id, { view, compartment, name, container, format: fmt });
  view.ready.then(() => container.removeAttribute('data-loading'));
  return view;
}

async function create(compartment, module, name, data) {
  const saved = await compartment.createCard({ module, name }, data);
  store.cards[saved.id] = saved;
  return saved;
}

/** Shows a failure that happened before any card existed (the module did not load). */
function mountFailure(container, id, error) {
  const view = mountCard(container, { id, format: 'isolated', onCardError });
  view.showError(error);
  container.removeAttribute('data-loading');
  return view;
}

// ---------------------------------------------------------------- principals

const compartments = new Map(); // name -> Compartment

function updateStats() {
  for (const principal of ['acme', 'globex']) {
    const box = $(`principal-${principal}-stats`);
    const mine = [...compartments].filter(([n]) => (principal === 'acme' ? n === 'acme' : n !== 'acme'));
    if (!mine.length) continue;
    let calls = 0;
    let memory = 0;
    for (const [, c] of mine) {
      const s = c.stats();
      calls += s.calls;
      memory = Math.max(memory, s.memoryBytes);
    }
    const cards = [...views.values()].filter((v) => mine.some(([, c]) => c === v.compartment)).length;
    box.textContent = `${plural(cards, 'card')} · ${plural(mine.length, 'compartment')} · ${plural(calls, 'call')} · ${(memory / 1048576).toFixed(1)} MB`;
  }
}

/** A worker died (crash, memory, watchdog): rebuild its cards from the host's store. */
async function recover(name, compartment, detail) {
  const box = $(`principal-${name === 'acme' ? 'acme' : 'globex'}-stats`);
  box.textContent = `worker ${detail.reason}: reloading cards from the store…`;
  const mine = [...views.entries()].filter(([, v]) => v.compartment === compartment);
  const saved = mine.map(([id]) => store.cards[id]).filter(Boolean);
  const terminated = (e) => e instanceof SandboxError && e.code === 'SANDBOX_TERMINATED';
  const t0 = performance.now();
  let pending = saved;
  let ok = 0;
  for (let attempt = 0; attempt < 2 && pending.length; attempt++) {
    // The first call after a death nobody heard about reports it (here, one module's
    // import, so that module's cards); the next respawns: those cards go again.
    const out = await compartment.loadCards(pending).catch((e) => pending.map(() => ({ error: e })));
    ok += out.filter((r) => !r.error).length;
    pending = pending.filter((_, i) => terminated(out[i].error));
  }
  const took = performance.now() - t0;
  for (const [, v] of mine) v.view.refresh();
  updateStats();
  if (name === 'acme') {
    const note = $('batch-note');
    note.hidden = false;
    note.textContent = `Worker ${detail.reason}: ${plural(ok, 'card')} reloaded from the host's store by loadCards in ${ms(took)}.`;
    $('tile-directory').dataset.reloaded = String(ok);
  }
}

// ---------------------------------------------------------------- the directory

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Linus',
  'Radia', 'John', 'Sophie', 'Tim', 'Katherine', 'Dennis', 'Hedy', 'Guido', 'Annie', 'Brian'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Hamilton',
  'Torvalds', 'Perlman', 'McCarthy', 'Wilson', 'Berners-Lee', 'Johnson', 'Ritchie', 'Lamarr', 'van Rossum', 'Easley', 'Kernighan'];
const ROLES = ['Engineer', 'Designer', 'Researcher', 'Product', 'Support', 'Data', 'Security', 'Sales'];
const CITIES = ['Lisbon', 'Oslo', 'Austin', 'Kyoto', 'Nairobi', 'Lyon', 'Toronto', 'Pune', 'Berlin', 'Quito'];

function teammate(i) {
  return {
    name: `${FIRST[i % FIRST.length]} ${LAST[(i * 7 + Math.floor(i / FIRST.length)) % LAST.length]}`,
    role: ROLES[(i * 3) % ROLES.length],
    city: CITIES[(i * 7) % CITIES.length],
    hue: i % 8,
  };
}

const team = $('team');
const batchAgain = $('batch-again');

const nextFrame = () => new Promise((ok) => requestAnimationFrame(() => ok()));

async function loadDirectory(acme) {
  const module = `${REALMS.acme}directory.js`;
  const ids = Array.from({ length: TEAM_SIZE }, (_, i) => `mate-${String(i + 1).padStart(3, '0')}`);
  // Loading is one call for all the cards (after the module's import), and so is rendering.
  const before = acme.stats().calls;
  const t0 = performance.now();
  const loaded = await acme.loadCards(ids.map((id, i) => ({ type: { module, name: 'Teammate' }, id, attributes: teammate(i) })));
  $('load-ms').textContent = ms(performance.now() - t0);
  $('tile-directory').dataset.loadCalls = String(acme.stats().calls - before);
  // A card that failed to load shows its error in its place, from the render below.
  for (const saved of loaded) if (!saved.error) store.cards[saved.id] = saved;
  await renderBatch(acme, ids);
  batchAgain.disabled = false;
  batchAgain.addEventListener('click', async () => {
    batchAgain.disabled = true;
    try { await renderBatch(acme, ids); } finally { batchAgain.disabled = false; }
  });
  // The host can always stop the guest; the cards survive in the host's store.
  const kill = $('batch-kill');
  kill.disabled = false;
  kill.addEventListener('click', () => acme.terminate());
}

async function renderBatch(acme, ids) {
  const before = acme.stats().calls;
  const t0 = performance.now();
  const renders = await acme.renderMany(ids.map((id) => [id, 'embedded']));
  const t1 = performance.now();
  const calls = acme.stats().calls - before;
  // Into the DOM a few at a time, so no frame of this page waits on all hundred.
  for (let i = 0; i < renders.length; i += BATCH_CHUNK) {
    for (const r of renders.slice(i, i + BATCH_CHUNK)) {
      const existing = views.get(r.id);
      if (r.error && existing) existing.view.showError(r.error);
      else if (existing) existing.view.update(r);
      else {
        const slot = el('div', { class: 'card-mount team-card', testid: 'team-card', 'data-card': r.id });
        team.append(slot);
        if (r.error) mountFailure(slot, r.id, r.error);
        else mount(slot, { compartment: acme, name: 'acme', id: r.id, format: 'embedded', render: r });
      }
    }
    await nextFrame();
  }
  const t2 = performance.now();
  const ok = renders.filter((r) => !r.error).length;
  $('batch-count').textContent = String(ok);
  $('batch-calls').textContent = String(calls);
  $('batch-ms').textContent = ms(t1 - t0);
  $('batch-dom-ms').textContent = ms(t2 - t1);
  const tile = $('tile-directory');
  tile.dataset.cards = String(ok);
  tile.dataset.calls = String(calls);
  tile.dataset.ms = (t1 - t0).toFixed(2);
  tile.dataset.renders = String(Number(tile.dataset.renders ?? 0) + 1);
  updateStats();
}

// ---------------------------------------------------------------- the runaway

const runawayMount = $('card-runaway');
const rwNotice = $('runaway-notice');
const rwTile = $('tile-runaway');
const anim = $('runaway-heartbeat');
const animDot = $('runaway-heartbeat-dot');
const animStat = $('runaway-heartbeat-stat');
const rw = { running: false, t0: 0, worst: 0, frames: 0 };

// Moved by requestAnimationFrame (not CSS, which the compositor keeps running even when
// this thread is blocked): if the page froze, the dot would stop.
let animFrames = 0;
let animLast = 0;
function animate(now) {
  animFrames++;
  const gap = animLast ? now - animLast : 0;
  animLast = now;
  if (rw.running) {
    rw.frames++;
    rw.worst = Math.max(rw.worst, gap);
    if (animFrames % 4 === 0) animStat.textContent = `running ${Math.round(performance.now() - rw.t0)} ms · ${rw.frames} frames`;
  }
  const phase = (now % 2000) / 2000;
  const x = phase < 0.5 ? phase * 2 : 2 - phase * 2;
  animDot.style.transform = `translateX(${(x * 100).toFixed(2)}%)`;
  anim.dataset.frames = String(animFrames);
  anim.dataset.x = x.toFixed(3);
  requestAnimationFrame(animate);
}
requestAnimationFrame(animate);

function showRunawayNotice(phase, title, text) {
  rwNotice.hidden = false;
  rwNotice.dataset.phase = phase;
  $('runaway-notice-title').textContent = title;
  $('runaway-notice-text').textContent = text;
  rwTile.dataset.state = phase;
}

// The Run button is the card's own; the capture listener sees the click on its way in.
runawayMount.addEventListener('click', (e) => {
  const target = e.composedPath()[0];
  if (rw.running || !(target instanceof Element) || !target.closest('[data-role="run"]')) return;
  rw.running = true;
  rw.t0 = performance.now();
  rw.worst = 0;
  rw.frames = 0;
  showRunawayNotice('running', 'Running: the card is looping in its worker…', `The engine stops it at ${RUNAWAY_BUDGET_MS} ms. This page does not wait: the animation keeps moving and the other cards still answer.`);
}, true);

function runawayEnded(error) {
  if (!rw.running) return;
  rw.running = false;
  const took = performance.now() - rw.t0;
  const { code } = describeError(error);
  animStat.textContent = `max gap ${Math.round(rw.worst)} ms`;
  anim.dataset.worst = String(Math.round(rw.worst));
  rwTile.dataset.took = String(Math.round(took));
  if (error) {
    showRunawayNotice('stopped', `Stopped after ${Math.round(took)} ms · ${code}`,
      `The ${error.limit ?? 'engine'} budget ended the action. Meanwhile this page drew ${rw.frames} frames (longest gap ${Math.round(rw.worst)} ms) and the other cards kept answering.`);
  } else {
    showRunawayNotice('finished', `Finished after ${Math.round(took)} ms`, 'The action returned.');
  }
}

runawayMount.addEventListener('carderror', (e) => runawayEnded(e.detail.error));
runawayMount.addEventListener('cardpatches', () => runawayEnded(null));
$('runaway-reset').addEventListener('click', async () => {
  const v = views.get('runaway');
  if (!v) return;
  await v.view.refresh();
  rwNotice.hidden = true;
  delete rwTile.dataset.state;
  animStat.textContent = 'idle';
});

// ---------------------------------------------------------------- start

/** Runs a tile's set-up; if it fails before the card could mount, the error takes its place. */
async function tile(id, job) {
  try {
    await job();
  } catch (e) {
    const container = $(id);
    if (container) mountFailure(container, id.replace(/^card-/, ''), e);
  }
}

async function start() {
  $('principal-acme-url').textContent = REALMS.acme;
  $('principal-globex-url').textContent = REALMS.globex;
  const pool = new CompartmentPool({ idleTimeoutMs: IDLE_MS });
  const open = (name, principal, extra = {}) => Compartment.create({ principal, pool, modules: MODULES, ...extra }).then((c) => {
    compartments.set(name, c);
    c.addEventListener('terminated', (e) => recover(name, c, e.detail));
    return c;
  });
  const [acme, globex, runaway] = await Promise.all([
    open('acme', REALMS.acme, { onModelPatch: patchHandler('acme') }),
    open('globex', REALMS.globex, { onModelPatch: patchHandler('globex') }),
    // The runaway gets a realm of its own with a short budget (same principal, same worker).
    open('runaway', REALMS.globex, { onModelPatch: patchHandler('runaway'), limits: { timeoutMs: RUNAWAY_BUDGET_MS } }),
  ]);
  updateStats();

  const acmeTiles = [
    tile('card-counter', async () => {
      await create(acme, `${REALMS.acme}counter.js`, 'Counter', { id: 'counter', attributes: { title: 'Clicks', count: 0 } });
      await mount($('card-counter'), { compartment: acme, name: 'acme', id: 'counter', format: 'isolated' }).ready;
    }),
    tile('card-contact', async () => {
      await create(acme, `${REALMS.acme}contact.js`, 'Contact', {
        id: 'contact',
        attributes: { name: 'Ada Lovelace', age: 36, subscribed: true, birthday: '1815-12-10', address: { street: "12 St James's Square", city: 'London' } },
      });
      showStore();
      await mount($('card-contact'), { compartment: acme, name: 'acme', id: 'contact', format: 'edit' }).ready;
    }),
    // Does not parse: createCard rejects with SANDBOX_SYNTAX, and tile() shows it in the card's place.
    tile('card-invoice', async () => {
      await create(acme, `${REALMS.acme}invoice.js`, 'Invoice', { id: 'invoice', attributes: { customer: 'Initech', amount: 1200 } });
      await mount($('card-invoice'), { compartment: acme, name: 'acme', id: 'invoice', format: 'isolated' }).ready;
    }),
    tile('card-quote', async () => {
      await create(acme, `${REALMS.acme}quote.js`, 'Quote', { id: 'quote', attributes: { title: 'Quote of the day', text: 'Simple things should be simple.' } });
      await mount($('card-quote'), { compartment: acme, name: 'acme', id: 'quote', format: 'isolated' }).ready;
    }),
  ];
  const globexTiles = [
    tile('card-release', async () => {
      await create(globex, `${REALMS.globex}release.js`, 'Release', {
        id: 'release',
        attributes: { title: 'Release v2.4.0', version: 'v2.4.0', status: 'in review', approvals: 0, description: 'Faster cold starts, a smaller worker and the new card API. Needs two approvals to ship.' },
      });
      await mount($('card-release'), { compartment: globex, name: 'globex', id: 'release', format: 'isolated' }).ready;
    }),
    tile('card-escape', async () => {
      await create(globex, `${REALMS.globex}escape.js`, 'EscapeAttempts', { id: 'escape' });
      await mount($('card-escape'), { compartment: globex, name: 'globex', id: 'escape', format: 'isolated' }).ready;
    }),
    tile('card-runaway', async () => {
      await create(runaway, `${REALMS.globex}runaway.js`, 'Runaway', { id: 'runaway' });
      await mount(runawayMount, { compartment: runaway, name: 'runaway', id: 'runaway', format: 'isolated' }).ready;
    }),
  ];
  // The batch goes last on Acme's compartment, so its round-trip count is its own.
  await Promise.all(acmeTiles);
  const directory = tile('team', () => loadDirectory(acme));
  await Promise.all([...globexTiles, directory]);
  updateStats();
  setInterval(updateStats, 1000);
  gallery.dataset.state = 'ready';
}

start().catch((e) => {
  gallery.dataset.state = 'failed';
  const box = $('principal-acme-stats');
  box.textContent = `the gallery could not start: ${e && e.message}`;
  console.warn(e);
});
