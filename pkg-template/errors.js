// SandboxError: the one error class of isolated-realm. Errors cross wasm and worker
// boundaries as plain data ({ name: 'SandboxError', code, message, ...fields }) and are
// rebuilt here, because an Error object posted to another thread loses its own fields.

const FIELDS = ['limit', 'path', 'valueType', 'guestName', 'guestMessage', 'guestStack',
  'filename', 'line', 'column', 'reason', 'option'];
const hasOwn = Object.prototype.hasOwnProperty;

export class SandboxError extends Error {
  constructor(data) {
    super(String(data && data.message));
    this.name = 'SandboxError';
    /** Stable code, e.g. `SANDBOX_LIMIT_EXCEEDED`. See README "Error codes". */
    this.code = String(data && data.code);
    for (const f of FIELDS) {
      if (data && hasOwn.call(data, f) && data[f] !== undefined) this[f] = data[f];
    }
  }

  /** The plain-data form, safe to postMessage. */
  toJSON() {
    const out = { name: 'SandboxError', code: this.code, message: this.message };
    for (const f of FIELDS) if (hasOwn.call(this, f)) out[f] = this[f];
    return out;
  }
}

/** Whether `value` is the plain-data form the engine throws. */
export function isErrorData(value) {
  return value !== null && typeof value === 'object' && !(value instanceof Error) &&
    value.name === 'SandboxError' && typeof value.code === 'string';
}
