// Guest-side URL and URLSearchParams, evaluated in the guest realm on first use (realm creation stays
// cheap). It runs as guest code and holds no host object: only the natives passed in,
// which take and return guest values (and, for `bridge`, plain data the host answers).
(function (natives) {
  'use strict';
  const { bridge } = natives;
  const define = (target, name, value) =>
    Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
  const brand = (C, tag) => Object.defineProperty(C.prototype, Symbol.toStringTag, { value: tag, configurable: true });

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

  return { URL, URLSearchParams };
})
