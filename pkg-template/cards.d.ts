// Types for 'isolated-realm/cards': the host shim that turns card render trees into DOM.
import type { SandboxError, TrustedToken } from './index.js';

/** An opaque action id, e.g. "7:3". */
export type ActionId = string;
export type Format = 'isolated' | 'embedded' | 'fitted' | 'edit' | 'atom';

/** A render-tree node as the guest emits it. The shim treats every field as untrusted. */
export type Node = string | ElementNode | ComponentNode;

export interface ElementNode {
  tag: string;
  attrs?: { [name: string]: string };
  on?: { [event: string]: ActionId };
  children?: Node[];
  /** Optional reorder key; `attrs.key` works too. Never rendered as an attribute. */
  key?: string;
}

export interface ComponentNode {
  component: TrustedToken;
  props?: { [name: string]: unknown };
  on?: { [event: string]: ActionId };
  children?: Node[];
}

export interface Render {
  id: string;
  format: Format;
  tree: Node[];
  css: string;
  title: string;
}

export interface Patch {
  seq: number;
  id: string;
  path: string;
  op: 'replace';
  value: unknown;
}

export interface DispatchResult {
  render: Render;
  patches: Patch[];
  changed: string[];
}

/** What the guest gets for an event: primitives only, never a DOM Event. */
export interface EventData {
  type: string;
  key?: string;
  code?: string;
  /** Form controls only (string); a host component may also pass a number or boolean. */
  value?: string | number | boolean;
  checked?: boolean;
  altKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  shiftKey?: boolean;
  button?: number;
}

/**
 * A trusted host component for the vanilla renderer. `props` is the host component's own deep
 * copy; `children` are already sanitised DOM nodes; `on` callbacks sanitise what they get.
 */
export type HostComponent = (
  props: { [name: string]: unknown },
  children: globalThis.Node[],
  on: { readonly [event: string]: (eventData?: unknown) => void },
) => globalThis.Node;

export type Registry =
  | { [module: string]: { [exportName: string]: HostComponent } }
  | Map<string, Map<string, HostComponent> | { [exportName: string]: HostComponent }>;

export interface TokenMapper {
  /** The host component for a genuine token; throws SandboxError SANDBOX_UNKNOWN_TOKEN otherwise. */
  (token: unknown): HostComponent;
  has(token: unknown): boolean;
}

/** Copies `registry` now; lookups are own-property only. */
export function createTokenMapper(registry: Registry): TokenMapper;

/**
 * Origins (or URLs, reduced to their origin) whose images and CSS url()s may load, besides
 * the page's own origin and data:image/(png|gif|jpeg|webp). `'*'` allows any http(s) origin.
 * Omitted means none besides the page's.
 */
export type AllowedOrigins = string[];

export interface Dropped {
  /** Position in the tree, e.g. "0.2.1". */
  path: string;
  reason: 'tag' | 'attribute' | 'event' | 'malformed node' | 'malformed children' | 'malformed attrs' | 'malformed on';
  name?: string;
}

export interface RenderTreeOptions {
  mapper?: TokenMapper | ((token: unknown) => HostComponent);
  onAction?: (actionId: ActionId, data: EventData) => void;
  allowedOrigins?: AllowedOrigins;
  /** Leave the focused control's value and checked state alone (newer input is still queued). */
  keepFocusedValue?: boolean;
}

export interface RenderResult {
  /** What the policy removed (forbidden tags with their subtrees, attributes, malformed nodes). */
  dropped: Dropped[];
}

/**
 * Patches `root` to show `nodes`. Throws SandboxError SANDBOX_UNKNOWN_TOKEN (component not
 * mapped) or SANDBOX_RENDER_REJECTED (`limit`: maxDepth | maxNodes | maxAttributes) before
 * touching the DOM. Outside a shadow root, id/for/name and id references get `user-content-`.
 */
export function renderTree(root: Element | ShadowRoot | DocumentFragment, nodes: Node[], options?: RenderTreeOptions): RenderResult;

export const LIMITS: Readonly<{ maxDepth: number; maxNodes: number; maxAttributes: number }>;

/** CSS without @import, foreign url()s, image-set()/expression()/bindings and `</style`. */
export function sanitizeCss(css: string, allowedOrigins?: AllowedOrigins): string;

export interface CardErrorContext {
  id: string;
  format: Format;
  view: CardView;
}

export interface MountCardOptions {
  id: string;
  format?: Format;
  /** Source of renders and dispatches. Or pass `render`/`dispatch` functions instead. */
  compartment?: { render(id: string, format: Format): Promise<Render>; dispatch(id: string, actionId: ActionId, data: EventData): Promise<DispatchResult> };
  /** A function fetching renders (used without a compartment), or a first render to show. */
  render?: ((id: string, format: Format) => Promise<Render> | Render) | Render;
  dispatch?: (id: string, actionId: ActionId, data: EventData) => Promise<DispatchResult> | DispatchResult;
  mapper?: TokenMapper | ((token: unknown) => HostComponent);
  allowedOrigins?: AllowedOrigins;
  onCardError?: (error: unknown, context: CardErrorContext) => void;
}

export interface CardView {
  readonly id: string;
  readonly format: Format;
  /** The last good render's title. */
  readonly title: string;
  /** The container's shadow root: stale banner, content frame, error panel. */
  readonly shadowRoot: ShadowRoot;
  /** The nested shadow root holding the card's own style and content. */
  readonly contentRoot: ShadowRoot;
  /** The first render: resolves with it, or null if it failed (the panel says why). */
  readonly ready: Promise<Render | null>;
  /** Patches the content; on failure keeps the last good content, marks it stale and shows the error. */
  update(render: Render, options?: { keepFocusedValue?: boolean }): RenderResult | null;
  /** Renders afresh (after queued actions). Never rejects: failures go to the error panel. */
  refresh(): Promise<Render | null>;
  showError(error: unknown): void;
  /** Resolves once queued actions and refreshes are done. */
  settled(): Promise<void>;
  destroy(): void;
}

/**
 * Mounts a card into `container`'s (open) shadow root. Events (bubbling, on `container`):
 * `cardpatches` (detail `{ id, format, actionId, patches, changed }`) after each dispatch,
 * `carderror` (detail `{ error, id, format }`) on each failure. The container gets `data-stale` while
 * it shows an old render and `data-card-error` while the error panel is up.
 */
export function mountCard(container: Element, options: MountCardOptions): CardView;

export type CardsErrorCode = 'SANDBOX_UNKNOWN_TOKEN' | 'SANDBOX_RENDER_REJECTED' | 'SANDBOX_INVALID_OPTIONS';
export type { SandboxError };
