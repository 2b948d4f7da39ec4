// The compartment worker: a dedicated module worker hosting the realms of one principal.
// All protocol decisions are made in Rust (WorkerHost); this file only moves messages,
// and reports the instance's death (a trap, or memory past its cap) before closing.

import { initSync, WorkerHost } from './isolated_realm.js';

// Captured at load: nothing later can swap them (guest code never runs in this JS realm;
// this is defence in depth).
const post = self.postMessage.bind(self);
const closeSelf = self.close.bind(self);
const isModule = (m) => m instanceof WebAssembly.Module;

const setTimer = self.setTimeout.bind(self);
const clearTimer = self.clearTimeout.bind(self);

let host = null;
let memory = null;
let memoryLimit = Infinity;
let timer = null;

function fatal(reason, message) {
  post({ v: 1, type: 'fatal', reason, message });
  closeSelf();
}

function protocolError(message) {
  return { v: 1, type: 'error', id: null,
    error: { name: 'SandboxError', code: 'SANDBOX_PROTOCOL', message: `${message} [SANDBOX_PROTOCOL]` } };
}

self.onmessage = (event) => {
  const msg = event.data;
  if (host === null) {
    if (msg === null || typeof msg !== 'object' || msg.v !== 1 || msg.type !== 'init' || !isModule(msg.module)) {
      post(protocolError('the first message must be { v: 1, type: "init", module }'));
      return;
    }
    try {
      if (typeof msg.memoryLimitBytes === 'number' && msg.memoryLimitBytes > 0) memoryLimit = msg.memoryLimitBytes;
      memory = initSync({ module: msg.module }).memory;
      host = new WorkerHost(typeof msg.tokenKey === 'string' ? msg.tokenKey : undefined, memoryLimit);
    } catch (e) {
      fatal('crashed', `the engine failed to start: ${e && e.message}`);
      return;
    }
    post({ v: 1, type: 'ready', memory: memory.buffer.byteLength });
    return;
  }
  run(() => host.handle(msg));
};

// Anything escaping the wasm is a trap: this instance is dead and is never reused.
function died(e) {
  const size = memory ? memory.buffer.byteLength : 0;
  const exhausted = size > memoryLimit || /memory|alloc/i.test(String(e && e.message));
  fatal(exhausted ? 'memory' : 'crashed', `the engine instance died: ${e && e.message}`);
}

// Runs the engine once; posts its replies, or reports the instance's death.
function run(step) {
  let replies;
  try {
    replies = step();
  } catch (e) {
    died(e);
    return;
  }
  const size = memory.buffer.byteLength;
  // Over the cap, the results of this step are not delivered: the calls fail with
  // reason 'memory' and the worker is replaced.
  if (overCap()) return;
  for (const reply of replies) {
    reply.memory = size;
    post(reply);
  }
  // A dispose's collection runs here, with its reply already on the way to the page.
  try {
    host.idle();
  } catch (e) {
    died(e);
    return;
  }
  // Collecting a flood's garbage can grow the memory too (the collector's own lists): a
  // worker over its cap is replaced now, not on the next call, which did nothing wrong.
  if (overCap()) return;
  schedule();
}

function overCap() {
  const size = memory.buffer.byteLength;
  if (size <= memoryLimit) return false;
  fatal('memory', `the worker's wasm memory grew to ${size} bytes, over its cap of ${memoryLimit}`);
  return true;
}

// Guest timers run from this worker's own event loop. The client watches each tick like a
// call (tick-start / tick-end), so a timer stuck in a native builtin is killed too.
function schedule() {
  if (timer !== null) clearTimer(timer);
  timer = null;
  const ms = host.nextTimerMs;
  if (ms < 0) return;
  timer = setTimer(() => {
    timer = null;
    post({ v: 1, type: 'tick-start' });
    run(() => host.tick());
    post({ v: 1, type: 'tick-end' });
  }, ms);
}
