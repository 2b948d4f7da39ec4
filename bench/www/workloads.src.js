// The benchmark workloads: ONE source text for every engine.
// Boa (isolated-realm) and QuickJS receive this file's text as a string and evaluate it as a
// classic script; native V8 imports it as a module (the server appends an export list), so
// no string is ever compiled under the page's CSP. Keep it plain ECMAScript: no host APIs.
// Every run_* returns a small value that must be identical in every engine.

var STATE = {};

var WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit',
  'sed', 'do', 'eiusmod', 'tempor', 'incididunt', 'ut', 'labore', 'et', 'dolore', 'magna',
  'aliqua', 'enim', 'ad', 'minim', 'veniam', 'quis', 'nostrud', 'exercitation', 'ullamco',
  'laboris', 'nisi', 'aliquip', 'ex', 'ea', 'commodo', 'consequat', 'caf\u00e9', 'na\u00efve',
  'stra\u00dfe', '\u4e2d\u6587', 'r\u00e9sum\u00e9', 'fa\u00e7ade'];

// mulberry32: a deterministic PRNG, so every engine builds the same data.
function rng(seed) {
  var s = seed >>> 0;
  return function () {
    s = (s + 0x6D2B79F5) | 0;
    var t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Length plus FNV-1a over at most ~4096 sampled code units: cheap next to the work measured.
function digest(s) {
  var h = 2166136261;
  var step = s.length > 4096 ? Math.floor(s.length / 4096) : 1;
  for (var i = 0; i < s.length; i += step) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return s.length + '#' + (h >>> 0).toString(16);
}

// --- small calls and the boundary -------------------------------------------------------

function add(a, b) {
  return a + b;
}

function identity(x) {
  return x;
}

// A model whose JSON is at least `bytes` long: nested objects, arrays, strings, numbers.
function makeModel(bytes, seed) {
  var r = rng(seed || 1);
  var m = { id: 'model-' + bytes, title: 'A model of ' + bytes + ' bytes', version: 3, tags: [], items: [] };
  for (var t = 0; t < 5; t++) m.tags.push(WORDS[Math.floor(r() * WORDS.length)]);
  var size = JSON.stringify(m).length;
  var i = 0;
  while (size < bytes) {
    var item = {
      id: i,
      name: WORDS[Math.floor(r() * WORDS.length)] + ' ' + WORDS[Math.floor(r() * WORDS.length)],
      price: Math.floor(r() * 100000) / 4,
      inStock: r() < 0.5,
      dims: [Math.floor(r() * 100), Math.floor(r() * 100), Math.floor(r() * 100)],
      meta: { created: 1700000000000 + i * 1000, owner: 'user' + Math.floor(r() * 50) },
    };
    m.items.push(item);
    size += JSON.stringify(item).length + 1;
    i++;
  }
  return m;
}

// --- fib -------------------------------------------------------------------------------

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function run_fib() {
  return fib(27);
}

// --- card render: a 200-field model, rendered 100 times by a template function ----------

var ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escChar(c) {
  return ESC[c];
}

function esc(s) {
  return String(s).replace(/[&<>"']/g, escChar);
}

function money(cents) {
  return Math.floor(cents / 100) + '.' + String(cents % 100).padStart(2, '0');
}

function makeCardModel(seed) {
  var r = rng(seed);
  var fields = {};
  for (var i = 0; i < 200; i++) {
    var kind = i % 5;
    var v;
    if (kind === 0) v = 'Value <' + i + '> & "' + WORDS[Math.floor(r() * WORDS.length)] + '"';
    else if (kind === 1) v = Math.floor(r() * 100000) / 4;
    else if (kind === 2) v = r() < 0.5;
    else if (kind === 3) v = [WORDS[Math.floor(r() * WORDS.length)], WORDS[Math.floor(r() * WORDS.length)], WORDS[Math.floor(r() * WORDS.length)]];
    else v = { cents: Math.floor(r() * 1000000), currency: 'EUR' };
    fields['field_' + i] = v;
  }
  return { id: 'card-' + seed, title: 'Card #' + seed + ' <draft>', fields: fields };
}

function renderField(v) {
  if (typeof v === 'string') return `<dd class="s">${esc(v)}</dd>`;
  if (typeof v === 'number') return `<dd class="n">${v.toFixed(2)}</dd>`;
  if (typeof v === 'boolean') return `<dd class="b">${v ? 'yes' : 'no'}</dd>`;
  if (Array.isArray(v)) return `<dd class="l"><ul>${v.map((x) => `<li>${esc(x)}</li>`).join('')}</ul></dd>`;
  return `<dd class="m">${money(v.cents)} ${esc(v.currency)}</dd>`;
}

function renderCard(m, n) {
  const rows = Object.keys(m.fields).map((k) => `<dt>${esc(k)}</dt>${renderField(m.fields[k])}`);
  return `<article class="card" id="${esc(m.id)}-${n}"><h2>${esc(m.title)}</h2><dl>${rows.join('')}</dl></article>`;
}

function setup_card() {
  STATE.card = makeCardModel(2024);
  return Object.keys(STATE.card.fields).length;
}

function run_card() {
  var total = 0;
  var last = '';
  for (var n = 0; n < 100; n++) {
    last = renderCard(STATE.card, n);
    total += last.length;
  }
  return total + ':' + digest(last);
}

// --- object churn: 200k objects, sort, reduce -------------------------------------------

function byScore(a, b) {
  return a.score - b.score || a.id - b.id;
}

function run_churn() {
  var r = rng(42);
  var arr = [];
  for (var i = 0; i < 200000; i++) arr.push({ id: i, score: Math.floor(r() * 1000000), name: 'n' + (i % 1000) });
  arr.sort(byScore);
  var sum = arr.reduce(function (acc, o, idx) { return (acc + o.score * (idx % 7)) % 1000000007; }, 0);
  return sum + ':' + arr[0].id + ':' + arr[arr.length - 1].id + ':' + arr[100000].name;
}

// --- JSON: parse and stringify 1 MB, 5 times --------------------------------------------

function setup_json() {
  var r = rng(7);
  var items = [];
  var size = 0;
  var i = 0;
  while (size < 1000000) {
    var it = {
      id: i,
      name: 'item ' + i + ' ' + WORDS[Math.floor(r() * WORDS.length)],
      tags: [WORDS[Math.floor(r() * WORDS.length)], WORDS[Math.floor(r() * WORDS.length)]],
      price: Math.floor(r() * 100000) / 4,
      active: r() < 0.5,
      note: i % 10 === 0 ? 'line one\nline two "quoted" \\ tab\t\u00e9\u4e2d' : null,
      nested: { a: i % 7, b: [i % 3, i % 5, -i] },
    };
    items.push(it);
    size += JSON.stringify(it).length + 1;
    i++;
  }
  STATE.jsonText = JSON.stringify({ version: 1, generator: 'bench', items: items });
  return STATE.jsonText.length;
}

function run_json() {
  var s = STATE.jsonText;
  var out = '';
  var count = 0;
  for (var k = 0; k < 5; k++) {
    var o = JSON.parse(s);
    count += o.items.length;
    out = JSON.stringify(o);
  }
  return count + ':' + (out === s) + ':' + digest(out);
}

// --- regex and string ops on 200 KB ------------------------------------------------------
// Two texts: ASCII words (typical card content) and the same mix with non-Latin-1 words,
// which engines may store as UTF-16 rather than one byte per character.

function makeText(words, seed) {
  var r = rng(seed);
  var seps = [' ', '  ', '\t', '\n', ' \n ', ', ', ' '];
  var parts = [];
  var len = 0;
  while (len < 200000) {
    var w = words[Math.floor(r() * words.length)];
    var sep = seps[Math.floor(r() * seps.length)];
    parts.push(w, sep);
    len += w.length + sep.length;
  }
  return parts.join('');
}

function textOps(s, needles) {
  var words = s.split(/\s+/);
  var replaced = s.replace(/,/g, ';');
  var hits = 0;
  for (var k = 0; k < needles.length; k++) {
    var pos = 0;
    while ((pos = s.indexOf(needles[k], pos)) !== -1) {
      hits++;
      pos += 1;
    }
  }
  return words.length + ':' + hits + ':' + digest(replaced);
}

function setup_text() {
  var ascii = [];
  for (var i = 0; i < WORDS.length; i++) {
    var w = WORDS[i];
    var plain = true;
    for (var j = 0; j < w.length; j++) if (w.charCodeAt(j) > 127) plain = false;
    if (plain) ascii.push(w);
  }
  STATE.text = makeText(ascii, 11);
  return STATE.text.length;
}

function run_text() {
  return textOps(STATE.text, ['lorem', 'consequat', 'dolore', ', ', 'zzz']);
}

// --- the default sort (no comparator) of 100k numbers ------------------------------------

function setup_sort_default() {
  var r = rng(3);
  STATE.numbers = [];
  for (var i = 0; i < 100000; i++) STATE.numbers.push(Math.floor(r() * 1e6) / 8);
  return STATE.numbers.length;
}

function run_sort_default() {
  // Sorted as strings ("1.25" < "10" < "2"): each engine's ToString of a number, and its
  // comparisons.
  var a = STATE.numbers.slice().sort();
  return a[0] + ':' + a[49999] + ':' + a[99999] + ':' + a.length;
}

function setup_text_utf16() {
  STATE.textUtf16 = makeText(WORDS, 11);
  return STATE.textUtf16.length;
}

function run_text_utf16() {
  return textOps(STATE.textUtf16, ['lorem', 'consequat', 'caf\u00e9', ', ', 'zzz']);
}
