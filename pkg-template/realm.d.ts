import type { EvalOptions, RealmOptions } from './index.js';
export { SandboxError } from './index.js';
export type { ConsoleDetail, EvalOptions, Limits, RealmOptions, SandboxErrorCode } from './index.js';

/** Loads the engine. Pass a compiled WebAssembly.Module (or a URL) to control loading. */
export function init(moduleOrPath?: WebAssembly.Module | URL | string | Response): Promise<void>;
export function initSync(module: WebAssembly.Module): void;
/** The engine built for speed: what `init()` loads by default. */
export const WASM_URL: URL;
/** The same engine built for size: `init(SMALL_WASM_URL)`. See index.d.ts. */
export const SMALL_WASM_URL: URL;

/**
 * A synchronous isolated realm. All values cross by structured clone. Events (CustomEvent
 * detail): 'console' (ConsoleDetail), 'error' and 'unhandledrejection' (SandboxError).
 */
export class Realm extends EventTarget {
  constructor(options?: RealmOptions);
  eval(source: string, options?: EvalOptions): any;
  set(name: string, value: any): void;
  call(name: string, ...args: any[]): any;
  /**
   * Frees the engine. Its thread's heap, shared by the realms there, collects here once disposed
   * realms (by an estimate of each one's share) are half its bytes; later calls throw SANDBOX_DISPOSED.
   */
  dispose(): void;
  readonly disposed: boolean;
}

/** Whether a value returned by a sync realm is a genuine trusted-export token ({ module, export }). */
export function isTrustedToken(value: unknown): boolean;
