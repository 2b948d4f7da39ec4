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
  | 'SANDBOX_PROTOCOL'
  | 'SANDBOX_PATCH_UNACKNOWLEDGED'
  | 'SANDBOX_UNKNOWN_TOKEN'
  | 'SANDBOX_RENDER_REJECTED';

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
  /** SANDBOX_PATCH_UNACKNOWLEDGED: the model patches the host did not acknowledge. */
  readonly patches?: ModelPatch[];
  readonly guestStack?: string;
  readonly filename?: string;
  readonly line?: number;
  readonly column?: number;
  /** SANDBOX_TERMINATED: why the engine instance is gone. */
  readonly reason?: 'crashed' | 'timeout' | 'memory' | 'requested' | 'evicted';
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
  /** Most live timers. Default 1000. */
  maxTimers?: number;
  /** Shortest setInterval period, ms. Default 10. */
  minIntervalMs?: number;
  /** Resolution of Date and performance.now(), ms. Default 1. */
  clockResolutionMs?: number;
  /** Console messages per second before dropping. Default 100. */
  consolePerSecond?: number;
}

/** `console` events: a guest console call. */
export interface ConsoleDetail {
  level: 'log' | 'info' | 'warn' | 'error' | 'debug';
  args: any[];
  /** Set on the notice that messages were dropped by the rate limit. */
  dropped?: number;
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

export interface PoolOptions {
  /** Most live workers; past it the least recently used idle worker is evicted. Default 8. */
  maxWorkers?: number;
  /** Idle workers are closed after this long. Default 60000. */
  idleTimeoutMs?: number;
  /** A worker that has not answered by a call's timeoutMs + graceMs is killed. Default 100. */
  graceMs?: number;
  /** A worker whose wasm memory grows past this is replaced. Default 512. */
  memoryLimitMb?: number;
  /** Most calls of one compartment in flight at once (sent, or waiting on the guest); more are refused with SANDBOX_LIMIT_EXCEEDED. Default 1024. */
  maxInFlight?: number;
  /** Longest source accepted by eval, in UTF-16 units. Default 16 Mi. */
  maxSourceLength?: number;
  /** The engine: a compiled module or a URL. Default: WASM_URL. SMALL_WASM_URL is the same engine built for size. */
  wasm?: WebAssembly.Module | URL | string;
  /**
   * Headers for module fetches from a realm this compartment owns or may read. Called only
   * for those realms; never for packages or other origins.
   */
  credentials?: (realm: string, url: string) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>;
  /** Module fetch timeout, ms. Default 30000. */
  fetchTimeoutMs?: number;
  /** A call whose result is a promise still pending after this long rejects (limit 'asyncTimeoutMs'). Default 30000. */
  asyncTimeoutMs?: number;
  /** After a worker is killed, start one worker ahead so the respawn skips start-up; it is idle-evicted. Default true. */
  spareAfterKill?: boolean;
}

/** What modules a compartment may import. Malformed or too-broad entries are SANDBOX_INVALID_OPTIONS. */
export interface ModulePolicy {
  /** Own realm prefixes (http(s), ending with '/'). Default: the principal, if it is one. */
  realms?: string | string[];
  /** Other realms this principal may read. */
  readable?: string | string[];
  /** Pinned packages: exact https URL → 'sha384-…' integrity. */
  packages?: Record<string, string>;
  /** Trusted host modules: specifier → { exportName: 'class' | 'function' | 'value' }. */
  trusted?: Record<string, Record<string, 'class' | 'function' | 'value'>>;
  /** Specifier(s) that import the card runtime's API (CardDef, FieldDef, contains, html…). */
  cardApi?: string | string[];
}

export type CardFormat = 'isolated' | 'embedded' | 'fitted' | 'edit' | 'atom';
export interface CardTypeRef { module: string; name: string; }
/** A serialized card instance. */
export interface CardInstance {
  id: string;
  type: CardTypeRef;
  attributes: Record<string, any>;
  relationships: Record<string, string | string[] | null>;
}
/** Render tree nodes: text, elements and host components (trusted tokens). Data only. */
export type CardNode = string | CardElement | CardComponent;
export interface CardElement { tag: string; attrs: Record<string, string>; on: Record<string, string>; children: CardNode[]; }
export interface CardComponent { component: TrustedToken; props: Record<string, any>; on: Record<string, string>; children: CardNode[]; }
export interface CardRender { id: string; format: CardFormat; tree: CardNode[]; css: string; title: string; }
/** A model write leaving the sandbox. */
export interface ModelPatch { seq: number; id: string; path: string; op: 'replace'; value: any; }
export interface DispatchResult { render: CardRender; patches: ModelPatch[]; changed: string[]; }
export interface CardExport {
  name: string;
  kind: 'card' | 'field' | 'class' | 'function' | 'value';
  displayName?: string;
  fields?: Record<string, { kind: 'contains' | 'containsMany' | 'linksTo' | 'linksToMany'; type: string; computed: boolean }>;
}
/** Sanitised event data sent with an action. */
export interface CardEventData {
  type: string; key?: string; code?: string; value?: string; checked?: boolean;
  altKey?: boolean; ctrlKey?: boolean; metaKey?: boolean; shiftKey?: boolean; button?: number;
}

/** Workers by principal. Events: 'terminated' and 'protocol-error' (CustomEvent detail). */
export class CompartmentPool extends EventTarget {
  constructor(options?: PoolOptions);
  readonly workerCount: number;
  /** Drops `url` and its importers in every compartment; resolves with the URLs dropped. */
  invalidate(url: string): Promise<string[]>;
  /** Feed realm change events here; same as invalidate(event.url). */
  realmChanged(event: { type: string; url: string }): Promise<string[]>;
  /**
   * Starts a worker ahead, with the engine compiled and a throwaway realm's warm-up run in
   * it; the next Compartment.create of a new principal adopts it. Idempotent while that
   * worker waits; once it is adopted, dies or is evicted, the next call starts another. At
   * maxWorkers it only compiles the engine. Rejects with what stopped it, a SandboxError:
   * SANDBOX_TERMINATED with reason 'requested' on a closed pool, 'crashed' if the engine
   * cannot be compiled or started, or the reason its worker was killed. Safe to call
   * without awaiting: a failure is not an unhandled rejection.
   */
  warm(): Promise<void>;
  /** Figures of each live worker: its realms and its module parse cache (a worker that dies while asked is left out). */
  workerStats(): Promise<WorkerStats[]>;
  close(): void;
}
/**
 * One worker's figures. `heapBytes` is what the engine's collector holds for all its realms
 * (objects' headers and inline values, not string or array storage: a lower bound), garbage
 * not yet collected included; after a dispose's reply, the worker collects once the realms
 * disposed since its last collection are (by estimate) half of it. `moduleCache` counts loads served from the worker's parse cache
 * (`hits`) and loads that parsed (`misses`), since the worker started; `entries` and
 * `sourceBytes` are what it holds now (bounded: least recently used entries are evicted).
 */
export interface WorkerStats {
  principal: string;
  realms: number;
  heapBytes: number;
  moduleCache: { hits: number; misses: number; evictions: number; entries: number; sourceBytes: number };
}

export function getDefaultPool(): CompartmentPool;
/** The engine built for speed (opt-level 3): the default `wasm` of a pool. */
export const WASM_URL: URL;
/**
 * The same engine built for size (opt-level "s"): about 20% smaller gzipped and quicker to
 * compile, about 20% slower on guest code. `new CompartmentPool({ wasm: SMALL_WASM_URL })`.
 */
export const SMALL_WASM_URL: URL;

/** A genuine trusted-module export handed back by a guest (never a guest-made look-alike). */
export class TrustedToken {
  readonly module: string;
  readonly export: string;
}

export interface CompartmentOptions {
  /** Who the code belongs to; compartments of different principals never share a worker. */
  principal: string;
  /** Called on the main thread with cloned arguments; may be async. The guest gets a promise. */
  handler?: (...args: any[]) => any;
  exposeHandlerAs?: string;
  allowCodeGeneration?: boolean;
  limits?: Limits;
  modules?: ModulePolicy;
  pool?: CompartmentPool;
  /** Applies model patches to the host's store; return (or resolve) to acknowledge them. */
  onModelPatch?: (patches: ModelPatch[], info: { compartment: Compartment }) => unknown;
}

export interface CompartmentStats {
  calls: number;
  errors: number;
  totalMs: number;
  memoryBytes: number;
  respawns: number;
}

/**
 * A realm in a dedicated worker. Events (CustomEvent detail): 'terminated' ({ reason, message }),
 * 'console' (ConsoleDetail), 'error' and 'unhandledrejection' (SandboxError).
 */
export class Compartment extends EventTarget {
  static create(options: CompartmentOptions): Promise<Compartment>;
  readonly principal: string;
  /** Resolves with a clone of the completion value; a promise completion is awaited. */
  eval(source: string, options?: EvalOptions): Promise<any>;
  set(name: string, value: any): Promise<void>;
  call(name: string, ...args: any[]): Promise<any>;
  /** Imports and evaluates a module graph under the module policy; resolves with its export names. */
  import(url: string): Promise<string[]>;
  /** Replaces the module policy, evicting what was loaded under the old one; resolves with those URLs. */
  setModulePolicy(modules: ModulePolicy): Promise<string[]>;
  /** Creates a card instance in the sandbox (importing its module first). */
  createCard(type: CardTypeRef, data?: { id?: string; attributes?: Record<string, any>; relationships?: Record<string, string | string[] | null> }): Promise<CardInstance>;
  /** The reload path: rebuilds a serialized instance in the sandbox. */
  loadCard(instance: CardInstance): Promise<CardInstance>;
  /**
   * Many cards (stored instances, or new ones as `{ type, id?, attributes?, relationships? }`)
   * in one round trip per module and one for all the cards, in order: a card may link to one
   * before it. A card that fails yields { id, error } (id null if it had none) and fails nothing else.
   */
  loadCards(instances: (Partial<CardInstance> & { type: CardTypeRef })[]): Promise<(CardInstance | { id: string | null; error: SandboxError })[]>;
  render(id: string, format: CardFormat): Promise<CardRender>;
  /** One round trip for many cards; a failing card yields { id, format, error } and fails nothing else. */
  renderMany(list: [string, CardFormat][]): Promise<(CardRender | { id: string; format: CardFormat; error: SandboxError })[]>;
  /** Runs an action of the card's current render; resolves once onModelPatch acknowledged its patches. */
  dispatch(id: string, actionId: string, eventData?: CardEventData): Promise<DispatchResult>;
  describe(url: string): Promise<{ url: string; exports: CardExport[] }>;
  serializeCard(id: string): Promise<CardInstance>;
  dropCard(id: string): Promise<boolean>;
  /** Patches onModelPatch has not acknowledged yet (after its retries), oldest first. */
  unacknowledgedPatches(): ModelPatch[];
  retryPatches(): Promise<void>;
  /** Stops it now; its state is gone and the next call starts afresh. */
  terminate(): void;
  /**
   * Frees it. Once the realms disposed since its worker's last collection are (by estimate)
   * half its heap, the worker collects, after it has replied; later calls reject with
   * SANDBOX_DISPOSED.
   */
  dispose(): Promise<void>;
  stats(): CompartmentStats;
}
