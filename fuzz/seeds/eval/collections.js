{
const m = new Map([[NaN, 1], [-0, 2], [{}, 3]]); const s = new Set([1, 1, '1', NaN, NaN]); const w = new WeakMap(); const k = {}; w.set(k, 1);
[m.get(NaN), m.get(0), s.size, [...s], w.has(k), Object.groupBy([1, 2, 3], (x) => (x % 2 ? 'odd' : 'even')), new Set([1, 2]).union(new Set([3]))]
}
