// Guest-side Intl, evaluated in the guest realm on first use (realm creation stays
// cheap). It runs as guest code and holds no host object: only the natives passed in,
// which take and return guest values (and, for `bridge`, plain data the host answers).
(function (natives) {
  'use strict';
  const { bridge } = natives;
  const define = (target, name, value) =>
    Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
  const brand = (C, tag) => Object.defineProperty(C.prototype, Symbol.toStringTag, { value: tag, configurable: true });

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
  return { Intl };
})
