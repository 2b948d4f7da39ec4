// A small, dependency-free pretty printer for structured-clone values, in the spirit of
// Node's util.inspect: Map(2) { 1 => 'a' }, Set(1) { 'x' }, Uint8Array(3) [ 1, 2, 3 ],
// <ref *1> { self: [Circular *1] }. Returns plain text; the page colours it separately.

const WIDTH = 64;
const INDENT = '  ';
const MAX_ITEMS = 100;
const IDENT = /^[A-Za-z_$][\w$]*$/;

export function format(value) {
  const state = { stack: [], refs: new Map(), next: 1 };
  return fmt(value, state);
}

function quote(s) {
  return "'" + s.replace(/[\\'\n\r\t\u2028\u2029]/g, (c) => ({
    '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t',
    '\u2028': '\\u2028', '\u2029': '\\u2029',
  })[c]) + "'";
}

function key(k) {
  if (typeof k === 'string') return IDENT.test(k) ? k : quote(k);
  return String(k);
}

function fmtPrimitive(v) {
  switch (typeof v) {
    case 'string': return quote(v);
    case 'number': return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint': return `${v}n`;
    case 'undefined': return 'undefined';
    case 'boolean': return String(v);
    case 'symbol': return v.toString();
    case 'function': return `[Function ${v.name || '(anonymous)'}]`;
    default: return v === null ? 'null' : String(v);
  }
}

function wrap(prefix, open, items, close, more) {
  if (more > 0) items = [...items, `... ${more} more item${more === 1 ? '' : 's'}`];
  if (items.length === 0) return `${prefix}${open}${close}`;
  const flat = `${prefix}${open} ${items.join(', ')} ${close}`;
  if (flat.length <= WIDTH && !flat.includes('\n')) return flat;
  const body = items.map((s) => INDENT + s.replace(/\n/g, '\n' + INDENT)).join(',\n');
  return `${prefix}${open}\n${body}\n${close}`;
}

function fmt(v, state) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return fmtPrimitive(v);
  if (typeof v === 'function') return fmtPrimitive(v);

  if (state.stack.includes(v)) {
    if (!state.refs.has(v)) state.refs.set(v, state.next++);
    return `[Circular *${state.refs.get(v)}]`;
  }

  const tag = Object.prototype.toString.call(v).slice(8, -1);
  if (v instanceof Date) return `Date(${Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString()})`;
  if (v instanceof RegExp) return String(v);
  if (typeof v === 'object' && (tag === 'Boolean' || tag === 'Number' || tag === 'String' || tag === 'BigInt')) {
    return `[${tag}: ${fmtPrimitive(v.valueOf())}]`;
  }

  state.stack.push(v);
  let out;
  try {
    out = fmtObject(v, tag, state);
  } finally {
    state.stack.pop();
  }
  if (state.refs.has(v)) out = `<ref *${state.refs.get(v)}> ${out}`;
  return out;
}

function fmtObject(v, tag, state) {
  if (v instanceof Map) {
    const items = [];
    for (const [k, val] of v) {
      if (items.length >= MAX_ITEMS) break;
      items.push(`${fmt(k, state)} => ${fmt(val, state)}`);
    }
    return wrap(`Map(${v.size}) `, '{', items, '}', v.size - items.length);
  }
  if (v instanceof Set) {
    const items = [];
    for (const val of v) {
      if (items.length >= MAX_ITEMS) break;
      items.push(fmt(val, state));
    }
    return wrap(`Set(${v.size}) `, '{', items, '}', v.size - items.length);
  }
  if (Array.isArray(v)) {
    const items = [];
    const n = Math.min(v.length, MAX_ITEMS);
    for (let i = 0; i < n; i++) items.push(i in v ? fmt(v[i], state) : '<empty>');
    return wrap('', '[', items, ']', v.length - n);
  }
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    const n = Math.min(v.length, MAX_ITEMS);
    const items = [];
    for (let i = 0; i < n; i++) items.push(fmtPrimitive(v[i]));
    return wrap(`${tag}(${v.length}) `, '[', items, ']', v.length - n);
  }
  if (v instanceof DataView) return `DataView { byteLength: ${v.byteLength}, byteOffset: ${v.byteOffset} }`;
  if (v instanceof ArrayBuffer) {
    const bytes = new Uint8Array(v, 0, Math.min(v.byteLength, 32));
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');
    return `ArrayBuffer { byteLength: ${v.byteLength}${hex ? `, <${hex}${v.byteLength > 32 ? ' ...' : ''}>` : ''} }`;
  }
  if (v instanceof Error) {
    const head = `${v.name || 'Error'}: ${v.message}`;
    const extra = Object.keys(v).filter((k) => k !== 'stack' && k !== 'message');
    if (!extra.length) return `[${head}]`;
    return wrap(`[${head}] `, '{', extra.map((k) => `${key(k)}: ${fmt(v[k], state)}`), '}', 0);
  }

  const keys = Object.keys(v);
  const items = keys.slice(0, MAX_ITEMS).map((k) => `${key(k)}: ${fmt(v[k], state)}`);
  const proto = Object.getPrototypeOf(v);
  const prefix = proto === null ? '[Object: null prototype] ' : '';
  return wrap(prefix, '{', items, '}', keys.length - items.length);
}

// Splits formatted text into [text, className] runs for colouring. Purely cosmetic.
const TOKENS = new RegExp([
  /(?<=(?:^|[{,\n])\s*)('(?:[^'\\\n]|\\.)*'|[A-Za-z_$][\w$]*)(?=: )/.source, // 1 key
  /('(?:[^'\\\n]|\\.)*')/.source, // 2 string
  /(<ref \*\d+>|\[Circular \*\d+\])/.source, // 3 reference
  /(Date\([^)]*\))/.source, // 4 date
  /\b(undefined|null|true|false)\b/.source, // 5 keyword
  /(-?\b\d[\d.]*(?:e[+-]?\d+)?n?\b|\bNaN\b|-?\bInfinity\b)/.source, // 6 number
  /\b(Map|Set|ArrayBuffer|DataView|[A-Z]\w*Array|[A-Z]\w*Error)\b/.source, // 7 type
].join('|'), 'g');
const CLASSES = [null, 'tok-key', 'tok-str', 'tok-ref', 'tok-date', 'tok-kw', 'tok-num', 'tok-type'];

export function tokens(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(TOKENS)) {
    if (m.index > last) out.push([text.slice(last, m.index), '']);
    out.push([m[0], CLASSES[m.findIndex((g, i) => i > 0 && g !== undefined)]]);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push([text.slice(last), '']);
  return out;
}
