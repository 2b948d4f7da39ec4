{
async function f(x) { await null; return x * 2 }
async function* ag() { yield 1; yield await f(2) }
(async () => { const r = []; for await (const v of ag()) r.push(v); r.push(await Promise.all([f(1), f(2)]), await Promise.allSettled([Promise.reject(1)])); return r })()
}
