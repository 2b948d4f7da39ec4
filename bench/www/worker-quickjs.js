// quickjs-emscripten (release-sync variant) inside a dedicated module worker. Values cross
// the way quickjs-emscripten users usually do it: numbers and strings as handles, objects as
// JSON (in through the guest's JSON.parse, out through context.dump).
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC, shouldInterruptAfterDeadline } from '/nm/quickjs-emscripten/dist/index.mjs';
import { serveEngine, Capped, CAP_MS, CARD_API, CARD_GLUE, fetchText } from './driver.js';

let QuickJS = null;
let rt = null;
let vm = null;
let jsonParse = null;

function arm(ms) {
  rt.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + ms));
}

function toHandle(v) {
  if (typeof v === 'number') return vm.newNumber(v);
  if (typeof v === 'string') return vm.newString(v);
  if (v === undefined) return vm.undefined;
  const s = vm.newString(JSON.stringify(v));
  const h = vm.unwrapResult(vm.callFunction(jsonParse, vm.undefined, s));
  s.dispose();
  return h;
}

function settle(result) {
  if (result.error) {
    const e = vm.dump(result.error);
    result.error.dispose();
    const message = e && typeof e === 'object' ? `${e.name}: ${e.message}` : String(e);
    if (e && e.name === 'InternalError' && /interrupted/.test(e.message)) throw new Capped(message);
    throw new Error(message);
  }
  const v = vm.dump(result.value);
  result.value.dispose();
  return v;
}

function call(name, ...args) {
  arm(CAP_MS);
  const fn = vm.getProp(vm.global, name);
  const handles = args.map(toHandle);
  const result = vm.callFunction(fn, vm.undefined, ...handles);
  fn.dispose();
  for (const h of handles) if (h !== vm.undefined) h.dispose();
  return settle(result);
}

serveEngine({
  async start(module) {
    QuickJS = await newQuickJSWASMModule(module ? newVariant(RELEASE_SYNC, { wasmModule: module }) : RELEASE_SYNC);
    rt = QuickJS.newRuntime();
    vm = rt.newContext();
    const json = vm.getProp(vm.global, 'JSON');
    jsonParse = vm.getProp(json, 'parse');
    json.dispose();
  },
  load(src) {
    arm(CAP_MS);
    settle(vm.evalCode(src, 'workloads.js'));
  },
  eval(src) {
    arm(CAP_MS);
    return settle(vm.evalCode(src));
  },
  call,
  boundary(model) {
    return call('identity', model);
  },
  newRealm(withEval) {
    const ctx = QuickJS.newContext();
    if (withEval) ctx.unwrapResult(ctx.evalCode('40 + 2')).dispose();
    return () => ctx.dispose();
  },
  // Cards: runtime.js evaluated as a script; the card module evaluated as a module, its
  // card-API import answered by the module loader from the evaluated runtime's `api`.
  async cardsLoad(url) {
    const [runtime, source] = await Promise.all([fetchText('/cards-gen/runtime.js'), fetchText(url)]);
    arm(CAP_MS);
    settle(vm.evalCode(`globalThis.__cardRuntime = ${runtime}\n;undefined`, 'runtime.js', { type: 'global' }));
    const names = settle(vm.evalCode('Object.keys(globalThis.__cardRuntime.api)', 'names.js', { type: 'global' }));
    rt.setModuleLoader((spec) => (spec === CARD_API
      ? `export const { ${names.join(', ')} } = globalThis.__cardRuntime.api;`
      : { error: new Error(`no module ${spec}`) }));
    const result = vm.evalCode(source, url, { type: 'module' });
    if (result.error) settle(result);
    rt.executePendingJobs();
    // The result is the module's namespace, or a promise of it.
    const state = vm.getPromiseState(result.value);
    if (state.type === 'fulfilled') {
      vm.setProp(vm.global, '__cardNs', state.value);
      if (state.value !== result.value) state.value.dispose();
    }
    result.value.dispose();
    if (state.type === 'rejected') settle({ error: state.error });
    if (state.type !== 'fulfilled') throw new Error(`${url}: the module did not finish evaluating`);
    settle(vm.evalCode(`(globalThis.__cardModules || (globalThis.__cardModules = {}))[${JSON.stringify(url)}] = globalThis.__cardNs; delete globalThis.__cardNs; undefined`, 'ns.js', { type: 'global' }));
    settle(vm.evalCode(CARD_GLUE, 'glue.js', { type: 'global' }));
    return settle(vm.evalCode(`Object.keys(globalThis.__cardModules[${JSON.stringify(url)}])`, 'names.js', { type: 'global' }));
  },
  cardsCall(op, args) {
    return call(`__cards_${op}`, ...args);
  },
  softStop(source, timeoutMs) {
    const r = QuickJS.newRuntime();
    const ctx = r.newContext();
    r.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeoutMs));
    const t = performance.now();
    const result = ctx.evalCode(source);
    const ms = performance.now() - t;
    let error = null;
    if (result.error) {
      const e = ctx.dump(result.error);
      error = e && typeof e === 'object' ? `${e.name}: ${e.message}` : String(e);
      result.error.dispose();
    } else {
      result.value.dispose();
    }
    ctx.dispose();
    r.dispose();
    return { ms, error };
  },
});
