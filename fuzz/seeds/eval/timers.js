{
let n = 0; const id = setInterval(() => { if (++n > 3) clearInterval(id) }, 0);
setTimeout(() => { throw new Error('late') }, 0); queueMicrotask(() => { n += 10 }); Promise.reject(new TypeError('unhandled')); n
}
