// The compartment tier's main-thread client (API docs: index.d.ts). A worker per principal;
// a worker that does not answer by deadline + grace is killed and respawned on next use.

import { SandboxError, isErrorData } from './errors.js';

// Captured at load, so later page code cannot swap what the client relies on.
const { Worker, WebAssembly: Wasm, fetch: fetchFn } = globalThis;
const setTimer = globalThis.setTimeout.bind(globalThis);
const clearTimer = globalThis.clearTimeout.bind(globalThis);
const now = () => performance.now();

/** The engine built for speed: the default. */
export const WASM_URL = new URL('./isolated_realm_bg.wasm', import.meta.url);
/** The same engine built for size: smaller download and compile, slower guest code. */
export const SMALL_WASM_URL = new URL('./isolated_realm_small_bg.wasm', import.meta.url);
const V = 1;

const POOL_OPTIONS = ['maxWorkers', 'idleTimeoutMs', 'graceMs', 'memoryLimitMb', 'maxInFlight', 'maxSourceLength', 'wasm', 'credentials', 'fetchTimeoutMs', 'asyncTimeoutMs', 'spareAfterKill'];
const CREATE_OPTIONS = ['principal', 'handler', 'exposeHandlerAs', 'allowCodeGeneration', 'limits', 'modules', 'pool', 'onModelPatch'];
const FORMATS = ['isolated', 'embedded', 'fitted', 'edit', 'atom'];
const PATCH_ATTEMPTS = 3;
const RUNTIME_FILE = 'isolated-realm:card-runtime';
const DEFAULT_TIMEOUT_MS = 1000;

function fail(code, message, fields) {
  return new SandboxError({ code, message: `${message} [${code}]`, ...fields });
}

function invalid(option, why) {
  return fail('SANDBOX_INVALID_OPTIONS', `option \`${option}\` ${why}`, { option });
}

function checkKeys(bag, allowed, what) {
  if (bag === undefined) return {};
  if (bag === null || typeof bag !== 'object' || Array.isArray(bag)) throw invalid(what, 'must be a plain object');
  for (const key of Object.keys(bag)) {
    if (!allowed.includes(key)) throw invalid(key, `is not a known ${what} option`);
  }
  return bag;
}

function positive(value, name, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalid(name, 'must be a positive number');
  return value;
}

/** The path of the first value structured clone refuses, for SANDBOX_NOT_CLONEABLE. */
function uncloneablePath(value) {
  const seen = new Set();
  const walk = (v, path, depth) => {
    if (typeof v === 'function') return [path, 'function'];
    if (typeof v === 'symbol') return [path, 'symbol'];
    if (v === null || typeof v !== 'object' || seen.has(v) || depth > 1000) return null;
    seen.add(v);
    if (v instanceof Promise) return [path, 'Promise'];
    if (v instanceof WeakMap || v instanceof WeakSet) return [path, v.constructor.name];
    if (v instanceof Map) {
      let i = 0;
      for (const [k, x] of v) {
        const hit = walk(k, `${path}<key #${i}>`, depth + 1) || walk(x, `${path}<value #${i}>`, depth + 1);
        if (hit) return hit;
        i++;
      }
      return null;
    }
    if (v instanceof Set) {
      let i = 0;
      for (const x of v) {
        const hit = walk(x, `${path}<value #${i++}>`, depth + 1);
        if (hit) return hit;
      }
      return null;
    }
    for (const key of Object.keys(v)) {
      const seg = Array.isArray(v) && /^\d+$/.test(key) ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
      const hit = walk(v[key], path + seg, depth + 1);
      if (hit) return hit;
    }
    return null;
  };
  return walk(value, '$', 0);
}

export class TrustedToken {
  constructor(module, name) {
    this.module = module;
    this.export = name;
    Object.freeze(this);
  }
}

/** Replaces the worker's token records (objects whose only key is `key`) with TrustedTokens. */
function revive(value, key) {
  const memo = new Map(); // original -> replacement, so shared references stay shared
  const walk = (v) => {
    if (v === null || typeof v !== 'object') return v;
    if (memo.has(v)) return memo.get(v);
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === key && Array.isArray(v[key])) {
      const token = new TrustedToken(String(v[key][0]), String(v[key][1]));
      memo.set(v, token);
      return token;
    }
    memo.set(v, v);
    if (v instanceof Map) {
      for (const [k, x] of [...v]) { v.delete(k); v.set(walk(k), walk(x)); }
    } else if (v instanceof Set) {
      for (const x of [...v]) { v.delete(x); v.add(walk(x)); }
    } else {
      // defineProperty, not assignment: an own `__proto__` key must stay a plain key.
      for (const k of keys) Object.defineProperty(v, k, { value: walk(v[k]), writable: true, enumerable: true, configurable: true });
    }
    return v;
  };
  return walk(value);
}

/** The first guest frame of a Boa stack (`at f (url:line:col)`), skipping the card runtime. */
function guestLocation(stack) {
  for (const line of String(stack).split('\n')) {
    const m = /\(([^()]+):(\d+):(\d+)\)\s*$/.exec(line.trim());
    if (m && !m[1].startsWith('native') && m[1] !== RUNTIME_FILE) return { filename: m[1], line: Number(m[2]), column: Number(m[3]) };
  }
  return {};
}

/** A per-card failure inside renderMany, as the SandboxError a single render would throw. */
function cardError(e) {
  const name = String(e.name);
  const message = String(e.message);
  return new SandboxError({
    code: 'SANDBOX_GUEST_THREW',
    message: `guest threw ${name}: ${message} [SANDBOX_GUEST_THREW]`,
    guestName: name, guestMessage: message, guestStack: String(e.stack), ...guestLocation(e.stack),
  });
}

// A batch's answer comes from the card runtime, which runs with the guest's authority: a
// guest that broke the intrinsics it uses can make it answer anything. Fail closed on that.
function checkedBatch(out, n, op) {
  if (!Array.isArray(out) || out.length !== n || !out.every((r) => r !== null && typeof r === 'object')) {
    throw fail('SANDBOX_PROTOCOL', `the card runtime answered ${op} of ${n} with ${Array.isArray(out) ? `${out.length} entries, not all objects` : typeof out}; did guest code replace a builtin it uses?`);
  }
  return out;
}

// Module imports a batch of cards keeps in flight, well under the default `maxInFlight`.
const IMPORTS_AT_ONCE = 8;

// The requests `maxInFlight` caps, and how many of each compartment's are in flight.
const COUNTED = new Set(['eval', 'set', 'call', 'import', 'card']);
const inFlight = new WeakMap();

function typeRef(type) {
  if (type === null || typeof type !== 'object' || typeof type.module !== 'string' || typeof type.name !== 'string') {
    throw invalid('type', 'must be { module: url, name: exportName }');
  }
  return { module: type.module, name: type.name };
}

function format(f) {
  if (!FORMATS.includes(f)) throw invalid('format', `must be one of ${FORMATS.join(', ')}`);
  return f;
}

/** One worker, hosting the realms of one principal. */
class Slot {
  constructor(pool, principal) {
    this.pool = pool;
    this.principal = principal;
    this.compartments = new Map(); // realm id -> Compartment
    this.calls = new Map(); // request id -> { resolve, reject, timeoutMs, compartment }
    this.queue = []; // request ids in the order the worker will answer them
    this.watchdog = null;
    this.ticking = false;
    this.dead = null;
    this.memory = 0;
    this.lastUsed = now();
    // Trusted-export tokens come back under this key, which no guest ever sees.
    this.tokenKey = `token:${globalThis.crypto.randomUUID()}`;
    // Written out literally: bundlers (Vite, webpack) recognise exactly this shape and emit
    // the worker as a module of its own.
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: `isolated-realm:${principal ?? 'spare'}` });
    this.worker.onmessage = (e) => this.#receive(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      this.kill('crashed', `the worker failed: ${e.message || 'script error'}`);
    };
    // Requests go out as soon as `init` has: the worker reads its messages in order, so
    // the first create does not wait a round trip for `ready`. Deadlines start at `ready`.
    this.ready = false;
    this.initPosted = new Promise((resolve, reject) => {
      this.initResolve = resolve;
      this.initReject = reject;
    });
    this.initPosted.catch(() => {}); // a spare killed before any request: nobody waits
    // The first reaction: requests waiting on `initPosted` go before any made after this.
    this.initSent = false;
    this.initPosted.then(() => { this.initSent = true; }, () => {});
    pool.module().then((module) => {
      if (this.dead) return;
      this.worker.postMessage({ v: V, type: 'init', module, memoryLimitBytes: pool.memoryLimitBytes, tokenKey: this.tokenKey });
      this.#arm(DEFAULT_TIMEOUT_MS * 5, 'the worker did not start');
      this.initResolve();
    }, (e) => this.kill('crashed', `the engine could not be compiled: ${e && e.message}`));
  }

  /** Running or queued work (calls waiting on promises are not running). */
  get busy() {
    return this.queue.length > 0 || this.ticking;
  }

  /** Sends a request; resolves with its result. */
  request(message, compartment, timeoutMs) {
    if (this.dead) return Promise.reject(this.dead);
    const counted = COUNTED.has(message.type);
    // Per compartment, so siblings cannot starve each other; internal answers (settle,
    // provide) are never capped: refusing one would leave a guest promise waiting forever.
    // Counted as the request is made, so calls made in one go are capped too.
    if (counted && compartment) {
      const mine = inFlight.get(compartment) ?? 0;
      if (mine >= this.pool.maxInFlight) {
        return Promise.reject(fail('SANDBOX_LIMIT_EXCEEDED', `more than ${this.pool.maxInFlight} calls of this compartment are in flight`, { limit: 'maxInFlight' }));
      }
      inFlight.set(compartment, mine + 1);
    }
    const id = this.pool.nextId++;
    const envelope = { v: V, id, ...message };
    const send = (resolve, reject) => {
      if (this.dead) { reject(this.dead); return; }
      try {
        this.worker.postMessage(envelope);
      } catch (e) {
        const hit = uncloneablePath(message.value ?? message.args);
        reject(hit
          ? fail('SANDBOX_NOT_CLONEABLE', `${hit[0]} is a ${hit[1]}, which cannot be structured-cloned`, { path: hit[0], valueType: hit[1] })
          : fail('SANDBOX_NOT_CLONEABLE', `the value cannot be structured-cloned: ${e && e.message}`, {}));
        return;
      }
      this.lastUsed = now();
      this.calls.set(id, { resolve, reject, timeoutMs, compartment, counted, started: now() });
      this.queue.push(id);
      if (this.queue.length === 1) this.#armHead();
    };
    // Once `init` is out, a request goes at once; before, in order behind it.
    const answer = this.initSent ? new Promise(send) : this.initPosted.then(() => new Promise(send));
    if (!counted || !compartment) return answer;
    const release = () => inFlight.set(compartment, inFlight.get(compartment) - 1);
    return answer.then((v) => { release(); return v; }, (e) => { release(); throw e; });
  }

  #armHead() {
    if (this.ticking || !this.ready) return;
    const head = this.calls.get(this.queue[0]);
    if (!head) { this.#disarm(); return; }
    // Past its deadline a kill is likely: the spare starts then, on the same timer.
    const g = this.pool.graceMs;
    this.#arm(head.timeoutMs + g, 'it did not answer by its deadline plus grace', g >= 40 ? head.timeoutMs + g / 5 : null);
  }

  // One timer: when a spare is due first, the kill's timer is set when it starts. Setting
  // and clearing timers took a fifth of the page's time per call; this halves how many.
  #arm(ms, why, spareMs = null) {
    this.#disarm();
    const deadline = now() + ms;
    const kill = () => this.kill('timeout', `the worker was killed: ${why} (${Math.round(ms)} ms)`);
    this.watchdog = spareMs === null ? setTimer(kill, ms) : setTimer(() => {
      this.pool.prepareSpare();
      this.watchdog = setTimer(kill, Math.max(0, deadline - now()));
    }, spareMs);
  }

  #disarm() {
    if (this.watchdog !== null) clearTimer(this.watchdog);
    this.watchdog = null;
  }

  #finish(id) {
    const call = this.calls.get(id);
    if (!call) return null;
    this.calls.delete(id);
    if (call.waitTimer) clearTimer(call.waitTimer);
    const at = this.queue.indexOf(id);
    if (at >= 0) this.queue.splice(at, 1);
    if (at === 0) this.#armHead();
    call.compartment?.record(call.counted ? now() - call.started : null, this.memory);
    return call;
  }

  #receive(msg) {
    if (this.dead || msg === null || typeof msg !== 'object' || msg.v !== V) return;
    if (typeof msg.memory === 'number') this.memory = msg.memory;
    switch (msg.type) {
      case 'ready': {
        this.ready = true;
        this.#disarm();
        const t = now();
        for (const call of this.calls.values()) call.started = t;
        this.#armHead();
        return;
      }
      case 'result': {
        const call = this.#finish(msg.id);
        call?.resolve(msg.tokens === true ? revive(msg.value, this.tokenKey) : msg.value);
        return;
      }
      case 'error': {
        const error = isErrorData(msg.error) ? new SandboxError(msg.error) : fail('SANDBOX_PROTOCOL', 'malformed error from the worker', {});
        if (msg.id === null) {
          this.pool.emit('protocol-error', { principal: this.principal, error });
          return;
        }
        this.#finish(msg.id)?.reject(error);
        return;
      }
      case 'pending': {
        // Not running: waiting on host calls, timers or a later call. Its deadline no longer
        // applies; it stays in `calls` so it is rejected if the worker dies, and it gives
        // up after asyncTimeoutMs so a promise that never settles never hangs the host.
        const at = this.queue.indexOf(msg.id);
        if (at >= 0) this.queue.splice(at, 1);
        if (at === 0) this.#armHead();
        const call = this.calls.get(msg.id);
        if (call) {
          call.waitTimer = setTimer(() => {
            const waiting = this.#finish(msg.id);
            waiting?.reject(fail('SANDBOX_LIMIT_EXCEEDED', `the result was still pending after asyncTimeoutMs (${this.pool.asyncTimeoutMs} ms)`, { limit: 'asyncTimeoutMs' }));
          }, this.pool.asyncTimeoutMs);
        }
        return;
      }
      case 'host-call':
        this.#hostCall(msg);
        return;
      case 'event':
        this.compartments.get(msg.realm)?.report(msg);
        return;
      case 'fetch':
        this.#fetch(msg);
        return;
      case 'tick-start': {
        // Guest timers are running: watch them with the longest deadline of this worker.
        let ms = DEFAULT_TIMEOUT_MS;
        for (const c of this.compartments.values()) ms = Math.max(ms, c.timeoutMs);
        this.ticking = true;
        this.#arm(ms + this.pool.graceMs, 'a guest timer did not finish by its deadline plus grace');
        return;
      }
      case 'tick-end':
        this.ticking = false;
        this.#armHead();
        return;
      case 'fatal':
        this.kill(msg.reason === 'memory' ? 'memory' : 'crashed', String(msg.message));
        return;
      default:
        this.pool.emit('protocol-error', { principal: this.principal, error: fail('SANDBOX_PROTOCOL', `unknown message type from the worker: ${String(msg.type)}`, {}) });
    }
  }

  async #hostCall(msg) {
    const compartment = this.compartments.get(msg.realm);
    let settle;
    try {
      if (!compartment || !compartment.handler) throw new TypeError('no host handler');
      const value = await compartment.handler(...msg.args);
      settle = { ok: true, value };
    } catch (e) {
      settle = { ok: false, error: { name: String(e && e.name || 'Error'), message: String(e && e.message || e) } };
    }
    if (this.dead || !this.compartments.has(msg.realm)) return;
    const message = { type: 'settle', realm: msg.realm, call: msg.call, ...settle };
    const timeout = compartment ? compartment.timeoutMs : DEFAULT_TIMEOUT_MS;
    this.request(message, null, timeout).catch((e) => {
      if (e.code === 'SANDBOX_NOT_CLONEABLE') {
        // The handler's answer cannot cross: the guest gets a TypeError instead.
        const error = { name: 'TypeError', message: `the host handler returned a value that cannot cross: ${e.message}` };
        return this.request({ type: 'settle', realm: msg.realm, call: msg.call, ok: false, error }, null, timeout);
      }
      return undefined;
    }).catch(() => {});
  }

  // The module broker: the worker's policy already allowed this URL; fetch it with GET,
  // no cookies, no redirects, and credentials only from the host hook for a realm this
  // compartment was configured with (checked again here, so a worker cannot ask for
  // another realm's token).
  async #fetch(msg) {
    const compartment = this.compartments.get(msg.realm);
    let answer;
    try {
      if (!compartment) throw new Error('the compartment is gone');
      const headers = {};
      if (msg.credentials) {
        if (!compartment.grants(msg.realmPrefix, msg.url)) throw new Error('credentials asked for outside this compartment\'s realms');
        const extra = this.pool.credentials ? await this.pool.credentials(msg.realmPrefix, msg.url) : undefined;
        if (extra) for (const [k, v] of Object.entries(extra)) headers[k] = String(v);
      }
      const response = await fetchFn(msg.url, {
        method: 'GET', headers, credentials: 'omit', redirect: 'error', cache: 'no-store',
        signal: AbortSignal.timeout(this.pool.fetchTimeoutMs),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      answer = { ok: true, source: await response.arrayBuffer() };
    } catch (e) {
      answer = { ok: false, error: String((e && e.message) || e) };
    }
    if (this.dead || !this.compartments.has(msg.realm)) return;
    const timeout = compartment ? compartment.timeoutMs : DEFAULT_TIMEOUT_MS;
    this.request({ type: 'provide', realm: msg.realm, url: msg.url, ...answer }, null, timeout).catch(() => {});
  }

  /** Kills the worker; every pending call rejects with SANDBOX_TERMINATED and `reason`. */
  kill(reason, message) {
    if (this.dead) return;
    this.#disarm();
    this.dead = fail('SANDBOX_TERMINATED', `${message}; the state of its compartments is gone`, { reason });
    this.worker.terminate();
    this.initReject(this.dead);
    const hadPending = new Set();
    for (const call of this.calls.values()) {
      if (call.compartment) hadPending.add(call.compartment);
      if (call.waitTimer) clearTimer(call.waitTimer);
      call.reject(this.dead);
    }
    this.calls.clear();
    this.queue = [];
    // Leave the pool first, so a listener's next call gets a new worker.
    this.pool.forget(this);
    if (this.principal === null) return; // a spare: no compartments, nobody to tell
    if (reason !== 'evicted') this.pool.prepareSpare();
    const orphans = [...this.compartments.values()];
    this.compartments.clear();
    for (const c of orphans) c.lost(this, hadPending.has(c) ? null : this.dead);
    this.pool.emit('terminated', { principal: this.principal, reason, message: this.dead.message });
  }
}

/** Workers by principal, with a cap and idle/LRU eviction. */
export class CompartmentPool extends EventTarget {
  constructor(options) {
    super();
    const o = checkKeys(options, POOL_OPTIONS, 'pool');
    this.maxWorkers = positive(o.maxWorkers, 'maxWorkers', 8);
    this.idleTimeoutMs = positive(o.idleTimeoutMs, 'idleTimeoutMs', 60_000);
    this.graceMs = positive(o.graceMs, 'graceMs', 100);
    this.memoryLimitBytes = positive(o.memoryLimitMb, 'memoryLimitMb', 512) * 1024 * 1024;
    this.maxInFlight = positive(o.maxInFlight, 'maxInFlight', 1024);
    this.maxSourceLength = positive(o.maxSourceLength, 'maxSourceLength', 16 * 1024 * 1024);
    this.wasm = o.wasm ?? WASM_URL;
    if (!(this.wasm instanceof Wasm.Module || this.wasm instanceof URL || typeof this.wasm === 'string')) {
      throw invalid('wasm', 'must be a WebAssembly.Module, a URL or a string (WASM_URL or SMALL_WASM_URL)');
    }
    if (o.credentials !== undefined && typeof o.credentials !== 'function') throw invalid('credentials', 'must be a function');
    this.credentials = o.credentials;
    this.fetchTimeoutMs = positive(o.fetchTimeoutMs, 'fetchTimeoutMs', 30_000);
    this.asyncTimeoutMs = positive(o.asyncTimeoutMs, 'asyncTimeoutMs', 30_000);
    if (o.spareAfterKill !== undefined && typeof o.spareAfterKill !== 'boolean') throw invalid('spareAfterKill', 'must be a boolean');
    this.spareAfterKill = o.spareAfterKill ?? true;
    this.spare = null; // a started worker with no principal yet, after a kill
    this.closed = false;
    this.slots = new Map(); // principal -> Slot
    this.nextId = 1;
    this.nextRealm = 1;
    this.compiled = null;
    this.sweeper = null;
  }

  /** The engine, compiled once per pool and shared with every worker. */
  module() {
    if (this.wasm instanceof Wasm.Module) return Promise.resolve(this.wasm);
    this.compiled ??= Wasm.compileStreaming(fetchFn(this.wasm)).catch(async () => {
      const bytes = await (await fetchFn(this.wasm)).arrayBuffer();
      return Wasm.compile(bytes);
    });
    return this.compiled;
  }

  slot(principal) {
    let slot = this.slots.get(principal);
    if (slot && !slot.dead) return slot;
    if (this.slots.size >= this.maxWorkers) this.#evictOne();
    if (this.spare && !this.spare.dead) {
      // The spare has started already: a respawn costs a round trip.
      slot = this.spare;
      slot.principal = principal;
      slot.lastUsed = now();
    } else {
      slot = new Slot(this, principal);
    }
    this.spare = null;
    this.slots.set(principal, slot);
    this.#sweepSoon();
    return slot;
  }

  #evictOne() {
    let victim = null;
    for (const s of this.slots.values()) {
      if (!s.busy && (!victim || s.lastUsed < victim.lastUsed)) victim = s;
    }
    if (!victim) throw fail('SANDBOX_LIMIT_EXCEEDED', `all ${this.maxWorkers} workers are busy`, { limit: 'maxWorkers' });
    victim.kill('evicted', `the worker of principal ${victim.principal} was evicted to make room`);
  }

  #sweepSoon() {
    if (this.sweeper !== null) return;
    this.sweeper = setTimer(() => {
      this.sweeper = null;
      const cutoff = now() - this.idleTimeoutMs;
      for (const s of [...this.slots.values()]) {
        if (!s.busy && s.lastUsed < cutoff) s.kill('evicted', `the worker of principal ${s.principal} was idle`);
      }
      if (this.spare && !this.spare.busy && this.spare.lastUsed < cutoff) this.spare.kill('evicted', 'the spare worker was idle');
      if (this.slots.size || this.spare) this.#sweepSoon();
    }, Math.min(this.idleTimeoutMs, 10_000));
  }

  forget(slot) {
    if (this.spare === slot) this.spare = null;
    if (this.slots.get(slot.principal) === slot) this.slots.delete(slot.principal);
  }

  /**
   * Starts a worker ahead of the next compartment, with the engine compiled and a
   * throwaway realm's warm-up run in it: the next `Compartment.create` of a new principal
   * adopts it and answers at warm-tab speed. Idempotent while that worker waits; once it is
   * adopted, dies or is evicted, the next call starts another.
   */
  warm() {
    if (this.closed) return Promise.reject(fail('SANDBOX_TERMINATED', 'the pool was closed', { reason: 'requested' }));
    const spare = this.#startSpare();
    if (!spare) {
      // No room for another worker: the engine is at least compiled.
      return this.module().then(() => undefined, (e) => {
        throw fail('SANDBOX_TERMINATED', `the engine could not be compiled: ${e && e.message}`, { reason: 'crashed' });
      });
    }
    // The worker runs a short script of its own in a throwaway realm (protocol.rs, WARM_UP).
    // A create that adopts the spare meanwhile waits behind it: the deadline is init's, so a
    // slow device's warm-up does not get that compartment's worker killed.
    if (!spare.warmed) {
      spare.warmed = spare.request({ type: 'warm' }, null, DEFAULT_TIMEOUT_MS * 5).then(() => {
        spare.lastUsed = now();
      }, (e) => {
        spare.warmed = null;
        throw e;
      });
      // Fire and forget is fine: a failed warm-up is reported only to those who await it.
      spare.warmed.catch(() => {});
    }
    return spare.warmed;
  }

  // After a kill a respawn is likely: start a worker ahead.
  prepareSpare() {
    if (this.spareAfterKill && !this.closed) this.#startSpare();
  }

  /** The spare worker, started now if there is none; null when the pool is full. */
  #startSpare() {
    if (this.spare) return this.spare; // a dead one has already left (`forget`)
    if (this.slots.size + 1 > this.maxWorkers) return null;
    this.spare = new Slot(this, null);
    this.#sweepSoon();
    return this.spare;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  get workerCount() {
    return this.slots.size + (this.spare ? 1 : 0);
  }

  async invalidate(url) {
    const gone = new Set();
    await Promise.all([...this.slots.values()].map((s) =>
      s.request({ type: 'invalidate', url: String(url) }, null, DEFAULT_TIMEOUT_MS)
        .then((urls) => urls.forEach((u) => gone.add(u)), () => {})));
    return [...gone].sort();
  }

  /** Figures of each live worker; one that dies while asked is left out. */
  async workerStats() {
    const all = await Promise.all([...this.slots.values()].map((s) =>
      s.request({ type: 'stats' }, null, DEFAULT_TIMEOUT_MS).then((v) => ({ principal: s.principal, ...v }), () => null)));
    return all.filter(Boolean);
  }

  realmChanged(event) {
    return this.invalidate(event && event.url);
  }

  close() {
    this.closed = true;
    this.spare?.kill('requested', 'the pool was closed');
    for (const s of [...this.slots.values()]) s.kill('requested', 'the pool was closed');
    if (this.sweeper !== null) clearTimer(this.sweeper);
    this.sweeper = null;
  }
}

let defaultPool = null;
/** The pool compartments use unless given one. Created on first use. */
export function getDefaultPool() {
  defaultPool ??= new CompartmentPool();
  return defaultPool;
}

/** An isolated realm in a worker: the async twin of `Realm`. */
export class Compartment extends EventTarget {
  #pool;
  #principal;
  #options;
  #slot = null;
  #realm = 0;
  #lostError = null;
  #disposed = false;
  #realms = [];
  #stats = { calls: 0, errors: 0, totalMs: 0, memoryBytes: 0, respawns: 0 };
  #onModelPatch;
  #unacked = [];
  #delivering = Promise.resolve();

  static async create(options) {
    const o = checkKeys(options, CREATE_OPTIONS, 'compartment');
    if (typeof o.principal !== 'string' || o.principal === '') throw invalid('principal', 'must be a non-empty string');
    if (o.handler !== undefined && typeof o.handler !== 'function') throw invalid('handler', 'must be a function');
    if ((o.handler === undefined) !== (o.exposeHandlerAs === undefined)) throw invalid('exposeHandlerAs', 'and `handler` must be given together');
    if (o.onModelPatch !== undefined && typeof o.onModelPatch !== 'function') throw invalid('onModelPatch', 'must be a function');
    if (o.pool !== undefined && !(o.pool instanceof CompartmentPool)) throw invalid('pool', 'must be a CompartmentPool');
    const c = new Compartment(o);
    await c.#spawn();
    return c;
  }

  constructor(o) {
    super();
    this.#pool = o.pool ?? getDefaultPool();
    this.#principal = o.principal;
    this.handler = o.handler;
    this.#onModelPatch = o.onModelPatch;
    this.#options = {};
    for (const k of ['exposeHandlerAs', 'allowCodeGeneration', 'limits']) if (o[k] !== undefined) this.#options[k] = o[k];
    this.#options.modules = this.#policy(o.modules);
    this.timeoutMs = positive(o.limits?.timeoutMs, 'limits.timeoutMs', DEFAULT_TIMEOUT_MS);
  }

  get principal() {
    return this.#principal;
  }

  async #spawn() {
    const slot = this.#pool.slot(this.#principal);
    const realm = this.#pool.nextRealm++;
    slot.compartments.set(realm, this);
    this.#slot = slot;
    this.#realm = realm;
    try {
      await slot.request({ type: 'create', realm, options: this.#options }, this, this.timeoutMs);
    } catch (e) {
      slot.compartments.delete(realm);
      this.#slot = null;
      throw e;
    }
  }

  // A principal that is a realm URL is the compartment's own realm by default.
  #policy(given) {
    const modules = { ...(given || {}) };
    if (modules.realms === undefined && /^https?:\/\/[^/]+\/(.*\/)?$/.test(this.#principal)) modules.realms = [this.#principal];
    const list = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
    this.#realms = [...list(modules.realms), ...list(modules.readable)]
      .map((r) => { try { return new URL(r).href; } catch { return null; } })
      .filter(Boolean);
    return modules;
  }

  async setModulePolicy(modules) {
    const before = this.#realms;
    const next = this.#policy(modules);
    try {
      const gone = await this.#send({ type: 'policy', modules: next });
      this.#options.modules = next;
      return gone;
    } catch (e) {
      this.#realms = before;
      throw e;
    }
  }

  /** Whether `url` is under `prefix` and `prefix` is one of this compartment's realms. */
  grants(prefix, url) {
    try {
      const p = new URL(prefix).href;
      const u = new URL(url);
      return this.#realms.includes(p) && u.origin === new URL(p).origin && u.href.startsWith(p);
    } catch {
      return false;
    }
  }

  /** Called by the slot when its worker dies. */
  lost(slot, unreported) {
    if (this.#slot !== slot) return;
    this.#slot = null;
    // Fail closed: if no pending call told the host, the next call does.
    this.#lostError = unreported;
    this.dispatchEvent(new CustomEvent('terminated', { detail: { reason: slot.dead.reason, message: slot.dead.message } }));
  }

  /** A guest report from the worker, dispatched as an event on this compartment. */
  report(msg) {
    let detail;
    if (msg.kind === 'patches') return void this.#deliver(msg.value.patches).catch(() => {});
    if (msg.kind === 'console') detail = { level: msg.level, args: msg.args };
    else if (msg.kind === 'console-dropped') detail = { level: 'warn', args: [`${msg.count} console messages dropped by the rate limit`], dropped: msg.count };
    else if (isErrorData(msg.error)) detail = new SandboxError(msg.error);
    else return;
    const type = msg.kind === 'console-dropped' ? 'console' : msg.kind;
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /** Counts a finished host call (`ms` null for internal messages) and the worker's memory. */
  record(ms, memory) {
    if (ms !== null) {
      this.#stats.calls++;
      this.#stats.totalMs += ms;
    }
    this.#stats.memoryBytes = memory;
  }

  async #send(message) {
    if (this.#disposed) throw fail('SANDBOX_DISPOSED', 'the compartment was disposed', {});
    if (this.#lostError) {
      const e = this.#lostError;
      this.#lostError = null;
      throw e;
    }
    if (!this.#slot) {
      this.#stats.respawns++;
      await this.#spawn();
    }
    const slot = this.#slot;
    try {
      return await slot.request({ ...message, realm: this.#realm }, this, this.timeoutMs);
    } catch (e) {
      this.#stats.errors++;
      // The realm ended, the worker lives: the next call makes a new realm.
      if (e.code === 'SANDBOX_TERMINATED' && !slot.dead && this.#slot === slot) {
        slot.compartments.delete(this.#realm);
        this.#slot = null;
      }
      throw e;
    }
  }

  eval(source, options) {
    if (typeof source !== 'string') return Promise.reject(invalid('source', 'must be a string'));
    if (source.length > this.#pool.maxSourceLength) {
      return Promise.reject(fail('SANDBOX_LIMIT_EXCEEDED', `source is longer than maxSourceLength (${this.#pool.maxSourceLength})`, { limit: 'maxSourceLength' }));
    }
    const message = { type: 'eval', source };
    if (options !== undefined) message.options = options;
    return this.#send(message);
  }

  import(url) {
    if (typeof url !== 'string') return Promise.reject(invalid('url', 'must be a string'));
    return this.#send({ type: 'import', url });
  }

  async set(name, value) {
    if (typeof name !== 'string') throw invalid('name', 'must be a string');
    await this.#send({ type: 'set', name, value });
  }

  call(name, ...args) {
    if (typeof name !== 'string') return Promise.reject(invalid('name', 'must be a string'));
    return this.#send({ type: 'call', name, args });
  }

  // ---- cards

  #card(op, module, args) {
    const message = { type: 'card', op, args };
    if (Array.isArray(module)) message.modules = module;
    else if (module !== undefined) message.module = module;
    return this.#send(message);
  }

  async createCard(type, data = {}) {
    const t = typeRef(type);
    await this.import(t.module);
    return this.#card('create', t.module, [t, data]);
  }

  async loadCard(instance) {
    if (instance === null || typeof instance !== 'object') throw invalid('instance', 'must be a serialized card');
    const t = typeRef(instance.type);
    await this.import(t.module);
    return this.#card('load', t.module, [t, instance]);
  }

  // Many stored cards in one round trip per module and one for the cards. A card that
  // fails (its module did not import, its class or a link is missing) is an entry
  // `{ id, error }`; the others load. In order: a card may link to one before it.
  async loadCards(instances) {
    if (!Array.isArray(instances)) throw invalid('instances', 'must be an array of serialized cards');
    const list = instances.map((instance, i) => {
      if (instance === null || typeof instance !== 'object') throw invalid('instances', `entry ${i} must be a serialized card`);
      return { ...instance, type: typeRef(instance.type) };
    });
    const urls = [...new Set(list.map((c) => c.type.module))];
    const failed = new Map();
    for (let i = 0; i < urls.length; i += IMPORTS_AT_ONCE) {
      const batch = urls.slice(i, i + IMPORTS_AT_ONCE);
      const settled = await Promise.allSettled(batch.map((url) => this.import(url)));
      settled.forEach((s, j) => { if (s.status === 'rejected') failed.set(batch[j], s.reason); });
    }
    const sent = list.filter((c) => !failed.has(c.type.module));
    const loaded = sent.length ? checkedBatch(await this.#card('loadMany', urls.filter((u) => !failed.has(u)), [sent]), sent.length, 'loadMany') : [];
    let k = 0;
    return list.map((c) => {
      if (failed.has(c.type.module)) return { id: c.id == null ? null : String(c.id), error: failed.get(c.type.module) };
      const r = loaded[k++];
      return r.error ? { id: r.id, error: cardError(r.error) } : r;
    });
  }

  render(id, fmt) {
    try { format(fmt); } catch (e) { return Promise.reject(e); }
    return this.#card('render', undefined, [String(id), fmt]);
  }

  async renderMany(list) {
    if (!Array.isArray(list)) throw invalid('list', 'must be an array of [id, format]');
    const items = list.map((item) => {
      if (!Array.isArray(item)) throw invalid('list', 'entries must be [id, format]');
      return [String(item[0]), format(item[1])];
    });
    const out = checkedBatch(await this.#card('renderMany', undefined, [items]), items.length, 'renderMany');
    return out.map((r) => (r.error ? { id: r.id, format: r.format, error: cardError(r.error) } : r));
  }

  async dispatch(id, actionId, eventData = {}) {
    if (typeof actionId !== 'string') throw invalid('actionId', 'must be a string');
    let result;
    try {
      result = await this.#card('dispatch', undefined, [String(id), actionId, eventData]);
    } catch (e) {
      // What the action wrote before it failed came ahead of the failure: wait for it.
      await this.#delivering.catch(() => {});
      throw e;
    }
    await this.#deliver(result.patches);
    return result;
  }

  async describe(url) {
    if (typeof url !== 'string') throw invalid('url', 'must be a string');
    await this.import(url);
    return this.#card('describe', url, [url]);
  }

  serializeCard(id) {
    return this.#card('serialize', undefined, [String(id)]);
  }

  dropCard(id) {
    return this.#card('drop', undefined, [String(id)]);
  }

  unacknowledgedPatches() {
    return this.#unacked.map((p) => ({ ...p }));
  }

  retryPatches() {
    return this.#deliver([]);
  }

  // Patches go to the host in order, all waiting ones at once; a failure keeps them queued
  // (later patches wait behind them) and is reported, never dropped.
  #deliver(patches) {
    if (!this.#onModelPatch) return Promise.resolve();
    this.#unacked.push(...patches);
    const run = async () => {
      if (this.#unacked.length === 0) return;
      const batch = this.#unacked.slice();
      let last;
      for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
        if (attempt > 0) await new Promise((ok) => setTimer(ok, 50 * 4 ** (attempt - 1)));
        try {
          await this.#onModelPatch(batch.map((p) => ({ ...p })), { compartment: this });
          this.#unacked.splice(0, batch.length);
          return;
        } catch (e) {
          last = e;
        }
      }
      const error = fail('SANDBOX_PATCH_UNACKNOWLEDGED', `the host did not acknowledge ${batch.length} model patch(es) after ${PATCH_ATTEMPTS} attempts: ${last && last.message}`, { reason: String((last && last.message) || last) });
      error.patches = batch;
      this.dispatchEvent(new CustomEvent('patchfailed', { detail: { patches: batch, error } }));
      throw error;
    };
    const next = this.#delivering.catch(() => {}).then(run);
    this.#delivering = next;
    return next;
  }

  terminate() {
    const slot = this.#slot;
    if (!slot) return;
    const others = [...slot.compartments.values()].some((c) => c !== this);
    const runningHere = [...slot.calls.values()].some((c) => c.compartment === this);
    if (!others || runningHere) {
      slot.kill('requested', 'the compartment was terminated by the host');
    } else {
      slot.compartments.delete(this.#realm);
      this.#slot = null;
      slot.request({ type: 'dispose', realm: this.#realm }, null, DEFAULT_TIMEOUT_MS).catch(() => {});
    }
  }

  async dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    const slot = this.#slot;
    this.#slot = null;
    if (!slot || slot.dead) return;
    slot.compartments.delete(this.#realm);
    await slot.request({ type: 'dispose', realm: this.#realm }, null, DEFAULT_TIMEOUT_MS).catch(() => {});
  }

  stats() {
    return { ...this.#stats };
  }
}

export { SandboxError };
