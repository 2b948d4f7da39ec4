{
try { null.x } catch (e) { var a = [e.name, e.message, e instanceof TypeError] }
const agg = new AggregateError([new Error('a')], 'many', { cause: 1 }); label: for (;;) { for (;;) break label }
[a, agg.errors.length, agg.cause, new Error('x', { cause: 'y' }).cause, (() => { try { return 1 } finally { } })()]
}
