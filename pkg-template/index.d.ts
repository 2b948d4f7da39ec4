/** Stable error codes. Each is documented in the README under "Error codes". */
export type SandboxErrorCode =
  | 'SANDBOX_INVALID_OPTIONS'
  | 'SANDBOX_NOT_CLONEABLE'
  | 'SANDBOX_GUEST_THREW'
  | 'SANDBOX_SYNTAX'
  | 'SANDBOX_LIMIT_EXCEEDED'
  | 'SANDBOX_TERMINATED'
  | 'SANDBOX_DISPOSED'
  | 'SANDBOX_BUSY'
  | 'SANDBOX_POLICY_DENIED'
  | 'SANDBOX_PROTOCOL';

export class SandboxError extends Error {
  readonly name: 'SandboxError';
  readonly code: SandboxErrorCode;
  /** SANDBOX_LIMIT_EXCEEDED: which limit, by its option name (e.g. 'timeoutMs'). */
  readonly limit?: string;
  /** SANDBOX_NOT_CLONEABLE and clone limits: path to the value, e.g. '$.model.author'. */
  readonly path?: string;
  /** SANDBOX_NOT_CLONEABLE: what was refused, e.g. 'function'. */
  readonly valueType?: string;
  /** SANDBOX_GUEST_THREW / SANDBOX_SYNTAX: the guest error's name, or 'value'. */
  readonly guestName?: string;
  readonly guestMessage?: string;
  readonly guestStack?: string;
  readonly filename?: string;
  readonly line?: number;
  readonly column?: number;
  /** SANDBOX_TERMINATED: 'crashed' | 'timeout' | 'memory' | 'requested'. */
  readonly reason?: 'crashed' | 'timeout' | 'memory' | 'requested';
  /** SANDBOX_INVALID_OPTIONS: the offending option. */
  readonly option?: string;
  toJSON(): Record<string, unknown>;
}

export interface Limits {
  /** Bytecode instructions per entry (eval/call, including the jobs it queues). Default 500e6. */
  instructions?: number;
  /** Wall-clock deadline per entry, in ms. Default 1000. */
  timeoutMs?: number;
  /** Deepest guest call nesting. Default 400. */
  maxRecursion?: number;
  /** Largest VM value stack. Default 65536. */
  maxStackSize?: number;
  /** Iterations of any one loop. Default: unlimited (the budget applies). */
  maxLoopIterations?: number;
  /** Longest source, in bytes. Default 16 MiB. */
  maxSourceLength?: number;
  /** Boundary caps. Defaults: depth 1000, 1e6 objects, 64 MiB. */
  maxCloneDepth?: number;
  maxCloneObjects?: number;
  maxCloneBytes?: number;
}

export interface RealmOptions {
  /** Called with cloned arguments when the guest calls the exposed function. */
  handler?: (...args: any[]) => any;
  /** Global name of the handler in the guest, e.g. 'callParent'. */
  exposeHandlerAs?: string;
  /** Whether eval/Function may compile strings inside the guest. Default true. */
  allowCodeGeneration?: boolean;
  limits?: Limits;
}

export interface EvalOptions {
  /** Shown in stacks and error locations. Default '<eval>'. */
  filename?: string;
}

/** Loads the engine. Pass a compiled WebAssembly.Module (or a URL) to control loading. */
export function init(moduleOrPath?: WebAssembly.Module | URL | string | Response): Promise<void>;
export function initSync(module: WebAssembly.Module): void;

/** A synchronous isolated realm. All values cross by structured clone. */
export class Realm {
  constructor(options?: RealmOptions);
  eval(source: string, options?: EvalOptions): any;
  set(name: string, value: any): void;
  call(name: string, ...args: any[]): any;
  dispose(): void;
  readonly disposed: boolean;
}
