// Native V8: the same workload source, imported as a module (no string compilation).
import * as W from '/workloads.mjs';
import { serveEngine } from './driver.js';

// Cards: src/cards/runtime.js as a module (/cards-gen/runtime.mjs, made by server.mjs from
// the file's text) and the card module with its card-API import pointed at it.
let cardRuntime = null;
const cardModules = {};

serveEngine({
  async start() {},
  load() {},
  eval(src) {
    // The only eval'd text is the cold-start probe '40 + 2'; V8 runs the same sum natively.
    if (src !== '40 + 2') throw new Error('native V8 does not compile strings under this CSP');
    return W.add(40, 2);
  },
  call(name, ...args) {
    return W[name](...args);
  },
  boundary(model) {
    return structuredClone(W.identity(structuredClone(model)));
  },
  newRealm() {
    throw new Error('n/a');
  },
  async cardsLoad(url) {
    cardRuntime ??= (await import('/cards-gen/runtime.mjs')).default;
    const name = new URL(url).pathname.split('/').pop().replace(/\.js$/, '');
    cardModules[url] = await import(`/cards-gen/${name}.mjs`);
    return Object.keys(cardModules[url]);
  },
  cardsCall(op, args) {
    if (op === 'create') {
      const [url, name, data] = args;
      return cardRuntime.ops.create(cardModules[url], { module: url, name }, data);
    }
    return cardRuntime.ops[op](...args);
  },
  softStop(source) {
    // No soft stop in plain V8: only worker.terminate() from the page can stop it.
    if (source.includes('while')) throw new Error('n/a');
    const t = performance.now();
    const value = /^(a+)+$/.test('a'.repeat(40) + 'b');
    return { ms: performance.now() - t, error: null, value };
  },
});
