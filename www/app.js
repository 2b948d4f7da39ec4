// The isolated-realm playground. Plain DOM, no framework.
// By default guest code runs in a Compartment (a realm in a dedicated worker); the
// "Runs in" switch swaps in the synchronous Realm on this page's main thread to compare.
import { Compartment, CompartmentPool, SandboxError } from '/pkg/index.js';
import { init, Realm } from '/pkg/realm.js';
import { format, tokens } from './format.js';

const FILENAME = 'playground.js';
const PRINCIPAL = 'playground';
const GRACE_MS = 100;
const RESPAWN_DELAY_MS = 250;

const EXAMPLES = [
  {
    id: 'hello', label: 'Hello',
    source: `// Return anything structured clone can carry: Maps, Sets,
// Dates, typed arrays, even cycles. The host gets a copy.
const items = new Map([[1, 'apple'], [2, 'pear']]);

const order = {
  id: 'ord_1042',
  items,
  tags: new Set(['fragile', 'gift']),
  placedAt: new Date(Date.UTC(2025, 0, 31, 12, 30)),
  checksum: new Uint8Array([222, 173, 190, 239]),
};
order.self = order; // cycles survive too

order;
`,
  },
  {
    id: 'infinite-loop', label: 'Infinite loop',
    source: `// A runaway loop. The realm's deadline (limits.timeoutMs)
// stops it, and the host gets a typed error, not a frozen tab.
// In a worker the page does not even pause: watch the heartbeat.
let spins = 0;
while (true) {
  spins++;
}
`,
  },
  {
    id: 'stuck-builtin', label: 'Stuck in a builtin', workerOnly: true,
    source: `// Catastrophic backtracking: (a+)+ tries every way to split
// forty a's before it can fail on the 'b', about 2^40 attempts,
// all inside ONE native call to RegExp.prototype.test.
//
// The engine's budget counts bytecode instructions, so it cannot
// interrupt a builtin. In a worker the watchdog kills the whole
// worker after timeoutMs + grace, and a fresh one takes its place.
// (On the main thread this would freeze the tab: that mode
// disables this example.)
/^(a+)+$/.test('a'.repeat(40) + 'b');
`,
  },
  {
    id: 'throw', label: 'Throw',
    source: `// Uncaught guest errors come back as data: name, message,
// stack and the location they were thrown from.
function parsePrice(input) {
  if (typeof input !== 'number') {
    throw new TypeError('expected a number, got ' + typeof input);
  }
  return Math.round(input * 100);
}

parsePrice('12.50');
`,
  },
  {
    id: 'syntax-error', label: 'Syntax error',
    source: `// Nothing runs if the source does not parse; the error
// says where.
const total = [1, 2, 3].reduce((sum, n) => sum + n, 0;
total;
`,
  },
  {
    id: 'escape-attempt', label: 'Escape attempt',
    source: `// Everything a page or worker script would reach for. In the
// realm none of it exists: the global holds the ECMAScript builtins
// and a small platform of the guest's own (timers, console, URL,
// TextEncoder, crypto), never an object of the host.
const probes = {
  'window': () => typeof window,
  'document': () => typeof document,
  'fetch': () => typeof fetch,
  'XMLHttpRequest': () => typeof XMLHttpRequest,
  'localStorage': () => typeof localStorage,
  'WebAssembly': () => typeof WebAssembly,
  'postMessage': () => typeof postMessage,
  'importScripts': () => typeof importScripts,
  'self': () => typeof self,
  'top': () => typeof top,
  'eval("typeof document")': () => eval('typeof document'),
  'constructor.constructor("return this")()': () =>
    whose(globalThis.constructor.constructor('return this')()),
  'Function("return this")()': () =>
    whose(Function('return this')()),
  '(function () { return this })()': () =>
    whose((function () { return this; })()),
  '[].map.constructor("return typeof document")()': () =>
    [].map.constructor('return typeof document')(),
};

// 'guest global': the probe reached the realm's own global
// object, which has no window, document or network on it.
function whose(g) {
  const guestOnly = typeof g.document === 'undefined';
  if (g === globalThis && guestOnly) return 'guest global';
  return 'HOST OBJECT';
}

const found = {};
for (const [name, probe] of Object.entries(probes)) {
  try {
    found[name] = probe();
  } catch (e) {
    found[name] = 'blocked (' + e.name + ')';
  }
}
found;
`,
  },
  {
    id: 'not-cloneable', label: 'Not cloneable',
    source: `// Functions cannot cross the boundary. The error names the
// exact path, so the host knows which field to fix.
({
  model: {
    title: 'Release notes',
    author: {
      name: 'Ada',
      avatar() {},
    },
  },
});
`,
  },
  {
    id: 'call-the-host', label: 'Call the host',
    source: `// The host exposed exactly one function, callParent. Arguments
// and the reply cross by structured clone: the host never sees a
// guest object, and the guest never sees a host one.
//
// In a worker the host answers asynchronously: callParent returns
// a promise, and a promise completion value is awaited. The sync
// Realm on the main thread hands back the reply itself.
const answer = callParent('hello', { n: 1 });
answer instanceof Promise ? answer.then(inspect) : inspect(answer);

function inspect(reply) {
  const replyIsPlainData =
    Object.getPrototypeOf(reply) === Object.prototype;
  return { reply, replyIsPlainData };
}
`,
  },
];

// ---------------------------------------------------------------- elements

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const editor = $('editor');
const runButton = $('run');
const resultBox = $('result');
const elapsedBox = $('elapsed');
const stateBox = $('realm-state');
const metaBox = $('realm-meta');
const statsBox = $('realm-stats');
const timeoutInput = $('timeout');
const allowEvalInput = $('allow-eval');
const hostLog = $('host-log');
const chips = $('examples');
const modeGroup = $('mode');
const modeBlurb = $('mode-blurb');
const heartbeatNote = $('heartbeat-note');
const notice = $('worker-notice');

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

// ---------------------------------------------------------------- modes

const MODES = {
  worker: {
    status: 'in a dedicated worker',
    blurb: 'A realm in a dedicated worker: your page never waits for the guest.',
    note: `Each run has a deadline of limits.timeoutMs. The engine stops runaway bytecode itself; a guest stuck inside a native builtin, where no budget reaches, is killed by the pool's watchdog after timeoutMs + ${GRACE_MS} ms grace, and its worker respawns.`,
  },
  main: {
    status: 'on the main thread',
    blurb: 'The synchronous Realm on this page’s thread: simpler, but your page waits.',
    note: 'The synchronous Realm shares this thread with the page, so a runaway script pauses the heartbeat until its budget trips. A guest stuck inside a native builtin cannot be interrupted here at all, which is why that example is disabled in this mode.',
  },
};
const STUCK_TITLES = {
  worker: `Catastrophic regex backtracking inside a native builtin: no instruction budget can interrupt it, so the watchdog kills the worker after timeoutMs + ${GRACE_MS} ms grace.`,
  main: 'Disabled on the main thread: a regex stuck in catastrophic backtracking runs inside one native builtin, which no instruction budget can interrupt, so it would freeze this tab for hours. Switch to Worker to watch the watchdog kill it instead.',
};

let mode = 'worker';

function applyMode() {
  modeGroup.dataset.mode = mode;
  for (const input of modeGroup.querySelectorAll('input')) input.checked = input.value === mode;
  runButton.title = `Run the editor's code ${MODES[mode].status}`;
  modeBlurb.textContent = MODES[mode].blurb;
  heartbeatNote.textContent = MODES[mode].note;
  for (const ex of EXAMPLES.filter((x) => x.workerOnly)) {
    const chip = $(`example-${ex.id}`);
    chip.disabled = mode !== 'worker';
    chip.title = STUCK_TITLES[mode];
    // Never leave the one-click freeze loaded when switching to the main thread.
    if (chip.disabled && chip.getAttribute('aria-pressed') === 'true') loadExample('hello');
  }
}

function setMode(next) {
  if (next === mode || !MODES[next]) return;
  mode = next;
  applyMode();
  createSandbox();
}

// ---------------------------------------------------------------- sandboxes

// A pool of our own, so the grace the page describes is the grace it uses.
const pool = new CompartmentPool({ graceMs: GRACE_MS });

let sandbox = null; // { kind, number, runs, disposed, eval, dispose, stats, lost, respawning }
const sandboxNumbers = { worker: 0, main: 0 };
let creating = null;
let createToken = 0;
let syncEngine = null;
let busy = false;
let hostCalls = 0;
let totalRuns = 0;

/** The one function the guest can call. Runs on the host with cloned arguments. */
function handler(...args) {
  hostCalls++;
  const reply = { greeting: 'hello from the host', call: hostCalls, echo: args[1] ?? null, at: new Date() };
  logHostCall(args, reply);
  return reply;
}

async function openCompartment(options) {
  const compartment = await Compartment.create({ principal: PRINCIPAL, pool, ...options });
  const s = {
    kind: 'worker',
    runs: 0,
    disposed: false,
    lost: null,
    respawning: null,
    eval: (source, o) => compartment.eval(source, o),
    dispose() {
      if (s.disposed) return;
      s.disposed = true;
      compartment.dispose().catch(() => {});
    },
    stats: () => compartment.stats(),
    compartment,
  };
  compartment.addEventListener('terminated', (e) => onTerminated(s, e.detail));
  return s;
}

async function openRealm(options) {
  syncEngine ??= init().catch((e) => { syncEngine = null; throw e; });
  await syncEngine;
  const realm = new Realm(options);
  return {
    kind: 'main',
    runs: 0,
    get disposed() { return realm.disposed; },
    lost: null,
    respawning: null,
    // Synchronous underneath: this blocks the page until the guest is done.
    eval: async (source, o) => realm.eval(source, o),
    dispose() { if (!realm.disposed) realm.dispose(); },
    stats: () => null,
  };
}

let lastKey = '';
const optionsKey = () => `${mode}|${Number(timeoutInput.value)}|${allowEvalInput.checked}`;

/** An option changed: start afresh, unless nothing really changed (a late blur `change`). */
function optionsChanged() {
  const live = creating || (sandbox && !sandbox.disposed);
  if (live && optionsKey() === lastKey) return;
  createSandbox();
}

function createSandbox() {
  const token = ++createToken;
  lastKey = optionsKey();
  if (sandbox) sandbox.dispose();
  sandbox = null;
  hideNotice();
  const options = {
    handler,
    exposeHandlerAs: 'callParent',
    allowCodeGeneration: allowEvalInput.checked,
    limits: { timeoutMs: Number(timeoutInput.value) },
  };
  const kind = mode;
  setState('loading', kind === 'worker' ? 'starting a worker…' : 'loading the engine on this thread…');
  const job = (async () => {
    let s = null;
    let error = null;
    try {
      s = await (kind === 'worker' ? openCompartment(options) : openRealm(options));
    } catch (e) {
      error = e;
    }
    if (token !== createToken) {
      s?.dispose();
      return;
    }
    creating = null;
    if (s) {
      s.number = ++sandboxNumbers[s.kind];
      s.timeoutMs = options.limits.timeoutMs;
      s.allowEval = options.allowCodeGeneration;
      sandbox = s;
    } else {
      showError(error, null);
    }
    refreshState();
  })();
  creating = job;
  return job;
}

function disposeSandbox() {
  if (sandbox) sandbox.dispose();
  hideNotice();
  refreshState();
}

/** Its worker died (watchdog, crash, memory, eviction): say so, and bring up a fresh one. */
function onTerminated(s, detail) {
  if (s !== sandbox || s.disposed) return;
  s.lost = { ...detail, at: performance.now() };
  if (detail.reason === 'evicted') {
    // Closed for being idle: respawning now would only idle again. The next run does it.
    showNotice(s.lost, 'closed');
  } else {
    respawn(s);
  }
}

/** Starts the compartment's fresh worker now, so the next run does not wait for it. */
function respawn(s) {
  if (s.respawning) return s.respawning;
  const lost = s.lost;
  showNotice(lost, 'respawning');
  s.respawning = (async () => {
    // Let the dead worker finish tearing down first: in Chromium, starting a worker while
    // the killed one is still going costs this thread a visible hitch (40-80 ms, measured).
    await new Promise((ok) => setTimeout(ok, RESPAWN_DELAY_MS));
    // After a death no call heard about, the first call rejects with the reason (state
    // loss is never silent; the notice says it); the next one respawns.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await s.eval('undefined');
        return true;
      } catch (e) {
        if (!(e instanceof SandboxError && e.code === 'SANDBOX_TERMINATED')) return false;
      }
    }
    return false;
  })().then((ok) => {
    s.respawning = null;
    s.lost = null;
    if (s === sandbox && !s.disposed) showNotice(lost, ok ? 'respawned' : 'failed', performance.now() - lost.at);
    refreshState();
  });
  refreshState();
  return s.respawning;
}

function showNotice({ reason, message }, phase, ms = 0) {
  const why = {
    timeout: `It did not answer by its deadline plus grace (timeoutMs + ${GRACE_MS} ms), so the watchdog killed the worker. This page never waited.`,
    crashed: 'The engine instance inside it crashed, so the worker was thrown away.',
    memory: "Its wasm memory grew past the pool's cap, so the worker was replaced.",
    requested: 'The host asked for it to be stopped.',
    evicted: 'The pool closes workers that sit idle (after a minute, by default).',
  }[reason] ?? String(message ?? '');
  const gone = 'Globals from earlier runs are gone.';
  const title = {
    respawning: `Worker terminated (${reason}) · respawning…`,
    respawned: `Worker terminated (${reason}) and respawned`,
    closed: `Worker closed (${reason})`,
    failed: `Worker terminated (${reason})`,
  }[phase];
  const tail = {
    respawning: gone,
    respawned: `A fresh worker was ready ${Math.round(ms)} ms later. ${gone}`,
    closed: `The next run starts a fresh one. ${gone}`,
    failed: `${gone} The next run tries to start a fresh worker.`,
  }[phase];
  $('worker-notice-title').textContent = title;
  $('worker-notice-text').textContent = `${why} ${tail}`;
  notice.dataset.reason = String(reason);
  notice.dataset.phase = phase;
  notice.hidden = false;
}

function hideNotice() {
  notice.hidden = true;
  delete notice.dataset.phase;
  delete notice.dataset.reason;
}

// ---------------------------------------------------------------- status line

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

function setState(state, detail = '', stats = '') {
  stateBox.dataset.state = state;
  stateBox.textContent = state;
  metaBox.textContent = detail;
  metaBox.title = detail;
  statsBox.textContent = stats;
  statsBox.hidden = !stats;
  runButton.disabled = busy || state === 'loading' || state === 'respawning';
}

function describe(s) {
  const what = s.kind === 'worker' ? `compartment #${s.number}` : `realm #${s.number} · main thread`;
  return `${what} · ${plural(s.runs, 'run')} · timeout ${s.timeoutMs} ms · eval ${s.allowEval ? 'on' : 'off'}`;
}

function describeStats(s) {
  const st = s.stats();
  if (!st) return 'no worker · the guest shares this page’s thread';
  const mb = (st.memoryBytes / (1024 * 1024)).toFixed(1);
  return `${plural(st.calls, 'call')} · ${plural(st.respawns, 'respawn')} · ${mb} MB wasm memory`;
}

function refreshState() {
  if (creating) setState('loading', mode === 'worker' ? 'starting a worker…' : 'loading the engine on this thread…');
  else if (!sandbox) setState('disposed', 'no realm: press Reset realm');
  else if (sandbox.disposed) setState('disposed', `${sandbox.kind === 'worker' ? 'compartment' : 'realm'} #${sandbox.number} is gone: press Reset realm`);
  else if (sandbox.respawning) setState('respawning', describe(sandbox), describeStats(sandbox));
  else setState('ready', describe(sandbox), describeStats(sandbox));
}

const nextPaint = () => new Promise((ok) => {
  // Let the "running" state paint before the synchronous eval blocks this thread.
  const fallback = setTimeout(ok, 50);
  requestAnimationFrame(() => setTimeout(() => { clearTimeout(fallback); ok(); }, 0));
});

async function run() {
  if (busy) return;
  busy = true;
  if (notice.dataset.phase !== 'respawning') hideNotice();
  const source = editor.value;
  setState('running', sandbox ? describe(sandbox) : '', sandbox && !sandbox.disposed ? describeStats(sandbox) : '');
  if (creating) await creating;
  if (sandbox?.lost && !sandbox.disposed) respawn(sandbox);
  if (sandbox?.respawning) await sandbox.respawning;
  hideNotice();
  const s = sandbox;
  if (s) setState('running', describe(s), s.disposed ? '' : describeStats(s));
  if (!s || s.kind === 'main') await nextPaint();
  markHeartbeat();
  const started = performance.now();
  // Off the main thread the page stays live, so the clock can tick while the guest runs.
  let ticking = true;
  const tick = () => {
    if (!ticking) return;
    elapsedBox.dataset.live = '';
    elapsedBox.textContent = `${Math.round(performance.now() - started)} ms`;
    requestAnimationFrame(tick);
  };
  // A run that takes a while says what is going on (only off the main thread can it paint).
  const showRunning = setTimeout(() => {
    resultBox.replaceChildren(el('div', { class: 'running', testid: 'result-running' },
      el('span', { class: 'running-spinner', 'aria-hidden': 'true' }),
      el('div', {},
        el('strong', { text: 'Running in a worker' }),
        el('p', { class: 'muted small', text: `This page stays responsive: the heartbeat keeps moving. The engine's deadline is ${s.timeoutMs} ms; a worker that does not answer by ${s.timeoutMs + GRACE_MS} ms is killed.` }))));
    resultBox.dataset.status = 'running';
  }, 250);
  if (s && s.kind === 'worker') requestAnimationFrame(tick);
  else clearTimeout(showRunning);
  let value;
  let error = null;
  try {
    if (!s) {
      throw new SandboxError({ code: 'SANDBOX_DISPOSED', message: 'there is no realm; press Reset realm [SANDBOX_DISPOSED]' });
    }
    value = await s.eval(source, { filename: FILENAME });
  } catch (e) {
    error = e;
  }
  ticking = false;
  clearTimeout(showRunning);
  const ms = performance.now() - started;
  if (s) s.runs++;
  busy = false;
  delete elapsedBox.dataset.live;
  elapsedBox.textContent = `${ms < 10 ? ms.toFixed(2) : ms.toFixed(0)} ms`;
  elapsedBox.dataset.ms = String(ms);
  if (error) showError(error, source);
  else showValue(value);
  resultBox.dataset.run = String(++totalRuns);
  resultBox.dataset.mode = s ? s.kind : mode;
  refreshState();
}

// ---------------------------------------------------------------- rendering

function highlighted(text, testid) {
  const pre = el('pre', { class: 'value', testid });
  for (const [t, cls] of tokens(text)) pre.append(cls ? el('span', { class: cls, text: t }) : t);
  return pre;
}

function typeLabel(v) {
  if (v === null) return 'null';
  if (typeof v !== 'object') return typeof v;
  return Object.prototype.toString.call(v).slice(8, -1);
}

function showValue(value) {
  resultBox.replaceChildren(
    el('div', { class: 'result-head' },
      el('span', { class: 'badge badge-ok', testid: 'result-ok', text: 'OK' }),
      el('span', { class: 'muted small', text: `returned ${typeLabel(value)}` })),
    highlighted(format(value), 'result-value'),
  );
  resultBox.dataset.status = 'ok';
}

const FIELDS = [
  ['limit', 'limit'],
  ['path', 'path'],
  ['valueType', 'value type'],
  ['guestName', 'guest name'],
  ['guestMessage', 'guest message'],
  ['location', 'location'],
  ['reason', 'reason'],
  ['option', 'option'],
];

function showError(e, source) {
  const isSandbox = e instanceof SandboxError;
  const code = isSandbox ? e.code : (e && e.name) || 'Error';
  const fields = el('dl', { class: 'fields' });
  const info = { ...e };
  if (e.filename !== undefined || e.line !== undefined) {
    info.location = [e.filename ?? '?', e.line, e.column].filter((x) => x !== undefined).join(':');
  }
  for (const [name, label] of FIELDS) {
    if (info[name] === undefined) continue;
    fields.append(el('div', { class: 'field-row' },
      el('dt', { text: label }), el('dd', { testid: `error-field-${name}`, text: String(info[name]) })));
  }
  const card = el('div', { class: 'error-card', testid: 'error-card' },
    el('div', { class: 'result-head' },
      el('span', { class: 'badge badge-err', testid: 'error-code', text: code })),
    el('p', { class: 'error-message', testid: 'error-message', text: String(e && e.message).replace(/\s*\[SANDBOX_[A-Z_]+\]$/, '') }),
    fields.childElementCount ? fields : null,
    excerpt(e, source),
    e.guestStack ? el('details', { class: 'stack', open: '' },
      el('summary', { text: 'guest stack' }),
      el('pre', { testid: 'error-field-guestStack', text: e.guestStack })) : null,
  );
  resultBox.replaceChildren(card);
  resultBox.dataset.status = 'error';
}

/** The offending source line with a caret, when the error points into the editor. */
function excerpt(e, source) {
  if (source == null || e.filename !== FILENAME || !(e.line >= 1)) return null;
  const raw = source.split('\n')[e.line - 1];
  if (raw === undefined) return null;
  const line = raw.trimStart();
  const gutter = `${e.line} | `;
  const col = Math.max(1, (e.column || 1) - (raw.length - line.length));
  const caret = ' '.repeat(gutter.length + col - 1) + '^';
  return el('pre', { class: 'excerpt', testid: 'error-excerpt', text: `${gutter}${line}\n${caret}` });
}

function logHostCall(args, reply) {
  hostLog.querySelector('.log-empty')?.remove();
  const time = new Date().toLocaleTimeString([], { hour12: false });
  const call = `callParent(${args.map((a) => format(a)).join(', ')})`;
  hostLog.prepend(el('li', { class: 'log-entry', testid: 'host-log-entry' },
    el('div', { class: 'log-line' },
      el('span', { class: 'log-n', text: `#${hostCalls}` }),
      el('code', { class: 'log-call', text: call }),
      el('span', { class: 'log-time', text: time })),
    el('div', { class: 'log-reply' }, el('span', { class: 'muted', text: 'returned ' }),
      el('code', { text: format(reply) }))));
  while (hostLog.children.length > 50) hostLog.lastElementChild.remove();
}

// ---------------------------------------------------------------- heartbeat

// Moved by requestAnimationFrame on purpose (not a CSS animation, which the compositor
// would keep running even while this thread is blocked): if the page froze, the dot stops.
const dot = $('heartbeat-dot');
const heartbeat = $('heartbeat');
const stallBox = $('heartbeat-stall');
let frames = 0;
let lastFrame = 0;
let worstGap = 0;
let worstAt = 0;
function beat(now) {
  frames++;
  const gap = lastFrame ? now - lastFrame : 0;
  lastFrame = now;
  let worse = false;
  if (gap > worstGap || now - worstAt > 5000) { worse = gap > worstGap; worstGap = gap; worstAt = now; }
  const phase = (now % 1600) / 1600;
  const x = phase < 0.5 ? phase * 2 : 2 - phase * 2;
  dot.style.transform = `translateX(${(x * 100).toFixed(2)}%)`;
  if (worse || frames % 6 === 0) {
    stallBox.textContent = `longest pause: ${Math.round(worstGap)} ms`;
    stallBox.classList.toggle('stalled', worstGap > 100);
    heartbeat.dataset.frames = String(frames);
    heartbeat.dataset.worst = String(Math.round(worstGap));
  }
  requestAnimationFrame(beat);
}
requestAnimationFrame(beat);

/** Starts a fresh measuring window, so "longest pause" describes the run that follows. */
function markHeartbeat() {
  worstGap = 0;
  worstAt = performance.now();
}

// ---------------------------------------------------------------- wiring

for (const ex of EXAMPLES) {
  const chip = el('button', { type: 'button', class: ex.workerOnly ? 'chip chip-worker' : 'chip', testid: `example-${ex.id}`, 'aria-pressed': 'false', text: ex.label });
  chip.addEventListener('click', () => loadExample(ex.id));
  chips.append(chip);
}

function loadExample(id) {
  const ex = EXAMPLES.find((x) => x.id === id);
  editor.value = ex.source;
  for (const c of chips.children) c.setAttribute('aria-pressed', String(c.dataset.testid === `example-${id}`));
  editor.scrollTop = 0;
}

runButton.addEventListener('click', run);
editor.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    run();
  }
});
editor.addEventListener('input', () => {
  for (const c of chips.children) c.setAttribute('aria-pressed', 'false');
});
timeoutInput.addEventListener('change', optionsChanged);
allowEvalInput.addEventListener('change', optionsChanged);
$('reset').addEventListener('click', createSandbox);
$('dispose').addEventListener('click', disposeSandbox);
for (const input of modeGroup.querySelectorAll('input')) {
  input.addEventListener('change', () => { if (input.checked) setMode(input.value); });
}
$('clear-log').addEventListener('click', () => {
  hostLog.replaceChildren(el('li', { class: 'log-empty', text: 'Log cleared.' }));
});
if (/Mac|iPhone|iPad/.test(navigator.platform)) $('run-shortcut').textContent = '⌘';

loadExample('hello');
applyMode();
createSandbox();
