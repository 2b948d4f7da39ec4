// The compartment worker: a dedicated module worker hosting the realms of one principal.
// All protocol decisions are made in Rust (WorkerHost); this file only moves messages,
// and reports the instance's death (a trap, or memory past its cap) before closing.

import { initSync, WorkerHost } from './isolated_realm.js';

// Captured at load: nothing later can swap them (guest code never runs in this JS realm;
// this is defence in depth).
const post = self.postMessage.bind(self);
const closeSelf = self.close.bind(self);
const isModule = (m) => m instanceof WebAssembly.Module;

let host = null;
let memory = null;
let memoryLimit = Infinity;

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
      memory = initSync({ module: msg.module }).memory;
      host = new WorkerHost();
    } catch (e) {
      fatal('crashed', `the engine failed to start: ${e && e.message}`);
      return;
    }
    if (typeof msg.memoryLimitBytes === 'number' && msg.memoryLimitBytes > 0) memoryLimit = msg.memoryLimitBytes;
    post({ v: 1, type: 'ready', memory: memory.buffer.byteLength });
    return;
  }
  let replies;
  try {
    replies = host.handle(msg);
  } catch (e) {
    // Anything escaping the wasm is a trap: this instance is dead and is never reused.
    const size = memory ? memory.buffer.byteLength : 0;
    const exhausted = size > memoryLimit || /memory|alloc/i.test(String(e && e.message));
    fatal(exhausted ? 'memory' : 'crashed', `the engine instance died: ${e && e.message}`);
    return;
  }
  const size = memory.buffer.byteLength;
  // Over the cap, the results of this message are not delivered: the calls fail with
  // reason 'memory' and the worker is replaced.
  if (size > memoryLimit) {
    fatal('memory', `the worker's wasm memory grew to ${size} bytes, over its cap of ${memoryLimit}`);
    return;
  }
  for (const reply of replies) {
    reply.memory = size;
    post(reply);
  }
};
