// same(a, b): '' when a and b have the same structure — prototypes, own keys in order with
// their attributes, values (Object.is), Map/Set order, dates, regexps, bytes, views and
// which objects are shared — else where they first differ. `stack` is not compared: the
// guest's and the host's differ by design.
(() => {
  const tag = (v) => Object.prototype.toString.call(v);
  const BOXED = ['[object Boolean]', '[object Number]', '[object String]', '[object BigInt]'];
  return function same(a, b) {
    const pairs = new Map();
    const go = (a, b, path) => {
      if (typeof a !== typeof b) return `${path}: ${typeof a} vs ${typeof b}`;
      if (a === null || typeof a !== 'object') return Object.is(a, b) ? '' : `${path}: ${String(a)} vs ${String(b)}`;
      if (b === null) return `${path}: object vs null`;
      if (pairs.has(a)) return pairs.get(a) === b ? '' : `${path}: shared differently`;
      pairs.set(a, b);
      if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: prototypes differ (${tag(a)} vs ${tag(b)})`;
      if (tag(a) !== tag(b)) return `${path}: ${tag(a)} vs ${tag(b)}`;
      if (Array.isArray(a) && a.length !== b.length) return `${path}: length ${a.length} vs ${b.length}`;
      if (a instanceof Date && !Object.is(a.getTime(), b.getTime())) return `${path}: time ${a.getTime()} vs ${b.getTime()}`;
      if (a instanceof RegExp && (a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex)) return `${path}: ${a} vs ${b}`;
      if (BOXED.includes(tag(a)) && !Object.is(a.valueOf(), b.valueOf())) return `${path}: boxed ${a.valueOf()} vs ${b.valueOf()}`;
      if (a instanceof ArrayBuffer) {
        if (a.byteLength !== b.byteLength) return `${path}: byteLength ${a.byteLength} vs ${b.byteLength}`;
        const x = new Uint8Array(a), y = new Uint8Array(b);
        for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return `${path}: byte ${i}`;
      }
      if (ArrayBuffer.isView(a)) {
        if (a.byteOffset !== b.byteOffset || a.byteLength !== b.byteLength) return `${path}: view window`;
        const d = go(a.buffer, b.buffer, `${path}.buffer`);
        if (d) return d;
      }
      if (a instanceof Map || a instanceof Set) {
        const ea = [...a.entries()], eb = [...b.entries()];
        if (ea.length !== eb.length) return `${path}: size ${ea.length} vs ${eb.length}`;
        for (let i = 0; i < ea.length; i++) {
          const d = go(ea[i][0], eb[i][0], `${path}<${i}>.key`) || go(ea[i][1], eb[i][1], `${path}<${i}>.value`);
          if (d) return d;
        }
      }
      const own = (o) => Reflect.ownKeys(o).filter((k) => k !== 'stack');
      const ka = own(a), kb = own(b);
      if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return `${path}: keys [${ka.map(String)}] vs [${kb.map(String)}]`;
      for (const k of ka) {
        const da = Object.getOwnPropertyDescriptor(a, k), db = Object.getOwnPropertyDescriptor(b, k);
        for (const f of ['enumerable', 'writable', 'configurable', 'get', 'set']) {
          if (da[f] !== db[f]) return `${path}.${String(k)}: ${f} differs`;
        }
        if (ArrayBuffer.isView(a)) continue; // elements: compared through the buffer
        const d = go(da.value, db.value, `${path}.${String(k)}`);
        if (d) return d;
      }
      return '';
    };
    return go(a, b, '$');
  };
})()
