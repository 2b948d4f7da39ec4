// Guest-side classes of the platform, evaluated once per realm before any guest code.
// They run as guest code: they hold no host object, only the natives passed in, which
// take and return guest values (and, for `bridge`, plain data the host answers).
(function (natives) {
  'use strict';
  const { encode, decode, bridge } = natives;
  const define = (target, name, value) =>
    Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
  const brand = (C, tag) => Object.defineProperty(C.prototype, Symbol.toStringTag, { value: tag, configurable: true });

  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input = '') { return encode(String(input)); }
    encodeInto(source, destination) {
      if (!(destination instanceof Uint8Array)) throw new TypeError('encodeInto needs a Uint8Array');
      const s = String(source);
      let read = 0;
      let written = 0;
      for (const ch of s) {
        const bytes = encode(ch);
        if (written + bytes.length > destination.length) break;
        destination.set(bytes, written);
        written += bytes.length;
        read += ch.length;
      }
      return { read, written };
    }
  }
  brand(TextEncoder, 'TextEncoder');

  const UTF8_LABELS = ['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8'];
  class TextDecoder {
    #fatal;
    #ignoreBOM;
    constructor(label = 'utf-8', options = {}) {
      const l = String(label).trim().toLowerCase();
      if (!UTF8_LABELS.includes(l)) throw new RangeError(`The encoding label provided ('${label}') is invalid.`);
      this.#fatal = Boolean(options && options.fatal);
      this.#ignoreBOM = Boolean(options && options.ignoreBOM);
    }
    get encoding() { return 'utf-8'; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input, options) {
      if (options && options.stream) throw new TypeError('streaming decode is not supported');
      return decode(input, this.#fatal, this.#ignoreBOM);
    }
  }
  brand(TextDecoder, 'TextDecoder');

  define(globalThis, 'TextEncoder', TextEncoder);
  define(globalThis, 'TextDecoder', TextDecoder);

  if (typeof bridge !== 'function') return;

  // ---------------------------------------------------------------- URL

  const parse = (input, base) => bridge('url.parse', [String(input), base === undefined ? null : String(base)]);
  // Symbols only this closure holds: the guest cannot call these internal methods.
  const SET_SEARCH = Symbol('setSearch');
  const RESET = Symbol('reset');

  class URLSearchParams {
    #list;
    #url;
    constructor(init = '', url = undefined) {
      this.#url = url;
      if (init instanceof URLSearchParams) this.#list = init.#list.map(([k, v]) => [k, v]);
      else if (typeof init === 'object' && init !== null && typeof init[Symbol.iterator] === 'function') {
        this.#list = [];
        for (const pair of init) {
          const p = [...pair];
          if (p.length !== 2) throw new TypeError("Failed to construct 'URLSearchParams': Each query pair must be an iterable [name, value] tuple");
          this.#list.push([String(p[0]), String(p[1])]);
        }
      } else if (typeof init === 'object' && init !== null) {
        this.#list = Object.keys(init).map((k) => [k, String(init[k])]);
      } else {
        let s = String(init);
        if (s.startsWith('?')) s = s.slice(1);
        this.#list = bridge('params.parse', [s]);
      }
    }
    static [RESET](params, search) {
      let s = search;
      if (s.startsWith('?')) s = s.slice(1);
      params.#list = bridge('params.parse', [s]);
    }
    #update() {
      if (this.#url) this.#url[SET_SEARCH](this.toString());
    }
    get size() { return this.#list.length; }
    append(name, value) { this.#list.push([String(name), String(value)]); this.#update(); }
    delete(name, value) {
      const n = String(name);
      const v = value === undefined ? undefined : String(value);
      this.#list = this.#list.filter(([k, x]) => !(k === n && (v === undefined || x === v)));
      this.#update();
    }
    get(name) { const n = String(name); const e = this.#list.find(([k]) => k === n); return e ? e[1] : null; }
    getAll(name) { const n = String(name); return this.#list.filter(([k]) => k === n).map(([, v]) => v); }
    has(name, value) {
      const n = String(name);
      const v = value === undefined ? undefined : String(value);
      return this.#list.some(([k, x]) => k === n && (v === undefined || x === v));
    }
    set(name, value) {
      const n = String(name);
      const v = String(value);
      const i = this.#list.findIndex(([k]) => k === n);
      if (i < 0) this.#list.push([n, v]);
      else this.#list = this.#list.filter(([k], j) => k !== n || j === i).map((e, j) => (e[0] === n ? [n, v] : e));
      this.#update();
    }
    sort() {
      this.#list = this.#list
        .map((e, i) => [e, i])
        .sort(([a, i], [b, j]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : i - j))
        .map(([e]) => e);
      this.#update();
    }
    forEach(callback, thisArg) { for (const [k, v] of this.#list) callback.call(thisArg, v, k, this); }
    *entries() { for (const [k, v] of this.#list) yield [k, v]; }
    *keys() { for (const [k] of this.#list) yield k; }
    *values() { for (const [, v] of this.#list) yield v; }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return bridge('params.serialize', [this.#list]); }
  }
  brand(URLSearchParams, 'URLSearchParams');

  class URL {
    #r;
    #params = null;
    constructor(url, base) {
      const r = parse(url, base);
      if (r === null) throw new TypeError("Failed to construct 'URL': Invalid URL");
      this.#r = r;
    }
    static canParse(url, base) { return parse(url, base) !== null; }
    static parse(url, base) { const r = parse(url, base); return r === null ? null : new URL(r.href); }
    #set(field, value) {
      const r = bridge('url.set', [this.#r.href, field, String(value)]);
      if (r === null) {
        if (field === 'href') throw new TypeError("Failed to set the 'href' property on 'URL': Invalid URL");
        return;
      }
      this.#r = r;
      if (this.#params && field !== 'hash') URLSearchParams[RESET](this.#params, r.search);
    }
    [SET_SEARCH](search) {
      const r = bridge('url.set', [this.#r.href, 'search', search]);
      if (r !== null) this.#r = r;
    }
    get searchParams() { return (this.#params ??= new URLSearchParams(this.#r.search, this)); }
    get href() { return this.#r.href; }
    set href(v) { this.#set('href', v); }
    get origin() { return this.#r.origin; }
    get protocol() { return this.#r.protocol; }
    set protocol(v) { this.#set('protocol', v); }
    get username() { return this.#r.username; }
    set username(v) { this.#set('username', v); }
    get password() { return this.#r.password; }
    set password(v) { this.#set('password', v); }
    get host() { return this.#r.host; }
    set host(v) { this.#set('host', v); }
    get hostname() { return this.#r.hostname; }
    set hostname(v) { this.#set('hostname', v); }
    get port() { return this.#r.port; }
    set port(v) { this.#set('port', v); }
    get pathname() { return this.#r.pathname; }
    set pathname(v) { this.#set('pathname', v); }
    get search() { return this.#r.search; }
    set search(v) { this.#set('search', v); }
    get hash() { return this.#r.hash; }
    set hash(v) { this.#set('hash', v); }
    toString() { return this.#r.href; }
    toJSON() { return this.#r.href; }
  }
  brand(URL, 'URL');

  define(globalThis, 'URL', URL);
  define(globalThis, 'URLSearchParams', URLSearchParams);

  // ---------------------------------------------------------------- Intl
  // Every operation is answered by the host engine's own Intl, with data only: locales and
  // options are cloned out, strings and plain records come back.

  const locales = (l) => (l === undefined ? undefined : typeof l === 'string' ? l : [...l].map(String));
  const opts = (o) => {
    if (o === undefined || o === null) return undefined;
    if (typeof o !== 'object') throw new TypeError('options must be an object');
    const out = {};
    for (const k in o) {
      const v = o[k];
      if (v !== undefined && typeof v !== 'function' && typeof v !== 'symbol') out[k] = typeof v === 'object' && v !== null ? String(v) : v;
    }
    return out;
  };
  const intl = (kind, l, o, method, args) => bridge('intl.call', [kind, l, o, method, args]);

  const makeIntl = (kind, methods, bound) => {
    const C = {
      [kind]: class {
        #l;
        #o;
        #resolved;
        #bound = null;
        constructor(l, o) {
          this.#l = locales(l);
          this.#o = opts(o);
          this.#resolved = bridge('intl.new', [kind, this.#l, this.#o]);
        }
        static supportedLocalesOf(l, o) { return bridge('intl.supported', [kind, locales(l), opts(o)]); }
        resolvedOptions() { return { ...this.#resolved }; }
        static call(self, method, args) { return intl(kind, self.#l, self.#o, method, args); }
        static bound(self) { return (self.#bound ??= (...a) => intl(kind, self.#l, self.#o, bound, a.slice(0, 2).map(prep(kind)))); }
      },
    }[kind];
    const call = C.call;
    const boundOf = C.bound;
    delete C.call;
    delete C.bound;
    for (const m of methods) {
      define(C.prototype, m, function (...a) { return call(this, m, a.map(prep(kind))); });
    }
    if (bound) Object.defineProperty(C.prototype, bound, { get() { return boundOf(this); }, configurable: true });
    brand(C, `Intl.${kind}`);
    return C;
  };
  // Dates cross as time values; everything else as itself.
  const prep = (kind) => (v) => (kind === 'DateTimeFormat' ? (v === undefined ? Date.now() : +v) : v);

  const Intl = {};
  define(Intl, 'NumberFormat', makeIntl('NumberFormat', ['formatToParts', 'formatRange'], 'format'));
  define(Intl, 'DateTimeFormat', makeIntl('DateTimeFormat', ['formatToParts', 'formatRange'], 'format'));
  define(Intl, 'PluralRules', makeIntl('PluralRules', ['select'], null));
  define(Intl, 'Collator', makeIntl('Collator', [], 'compare'));
  define(Intl, 'RelativeTimeFormat', makeIntl('RelativeTimeFormat', ['format', 'formatToParts'], null));
  define(Intl, 'ListFormat', makeIntl('ListFormat', ['format', 'formatToParts'], null));
  define(Intl, 'getCanonicalLocales', (l) => bridge('intl.canonical', [locales(l)]));
  Object.defineProperty(Intl, Symbol.toStringTag, { value: 'Intl', configurable: true });
  define(globalThis, 'Intl', Intl);

  // The locale-sensitive builtins, answered by the host's own implementations.
  const thisNumber = Number.prototype.valueOf;
  const thisBigInt = BigInt.prototype.valueOf;
  const thisTime = Date.prototype.getTime;
  define(Number.prototype, 'toLocaleString', function toLocaleString(l, o) {
    return bridge('intl.value', ['number', thisNumber.call(this), locales(l), opts(o)]);
  });
  define(BigInt.prototype, 'toLocaleString', function toLocaleString(l, o) {
    return bridge('intl.value', ['number', thisBigInt.call(this), locales(l), opts(o)]);
  });
  for (const m of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
    define(Date.prototype, m, { [m](l, o) { return bridge('intl.value', [m, thisTime.call(this), locales(l), opts(o)]); } }[m]);
  }
  define(String.prototype, 'localeCompare', function localeCompare(that, l, o) {
    if (this === null || this === undefined) throw new TypeError('String.prototype.localeCompare called on null or undefined');
    return bridge('intl.value', ['localeCompare', String(this), locales(l), opts(o), String(that)]);
  });
  for (const m of ['toLocaleUpperCase', 'toLocaleLowerCase']) {
    define(String.prototype, m, { [m](l) {
      if (this === null || this === undefined) throw new TypeError(`String.prototype.${m} called on null or undefined`);
      return bridge('intl.value', [m, String(this), locales(l)]);
    } }[m]);
  }
})
