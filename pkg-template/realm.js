// The synchronous Realm (seed-002 shape) over the wasm engine. Usable on any thread once
// `init()` has resolved; inside workers it is the engine of the compartment tier.
//
// Crash containment: anything other than a SandboxError escaping the wasm (a trap, a stack
// overflow, an abort) means the instance is dead. We reset it, fail every realm of the dead
// generation with SANDBOX_TERMINATED (reason 'crashed'), and serve new realms from a fresh
// instance. A dead instance is never reused.

import initWasm, { initSync as initWasmSync, RawRealm, __wbg_reset_state, isTrustedToken } from './isolated_realm.js';
import { SandboxError, isErrorData } from './errors.js';

/** The engine built for speed: what `init()` loads by default. */
export const WASM_URL = new URL('./isolated_realm_bg.wasm', import.meta.url);
/** The same engine built for size: `init(SMALL_WASM_URL)`. */
export const SMALL_WASM_URL = new URL('./isolated_realm_small_bg.wasm', import.meta.url);

let generation = 0;
let ready = false;

/** Loads and instantiates the engine. Pass a compiled `WebAssembly.Module` to skip the fetch. */
export async function init(moduleOrPath) {
  if (ready) return;
  await initWasm(moduleOrPath === undefined ? undefined : { module_or_path: moduleOrPath });
  ready = true;
}

/** Synchronous init from a compiled `WebAssembly.Module` (e.g. one posted to a worker). */
export function initSync(module) {
  if (ready) return;
  initWasmSync({ module });
  ready = true;
}

function terminated(reason, message) {
  return new SandboxError({ code: 'SANDBOX_TERMINATED', reason, message: `${message} [SANDBOX_TERMINATED]` });
}

function rethrow(e) {
  if (isErrorData(e)) throw new SandboxError(e);
  // Not ours: the instance trapped. Never run anything on it again.
  generation++;
  try {
    __wbg_reset_state();
  } catch (resetError) {
    ready = false;
  }
  const detail = e && typeof e.message === 'string' ? e.message : String(e);
  throw terminated('crashed', `the engine instance crashed (${detail}); this realm's state is gone, new realms use a fresh instance`);
}

const setTimer = globalThis.setTimeout.bind(globalThis);
const clearTimer = globalThis.clearTimeout.bind(globalThis);

export class Realm extends EventTarget {
  #raw;
  #generation;
  #timer = null;

  /**
   * @param {{handler?: Function, exposeHandlerAs?: string, allowCodeGeneration?: boolean,
   *          limits?: object}} [options]
   */
  constructor(options) {
    if (!ready) {
      throw new SandboxError({ code: 'SANDBOX_INVALID_OPTIONS', option: 'init',
        message: 'call `await init()` before creating a Realm [SANDBOX_INVALID_OPTIONS]' });
    }
    super();
    this.#generation = generation;
    try {
      this.#raw = new RawRealm(options);
    } catch (e) {
      rethrow(e);
    }
  }

  #run(fn) {
    if (this.#generation !== generation) {
      throw terminated('crashed', 'the engine instance this realm lived in crashed; its state is gone');
    }
    try {
      return fn(this.#raw);
    } catch (e) {
      rethrow(e);
    } finally {
      if (this.#generation === generation) this.#afterEntry();
    }
  }

  // Delivers the guest's reports as events and schedules its timers on this thread.
  #afterEntry() {
    const raw = this.#raw;
    for (const r of raw.takeReports()) {
      const detail = r.kind === 'console' ? { level: r.level, args: r.args }
        : r.kind === 'console-dropped' ? { level: 'warn', args: [`${r.count} console messages dropped by the rate limit`], dropped: r.count }
          : new SandboxError(r.error);
      this.dispatchEvent(new CustomEvent(r.kind === 'console-dropped' ? 'console' : r.kind, { detail }));
    }
    if (this.#timer !== null) clearTimer(this.#timer);
    this.#timer = null;
    const ms = raw.disposed ? -1 : raw.nextTimerMs();
    if (ms >= 0) {
      this.#timer = setTimer(() => {
        this.#timer = null;
        try { this.#run((r) => r.runTimers()); } catch (e) { this.dispatchEvent(new CustomEvent('error', { detail: e })); }
      }, ms);
    }
  }

  /** Evaluates a script; returns a structured clone of its completion value. */
  eval(source, options) {
    return this.#run((raw) => raw.eval(source, options));
  }

  /** Defines global `name` in the guest as a structured clone of `value`. */
  set(name, value) {
    this.#run((raw) => raw.set(name, value));
  }

  /** Calls guest global function `name` with cloned arguments; returns a clone of the result. */
  call(name, ...args) {
    return this.#run((raw) => raw.call(name, args));
  }

  /** Frees the engine. Later calls throw SANDBOX_DISPOSED. Idempotent. */
  dispose() {
    if (this.#generation !== generation) return;
    if (this.#timer !== null) clearTimer(this.#timer);
    this.#timer = null;
    this.#run((raw) => raw.dispose());
  }

  get disposed() {
    return this.#generation !== generation || this.#run((raw) => raw.disposed);
  }
}

export { SandboxError, isTrustedToken };
