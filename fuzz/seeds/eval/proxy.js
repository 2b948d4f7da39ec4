{
const log = []; const p = new Proxy({ a: 1 }, { get(t, k, r) { log.push(String(k)); return Reflect.get(t, k, r) }, has(t, k) { return k === 'z' || k in t }, ownKeys(t) { return ['a', 'b'] }, getOwnPropertyDescriptor(t, k) { return { value: 1, enumerable: true, configurable: true } } });
[p.a, 'z' in p, Object.keys(p), JSON.stringify(p), log]
}
