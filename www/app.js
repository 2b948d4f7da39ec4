// The isolated-realm playground. Plain DOM, no framework.
import { init, Realm, SandboxError } from '/pkg/realm.js';
import { format, tokens } from './format.js';

const FILENAME = 'playground.js';

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
let spins = 0;
while (true) {
  spins++;
}
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
    source: `// Everything a page script would reach for. In the realm none
// of it exists: the global holds only ECMAScript builtins.
const probes = {
  'window': () => typeof window,
  'document': () => typeof document,
  'fetch': () => typeof fetch,
  'XMLHttpRequest': () => typeof XMLHttpRequest,
  'localStorage': () => typeof localStorage,
  'WebAssembly': () => typeof WebAssembly,
  'setTimeout': () => typeof setTimeout,
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
const reply = callParent('hello', { n: 1 });
const replyIsPlainData =
  Object.getPrototypeOf(reply) === Object.prototype;

({ reply, replyIsPlainData });
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
const timeoutInput = $('timeout');
const allowEvalInput = $('allow-eval');
const hostLog = $('host-log');
const chips = $('examples');

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

// ---------------------------------------------------------------- realm

let realm = null;
let realmNumber = 0;
let runs = 0;
let busy = false;
let hostCalls = 0;
let totalRuns = 0;

function setState(state, detail = '') {
  stateBox.dataset.state = state;
  stateBox.textContent = state;
  metaBox.textContent = detail;
  runButton.disabled = busy || state === 'loading';
}

function describeRealm() {
  if (!realm) return '';
  return `realm #${realmNumber} · ${runs} run${runs === 1 ? '' : 's'} · timeout ${timeoutInput.value} ms · eval ${allowEvalInput.checked ? 'on' : 'off'}`;
}

function refreshState() {
  if (!realm) setState('disposed', 'no realm: press Reset realm');
  else if (realm.disposed) setState('disposed', `realm #${realmNumber} is gone: press Reset realm`);
  else setState('ready', describeRealm());
}

/** The one function the guest can call. Runs on the host with cloned arguments. */
function handler(...args) {
  hostCalls++;
  const reply = { greeting: 'hello from the host', call: hostCalls, echo: args[1] ?? null, at: new Date() };
  logHostCall(args, reply);
  return reply;
}

function createRealm() {
  if (realm && !realm.disposed) realm.dispose();
  realm = null;
  runs = 0;
  const timeoutMs = Number(timeoutInput.value);
  try {
    realm = new Realm({
      handler,
      exposeHandlerAs: 'callParent',
      allowCodeGeneration: allowEvalInput.checked,
      limits: { timeoutMs },
    });
    realmNumber++;
  } catch (e) {
    showError(e, null);
  }
  refreshState();
}

function disposeRealm() {
  if (realm && !realm.disposed) realm.dispose();
  refreshState();
}

const nextPaint = () => new Promise((ok) => {
  // Let the "running" state paint before the synchronous eval blocks this thread.
  const fallback = setTimeout(ok, 50);
  requestAnimationFrame(() => setTimeout(() => { clearTimeout(fallback); ok(); }, 0));
});

async function run() {
  if (busy) return;
  busy = true;
  setState('running', realm ? describeRealm() : '');
  await nextPaint();
  const source = editor.value;
  const started = performance.now();
  let value;
  let error = null;
  try {
    if (!realm) {
      throw new SandboxError({ code: 'SANDBOX_DISPOSED', message: 'there is no realm; press Reset realm [SANDBOX_DISPOSED]' });
    }
    value = realm.eval(source, { filename: FILENAME });
  } catch (e) {
    error = e;
  }
  const ms = performance.now() - started;
  runs++;
  busy = false;
  elapsedBox.textContent = `${ms < 10 ? ms.toFixed(2) : ms.toFixed(0)} ms`;
  elapsedBox.dataset.ms = String(ms);
  if (error) showError(error, source);
  else showValue(value);
  resultBox.dataset.run = String(++totalRuns);
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
  if (gap > worstGap || now - worstAt > 5000) { worstGap = gap; worstAt = now; }
  const phase = (now % 1600) / 1600;
  const x = phase < 0.5 ? phase * 2 : 2 - phase * 2;
  dot.style.transform = `translateX(${(x * 100).toFixed(2)}%)`;
  if (frames % 6 === 0) {
    stallBox.textContent = `longest pause: ${Math.round(worstGap)} ms`;
    stallBox.classList.toggle('stalled', worstGap > 100);
    heartbeat.dataset.frames = String(frames);
  }
  requestAnimationFrame(beat);
}
requestAnimationFrame(beat);

// ---------------------------------------------------------------- wiring

for (const ex of EXAMPLES) {
  const chip = el('button', { type: 'button', class: 'chip', testid: `example-${ex.id}`, 'aria-pressed': 'false', text: ex.label });
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
timeoutInput.addEventListener('change', createRealm);
allowEvalInput.addEventListener('change', createRealm);
$('reset').addEventListener('click', createRealm);
$('dispose').addEventListener('click', disposeRealm);
$('clear-log').addEventListener('click', () => {
  hostLog.replaceChildren(el('li', { class: 'log-empty', text: 'Log cleared.' }));
});
if (/Mac|iPhone|iPad/.test(navigator.platform)) $('run-shortcut').textContent = '⌘';

loadExample('hello');

try {
  await init();
  createRealm();
} catch (e) {
  setState('disposed', 'the engine failed to load');
  showError(e, null);
}
