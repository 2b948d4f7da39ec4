{
const { a = 1, ...rest } = { b: 2, c: 3 }; const [x, , ...ys] = 'hello'; const sym = Symbol.for('k');
const o = { [sym]: 1, get g() { return 2 }, __proto__: { inherited: true }, 10n: 'big' };
[a, rest, x, ys, o.g, o.inherited, 2n ** 64n, BigInt.asIntN(8, 255n), 0.1 + 0.2, Number.parseFloat('1e-7'), (123.456).toFixed(1), Math.max(...[1, 5, 3]), typeof globalThis, new Date(0).toISOString(), structuredClone(new Map([[1, { a: [1] }]]))]
}
