{
function* g(n) { for (let i = 0; i < n; i++) { const r = yield i; if (r) return r } }
const it = g(5); const out = [...g(3)]; it.next(); it.next(7); out.push(...Array.from({ length: 3 }, (_, i) => i * i)); out
}
