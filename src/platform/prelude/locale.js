// The locale-sensitive builtins (toLocaleString, localeCompare, ...), answered by the host
// engine's own implementations through the data-only bridge. Small, so installed eagerly.
(function (natives) {
  'use strict';
  const { bridge } = natives;
  const define = (target, name, value) =>
    Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
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
