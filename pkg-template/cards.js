// The host shim for cards (docs/cards.md): turns guest render trees (untrusted data) into DOM.
// This file is the security boundary for guest markup: only allowlisted tags and attributes
// are created, URLs are parsed and checked, text goes through text nodes, and CSS is
// tokenised and stripped of imports and foreign url()s. It never parses HTML.

import { SandboxError } from './errors.js';
import { TrustedToken } from './client.js';

const hasOwn = Object.prototype.hasOwnProperty;
const own = (o, k) => (o !== null && typeof o === 'object' && hasOwn.call(o, k) ? o[k] : undefined);
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function fail(code, message, fields) {
  return new SandboxError({ code, message: `${message} [${code}]`, ...fields });
}

/** A short, inert description of an untrusted value for error messages. */
function describe(v) {
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  if (v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? 'an array' : 'a plain object';
}

// ------------------------------------------------------------------------------------------
// Token mapper
// ------------------------------------------------------------------------------------------

/** [key, value] pairs of a Map or of an object's own enumerable string keys. */
function pairs(source, what) {
  if (source instanceof Map) return [...source];
  if (isPlainObject(source)) return Object.keys(source).map((k) => [k, source[k]]);
  throw fail('SANDBOX_INVALID_OPTIONS', `${what} must be an object or a Map`, { option: 'registry' });
}

/**
 * `registry`: `{ [module]: { [export]: HostComponent } }` or Maps of the same. Copied now into
 * Maps, so later changes to it do not count and no lookup ever reaches a prototype.
 */
export function createTokenMapper(registry) {
  const table = new Map();
  for (const [module, exports] of pairs(registry, 'the registry')) {
    const inner = new Map();
    for (const [name, component] of pairs(exports, `registry[${describe(String(module))}]`)) {
      if (typeof component !== 'function') {
        throw fail('SANDBOX_INVALID_OPTIONS', `registry[${describe(String(module))}][${describe(String(name))}] must be a function`, { option: 'registry' });
      }
      inner.set(String(name), component);
    }
    table.set(String(module), inner);
  }
  const lookup = (token) => (token instanceof TrustedToken ? table.get(token.module)?.get(token.export) : undefined);
  const mapper = (token) => {
    const component = lookup(token);
    if (component) return component;
    if (!(token instanceof TrustedToken)) {
      throw fail('SANDBOX_UNKNOWN_TOKEN', `component ${describe(own(token, 'module'))}#${describe(own(token, 'export'))} is not a trusted token (${describe(token)})`, {});
    }
    throw fail('SANDBOX_UNKNOWN_TOKEN', `no host component for ${describe(token.module)}#${describe(token.export)} in the registry`, {});
  };
  mapper.has = (token) => lookup(token) !== undefined;
  return Object.freeze(mapper);
}

const EMPTY_MAPPER = createTokenMapper({});
// Events a card may handle: those a person causes. An event the page or the style sheet
// causes (animationstart, transitionend, load, error, toggle, scroll...) would tell the
// guest about the page without anyone acting.
const USER_EVENTS = new Set(['click', 'dblclick', 'auxclick', 'contextmenu', 'input', 'change', 'submit', 'reset',
  'keydown', 'keyup', 'focus', 'blur', 'focusin', 'focusout', 'pointerdown', 'pointerup', 'mousedown', 'mouseup',
  'pointerenter', 'pointerleave', 'mouseenter', 'mouseleave', 'beforeinput']);
// The events of a node that has none: shared, so never written to.
const NO_EVENTS = new Map();

// ------------------------------------------------------------------------------------------
// Policy: tags, attributes, URLs
// ------------------------------------------------------------------------------------------

const TAGS = new Set(('div span p a ul ol li h1 h2 h3 h4 h5 h6 strong em b i u s small code pre ' +
  'blockquote br hr img figure figcaption table thead tbody tfoot tr th td caption section ' +
  'article header footer nav aside main label input textarea select option button form ' +
  'fieldset legend time mark abbr dl dt dd details summary progress meter sub sup kbd q ' +
  'cite del ins var wbr').split(' '));

// URL attributes are allowed on one tag each; everything URL-like elsewhere is not listed.
const ATTRS = new Set(('class id title lang dir role tabindex hidden width height type name ' +
  'value placeholder checked disabled readonly required min max step for colspan rowspan ' +
  'scope datetime open selected multiple rows cols maxlength minlength size label start ' +
  'reversed low high optimum novalidate alt').split(' '));
const URL_ATTRS = { a: 'href', img: 'src' };
const NAME = /^[a-z][a-z0-9-]*$/i;

// No file pickers, image buttons (they load `src`) or password fields (autofill).
const INPUT_TYPES = new Set(('text search email url tel number range date time datetime-local ' +
  'month week color checkbox radio submit reset button hidden').split(' '));
const BUTTON_TYPES = new Set(['submit', 'reset', 'button']);
// Attributes naming ids: prefixed with ID_PREFIX outside a shadow root (DOM clobbering).
const IDREF_ATTRS = new Set(['id', 'for', 'name', 'aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-owns', 'aria-activedescendant', 'aria-details', 'aria-errormessage', 'aria-flowto']);
const ID_PREFIX = 'user-content-';

const DATA_IMAGE = /^data:image\/(png|gif|jpeg|webp)[;,]/i;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `{ page, any, origins, base }` from `allowedOrigins` (origins or URLs; `'*'` allows any). */
function originPolicy(allowedOrigins, doc) {
  const list = allowedOrigins === undefined || allowedOrigins === null ? [] : allowedOrigins;
  if (!Array.isArray(list)) throw fail('SANDBOX_INVALID_OPTIONS', 'allowedOrigins must be an array of origins', { option: 'allowedOrigins' });
  const origins = new Set();
  let any = false;
  for (const o of list) {
    if (o === '*') { any = true; continue; }
    try {
      origins.add(new URL(String(o)).origin);
    } catch {
      throw fail('SANDBOX_INVALID_OPTIONS', `allowedOrigins has an entry that is not a URL: ${describe(o)}`, { option: 'allowedOrigins' });
    }
  }
  const url = doc?.URL ?? globalThis.location?.href;
  let page = 'null';
  try { page = new URL(url).origin; } catch { /* no page: nothing is same-origin */ }
  return { page, any, origins, base: doc?.baseURI ?? url };
}

/** The parsed URL if `value` may be loaded as a resource (image, CSS url()), else null. */
function resourceUrl(value, policy) {
  if (typeof value !== 'string' || value.trim() === '' || CONTROL.test(value)) return null;
  let url;
  try { url = new URL(value, policy.base); } catch { return null; }
  if (url.protocol === 'data:') return DATA_IMAGE.test(url.href) ? url : null;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.origin === policy.page || policy.any || policy.origins.has(url.origin)) return url;
  return null;
}

/** The parsed URL if `value` may be a link target, else null. */
function linkUrl(value, policy) {
  if (typeof value !== 'string' || CONTROL.test(value)) return null;
  let url;
  try { url = new URL(value, policy.base); } catch { return null; }
  return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url : null;
}

// ------------------------------------------------------------------------------------------
// Normalising the tree: all checks happen here, before any DOM is touched
// ------------------------------------------------------------------------------------------

export const LIMITS = Object.freeze({ maxDepth: 256, maxNodes: 50_000, maxAttributes: 200_000 });

function rejected(limit, message) {
  return fail('SANDBOX_RENDER_REJECTED', message, { limit });
}

/** Walks untrusted nodes into clean vnodes; records what it drops. Throws on limits. */
class Normaliser {
  constructor(mapper, policy, prefixIds) {
    this.mapper = mapper;
    this.policy = policy;
    this.prefixIds = prefixIds;
    this.dropped = [];
    this.nodes = 0;
    this.attributes = 0;
  }

  drop(path, reason, name) {
    this.dropped.push(name === undefined ? { path, reason } : { path, reason, name: String(name).slice(0, 100) });
  }

  list(nodes, path, depth) {
    if (depth > LIMITS.maxDepth) throw rejected('maxDepth', `the render tree is nested deeper than ${LIMITS.maxDepth}`);
    const out = [];
    nodes.forEach((node, i) => {
      const v = this.node(node, path === '' ? String(i) : `${path}.${i}`, depth);
      if (v) out.push(v);
    });
    return out;
  }

  node(node, path, depth) {
    if (++this.nodes > LIMITS.maxNodes) throw rejected('maxNodes', `the render tree has more than ${LIMITS.maxNodes} nodes`);
    if (typeof node === 'string') return { kind: 'text', text: node };
    if (typeof node === 'number' && Number.isFinite(node)) return { kind: 'text', text: String(node) };
    if (isPlainObject(node) && hasOwn.call(node, 'component')) return this.component(node, path, depth);
    if (isPlainObject(node) && typeof own(node, 'tag') === 'string') return this.element(node, path, depth);
    this.drop(path, 'malformed node', describe(node));
    return null;
  }

  children(node, path, depth) {
    const children = own(node, 'children');
    if (children === undefined) return [];
    if (!Array.isArray(children)) {
      this.drop(path, 'malformed children', describe(children));
      return [];
    }
    return this.list(children, path, depth + 1);
  }

  element(node, path, depth) {
    const raw = node.tag;
    const tag = NAME.test(raw) ? raw.toLowerCase() : null;
    if (!tag || !TAGS.has(tag)) {
      this.drop(path, 'tag', raw);
      return null;
    }
    const attrs = this.attrs(tag, own(node, 'attrs'), path);
    let key = own(node, 'key') ?? attrs.key;
    delete attrs.key;
    key = typeof key === 'string' || typeof key === 'number' ? String(key) : null;
    const on = this.events(own(node, 'on'), path);
    return { kind: 'el', tag, key, attrs, on, children: this.children(node, path, depth) };
  }

  component(node, path, depth) {
    const component = this.mapper(node.component); // throws SANDBOX_UNKNOWN_TOKEN
    if (typeof component !== 'function') throw fail('SANDBOX_UNKNOWN_TOKEN', `the mapper returned no host component for ${describe(own(node.component, 'module'))}#${describe(own(node.component, 'export'))}`, {});
    const props = own(node, 'props') === undefined ? {} : this.data(node.props, depth);
    return { kind: 'comp', component, props: isPlainObject(props) ? props : {}, on: this.events(own(node, 'on'), path), children: this.children(node, path, depth) };
  }

  /** Allowed attributes as a null-prototype map of lowercase name → string. */
  attrs(tag, attrs, path) {
    const out = Object.create(null);
    if (attrs === undefined) return out;
    if (!isPlainObject(attrs)) {
      this.drop(path, 'malformed attrs', describe(attrs));
      return out;
    }
    for (const rawName of Object.keys(attrs)) {
      if (++this.attributes > LIMITS.maxAttributes) throw rejected('maxAttributes', `the render tree has more than ${LIMITS.maxAttributes} attributes and events`);
      const name = NAME.test(rawName) ? rawName.toLowerCase() : null;
      let value = attrs[rawName];
      if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
      const checked = name && typeof value === 'string' ? this.attr(tag, name, value) : null;
      if (checked === null) this.drop(path, 'attribute', rawName);
      else out[name] = checked;
    }
    return out;
  }

  /** The value to set for attribute `name` on `tag`, or null to drop it. */
  attr(tag, name, value) {
    if (name === 'key') return value;
    if (URL_ATTRS[tag] === name) {
      const url = tag === 'img' ? resourceUrl(value, this.policy) : linkUrl(value, this.policy);
      return url ? url.href : null;
    }
    const known = ATTRS.has(name) || /^(aria|data)-[a-z0-9-]+$/.test(name);
    if (!known) return null;
    if (name === 'type' && tag === 'input') return INPUT_TYPES.has(value.toLowerCase()) ? value : null;
    if (name === 'type' && tag === 'button') return BUTTON_TYPES.has(value.toLowerCase()) ? value : null;
    // Positive tabindex would reorder the host page's focus order.
    if (name === 'tabindex') return value === '0' || value === '-1' ? value : null;
    if (this.prefixIds && IDREF_ATTRS.has(name)) {
      return value.split(/\s+/).filter(Boolean).map((id) => ID_PREFIX + id).join(' ');
    }
    return value;
  }

  /** `on` as a Map of event name → action id. */
  events(on, path) {
    if (on === undefined) return NO_EVENTS;
    if (!isPlainObject(on)) {
      this.drop(path, 'malformed on', describe(on));
      return NO_EVENTS;
    }
    const names = Object.keys(on);
    if (names.length === 0) return NO_EVENTS;
    const out = new Map();
    for (const name of names) {
      if (++this.attributes > LIMITS.maxAttributes) throw rejected('maxAttributes', `the render tree has more than ${LIMITS.maxAttributes} attributes and events`);
      const id = on[name];
      if (USER_EVENTS.has(name) && typeof id === 'string') out.set(name, id);
      else this.drop(path, 'event', name);
    }
    return out;
  }

  /** A deep copy of component props as plain data. */
  data(v, depth) {
    if (depth > LIMITS.maxDepth) throw rejected('maxDepth', `component props are nested deeper than ${LIMITS.maxDepth}`);
    if (v === null || typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? undefined : v;
    if (++this.nodes > LIMITS.maxNodes) throw rejected('maxNodes', `the render tree has more than ${LIMITS.maxNodes} nodes`);
    if (v instanceof TrustedToken) return v; // frozen; host components may map it themselves
    if (v instanceof Date) return new Date(v.getTime());
    if (Array.isArray(v)) return Array.from(v, (x) => this.data(x, depth + 1));
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [this.data(k, depth + 1), this.data(x, depth + 1)]));
    if (v instanceof Set) return new Set([...v].map((x) => this.data(x, depth + 1)));
    const out = {};
    // defineProperty, not assignment: an own `__proto__` key stays a plain key.
    for (const k of Object.keys(v)) {
      Object.defineProperty(out, k, { value: this.data(v[k], depth + 1), writable: true, enumerable: true, configurable: true });
    }
    return out;
  }
}

function deepEqual(a, b) {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Map || a instanceof Set) return deepEqual([...a], [...b]);
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => hasOwn.call(b, k) && deepEqual(a[k], b[k]));
}

// ------------------------------------------------------------------------------------------
// Event data
// ------------------------------------------------------------------------------------------

const EVENT_FIELDS = { key: 'string', code: 'string', altKey: 'boolean', ctrlKey: 'boolean', metaKey: 'boolean', shiftKey: 'boolean' };
const isControl = (el) => el instanceof Element && ['input', 'select', 'textarea'].includes(el.localName);

/** The plain, primitive-only data a guest gets for a DOM event. */
function fromDomEvent(event, type, fromHost = false) {
  const out = { type };
  if (event instanceof MouseEvent && Number.isInteger(event.button)) out.button = event.button;
  // Keys and values only from elements the card itself made: a granted host component's
  // own controls (a password field, say) are not the guest's to read as they bubble.
  if (!fromHost && metas.get(event.target)?.kind !== 'el') return out;
  for (const [k, t] of Object.entries(EVENT_FIELDS)) if (typeof event[k] === t) out[k] = event[k];
  const control = isControl(event.currentTarget) ? event.currentTarget : isControl(event.target) ? event.target : null;
  if (control) {
    out.value = String(control.value);
    if (control.localName === 'input' && (control.type === 'checkbox' || control.type === 'radio')) out.checked = control.checked;
  }
  return out;
}

/** Sanitises whatever a host component passes to its `on` callback. */
function eventData(input, type) {
  // A host component that passes its own event chose to share it.
  if (input instanceof Event) return fromDomEvent(input, type, true);
  const out = { type };
  if (['string', 'number', 'boolean'].includes(typeof input)) {
    out.value = input;
    return out;
  }
  if (!isPlainObject(input)) return out;
  for (const [k, t] of Object.entries(EVENT_FIELDS)) if (typeof own(input, k) === t) out[k] = input[k];
  const value = own(input, 'value');
  if (['string', 'number', 'boolean'].includes(typeof value)) out.value = value;
  if (typeof own(input, 'checked') === 'boolean') out.checked = input.checked;
  if (Number.isInteger(own(input, 'button'))) out.button = input.button;
  return out;
}

// ------------------------------------------------------------------------------------------
// The DOM patcher
// ------------------------------------------------------------------------------------------

// What we know about each node we made: { kind, tag?, key?, on, handlers?, state, ... }.
const metas = new WeakMap();
// Per render root: the current onAction, read by listeners at event time.
const roots = new WeakMap();

function callAction(state, meta, type, data) {
  const id = meta.on.get(type);
  if (id !== undefined && typeof state.onAction === 'function') state.onAction(id, data);
}

function reusable(node, v) {
  const m = metas.get(node);
  if (!m || m.kind !== v.kind) return false;
  if (v.kind === 'el') return m.tag === v.tag && m.key === v.key;
  return true;
}

/** Whether a component node can stay as it is (same host component, props and shape). */
function keepable(m, v) {
  if (m.component !== v.component || !deepEqual(m.props, v.props)) return false;
  if (m.on.size !== v.on.size || [...v.on.keys()].some((k) => !m.on.has(k))) return false;
  return m.children.length === v.children.length &&
    v.children.every((c, i) => reusable(m.children[i], c) && (c.kind !== 'comp' || keepable(metas.get(m.children[i]), c)));
}

/** Makes `parent`'s children match `vnodes`, reusing nodes by key, else by position. */
function patchChildren(parent, vnodes, ctx) {
  const old = Array.from(parent.childNodes);
  const keyed = new Map();
  const unkeyed = [];
  for (const n of old) {
    const k = metas.get(n)?.key;
    if (k !== undefined && k !== null && !keyed.has(k)) keyed.set(k, n);
    else unkeyed.push(n);
  }
  let u = 0;
  vnodes.forEach((v, i) => {
    let node = null;
    if (v.kind === 'el' && v.key !== null) {
      const cand = keyed.get(v.key);
      if (cand && reusable(cand, v)) { node = cand; keyed.delete(v.key); }
    } else if (unkeyed[u] && reusable(unkeyed[u], v)) {
      node = unkeyed[u++];
    } else if (unkeyed[u + 1] && reusable(unkeyed[u + 1], v)) {
      node = unkeyed[u + 1]; // one node was removed here
      u += 2;
    } else if (!(unkeyed[u] && vnodes[i + 1] && reusable(unkeyed[u], vnodes[i + 1]))) {
      u++; // replaced, not inserted before
    }
    node = node ? update(node, v, ctx) : create(v, ctx);
    const at = parent.childNodes[i];
    if (at !== node) parent.insertBefore(node, at ?? null);
  });
  while (parent.childNodes.length > vnodes.length) parent.lastChild.remove();
}

function create(v, ctx) {
  if (v.kind === 'text') {
    const t = ctx.doc.createTextNode(v.text);
    metas.set(t, { kind: 'text' });
    return t;
  }
  if (v.kind === 'comp') return createComponent(v, ctx);
  const el = ctx.doc.createElement(v.tag);
  const m = { kind: 'el', tag: v.tag, key: v.key, on: NO_EVENTS, handlers: null, state: ctx.state };
  metas.set(el, m);
  // Nothing a card renders may submit a form: there is no action to go to but this page.
  if (v.tag === 'form') el.addEventListener('submit', (e) => e.preventDefault());
  return update(el, v, ctx, true);
}

function update(node, v, ctx, fresh = false) {
  const m = metas.get(node);
  if (v.kind === 'text') {
    if (node.data !== v.text) node.data = v.text;
    return node;
  }
  if (v.kind === 'comp') return keepable(m, v) ? updateComponent(node, m, v, ctx) : createComponent(v, ctx);
  // A fresh element has no attributes, children or focus to reconcile: most of a first
  // paint is fresh, so it skips the diffing.
  const before = fresh ? null : { value: node.getAttribute('value'), checked: node.hasAttribute('checked'), selected: node.hasAttribute('selected') };
  syncAttributes(node, v, ctx, fresh);
  syncListeners(node, m, v.on);
  if (fresh) for (const c of v.children) node.appendChild(create(c, ctx));
  else patchChildren(node, v.children, ctx);
  // A render answering an older keystroke must not overwrite what was typed since.
  const typing = !fresh && ctx.keepFocusedValue && node === node.getRootNode().activeElement;
  if (!typing) syncProperties(node, v, before, fresh);
  return node;
}

function syncAttributes(el, v, ctx, fresh) {
  const want = wantedAttributes(v, ctx);
  if (!fresh) for (const a of Array.from(el.attributes)) if (!(a.name in want)) el.removeAttribute(a.name);
  for (const name in want) if (fresh || el.getAttribute(name) !== want[name]) el.setAttribute(name, want[name]);
}

/** The attributes `v` gets: its own (a null-prototype map, never written to), or a copy with
 * `type` first and what links and images add. */
function wantedAttributes(v, ctx) {
  const links = v.tag === 'a' && v.attrs.href !== undefined, images = v.tag === 'img' && v.attrs.src !== undefined;
  if (v.attrs.type === undefined && !links && !images) return v.attrs;
  const want = Object.create(null);
  // `type` first: an input's value is interpreted by its type.
  if (v.attrs.type !== undefined) want.type = v.attrs.type;
  Object.assign(want, v.attrs);
  if (links) {
    const url = new URL(want.href);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== ctx.policy.page) {
      want.target = '_blank';
      want.rel = 'noopener noreferrer';
    }
  }
  if (images) want.referrerpolicy = 'no-referrer';
  return want;
}

// Controlled form state: the property follows the guest's value when the guest changes it,
// so typing is not overwritten by an unrelated re-render.
function syncProperties(el, v, before, fresh) {
  const value = v.attrs.value;
  if (value !== undefined && ['input', 'textarea', 'select'].includes(v.tag) && (fresh || value !== before.value) && el.value !== value) el.value = value;
  const checked = 'checked' in v.attrs;
  if (v.tag === 'input' && (fresh ? checked : checked !== before.checked)) el.checked = checked;
  const selected = 'selected' in v.attrs;
  if (v.tag === 'option' && (fresh ? selected : selected !== before.selected)) el.selected = selected;
}

function syncListeners(el, m, on) {
  m.on = on;
  if (m.handlers === null) {
    if (on.size === 0) return;
    m.handlers = new Map();
  }
  for (const [type, handler] of m.handlers) {
    if (!on.has(type)) {
      el.removeEventListener(type, handler);
      m.handlers.delete(type);
    }
  }
  for (const type of on.keys()) {
    if (m.handlers.has(type)) continue;
    const handler = (event) => {
      if (!m.on.has(type)) return;
      // An acted-on link or form does only what the guest does with the action.
      if (type === 'submit' || (type === 'click' && el.localName === 'a')) event.preventDefault();
      callAction(m.state, m, type, fromDomEvent(event, type));
    };
    m.handlers.set(type, handler);
    el.addEventListener(type, handler);
  }
}

function createComponent(v, ctx) {
  const m = { kind: 'comp', component: v.component, props: v.props, on: v.on, children: [], state: ctx.state };
  m.children = v.children.map((c) => create(c, ctx));
  const on = {};
  for (const type of v.on.keys()) on[type] = (data) => callAction(m.state, m, type, eventData(data, type));
  // The host component gets its own copy: it may keep or change what it is given.
  const props = new Normaliser(EMPTY_MAPPER, ctx.policy, false).data(v.props, 0);
  const el = v.component(props, [...m.children], Object.freeze(on));
  if (!(el instanceof Node)) {
    throw fail('SANDBOX_RENDER_REJECTED', `host component returned ${describe(el)}, not a DOM node`, {});
  }
  metas.set(el, m);
  return el;
}

function updateComponent(node, m, v, ctx) {
  m.on = v.on;
  m.children.forEach((child, i) => update(child, v.children[i], ctx));
  return node;
}

/**
 * Renders `nodes` (an untrusted render tree) into `root`, patching what is there.
 * Returns `{ dropped }`: what the policy removed, for diagnostics.
 */
export function renderTree(root, nodes, options = {}) {
  if (!(root instanceof Element || root instanceof DocumentFragment)) {
    throw fail('SANDBOX_INVALID_OPTIONS', 'root must be an Element or a ShadowRoot', { option: 'root' });
  }
  if (!Array.isArray(nodes)) throw fail('SANDBOX_RENDER_REJECTED', `the render tree must be an array, not ${describe(nodes)}`, {});
  const { mapper = EMPTY_MAPPER, onAction, allowedOrigins, keepFocusedValue = false } = options;
  if (typeof mapper !== 'function') throw fail('SANDBOX_INVALID_OPTIONS', 'mapper must be a function', { option: 'mapper' });
  const doc = root.ownerDocument;
  const policy = originPolicy(allowedOrigins, doc);
  // ids and names in the document itself could clobber the host page's globals.
  const prefixIds = !(root.getRootNode() instanceof ShadowRoot);
  const normaliser = new Normaliser(mapper, policy, prefixIds);
  const vnodes = normaliser.list(nodes, '', 0);
  let state = roots.get(root);
  if (!state) roots.set(root, (state = {}));
  state.onAction = onAction;
  patchChildren(root, vnodes, { doc, policy, state, keepFocusedValue });
  return { dropped: normaliser.dropped };
}

// ------------------------------------------------------------------------------------------
// CSS
// ------------------------------------------------------------------------------------------

// A tokenizer after CSS Syntax 3 §4.3, exact where it decides what is a string, comment,
// url, name or number. The output also gets an empty comment between two adjacent tokens
// that could read as one, so a browser re-reading it splits tokens where we did.
const isDigit = (c) => c !== undefined && c >= '0' && c <= '9';
const isHex = (c) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isWs = (c) => c === ' ' || c === '\t' || c === '\n';
const isNameStart = (c) => c !== undefined && (/^[a-zA-Z_]$/.test(c) || c.charCodeAt(0) >= 0x80);
const isNameChar = (c) => isNameStart(c) || isDigit(c) || c === '-';
const validEscape = (s, i) => s[i] === '\\' && s[i + 1] !== '\n';
const startsIdent = (s, i) => {
  if (s[i] === '-') return isNameStart(s[i + 1]) || s[i + 1] === '-' || validEscape(s, i + 1);
  return isNameStart(s[i]) || validEscape(s, i);
};
const startsNumber = (s, i) => {
  if (s[i] === '+' || s[i] === '-') return isDigit(s[i + 1]) || (s[i + 1] === '.' && isDigit(s[i + 2]));
  if (s[i] === '.') return isDigit(s[i + 1]);
  return isDigit(s[i]);
};
const NON_PRINTABLE = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

/** At a valid escape (`\`): [decoded character, next index]. */
function escapeAt(s, i) {
  let j = i + 1;
  if (j >= s.length) return ['\uFFFD', j];
  if (isHex(s[j])) {
    let hex = '';
    while (hex.length < 6 && isHex(s[j])) hex += s[j++];
    if (isWs(s[j])) j++;
    const cp = parseInt(hex, 16);
    return [cp === 0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ? '\uFFFD' : String.fromCodePoint(cp), j];
  }
  return [s[j], j + 1];
}

function nameAt(s, i) {
  let name = '';
  for (;;) {
    if (isNameChar(s[i])) name += s[i++];
    else if (validEscape(s, i)) { const [c, j] = escapeAt(s, i); name += c; i = j; }
    else return [name, i];
  }
}

function numberAt(s, i) {
  let j = i;
  if (s[j] === '+' || s[j] === '-') j++;
  while (isDigit(s[j])) j++;
  if (s[j] === '.' && isDigit(s[j + 1])) { j += 2; while (isDigit(s[j])) j++; }
  if ((s[j] === 'e' || s[j] === 'E') && (isDigit(s[j + 1]) || ((s[j + 1] === '+' || s[j + 1] === '-') && isDigit(s[j + 2])))) {
    j += isDigit(s[j + 1]) ? 2 : 3;
    while (isDigit(s[j])) j++;
  }
  if (startsIdent(s, j)) return nameAt(s, j)[1]; // a dimension: its unit is a name, never a function
  return s[j] === '%' ? j + 1 : j;
}

function stringAt(s, i) {
  const quote = s[i++];
  let value = '';
  while (i < s.length) {
    const c = s[i];
    if (c === quote) return [value, i + 1, true];
    if (c === '\n') return [value, i, false]; // a bad string ends before the newline
    if (c === '\\') {
      if (i + 1 >= s.length) { i++; continue; }
      if (s[i + 1] === '\n') { i += 2; continue; }
      const [d, j] = escapeAt(s, i);
      value += d;
      i = j;
      continue;
    }
    value += c;
    i++;
  }
  return [value, i, false];
}

/** After `url(`: [value, or null for a bad url, next index]. */
function urlAt(s, i) {
  while (isWs(s[i])) i++;
  let value = '';
  while (i < s.length) {
    const c = s[i];
    if (c === ')') return [value, i + 1];
    if (isWs(c)) {
      while (isWs(s[i])) i++;
      if (i >= s.length) return [value, i];
      if (s[i] === ')') return [value, i + 1];
      break;
    }
    if (c === '"' || c === "'" || c === '(' || NON_PRINTABLE.test(c)) break;
    if (c === '\\') {
      if (!validEscape(s, i)) break;
      const [d, j] = escapeAt(s, i);
      value += d;
      i = j;
      continue;
    }
    value += c;
    i++;
  }
  while (i < s.length && s[i] !== ')') i = validEscape(s, i) ? escapeAt(s, i)[1] : i + 1;
  return [null, Math.min(i + 1, s.length)];
}

/** Tokens `{ type, text, name?, value? }`; `text` is the exact source. */
function tokenize(s) {
  const tokens = [];
  let i = 0;
  const push = (type, end, extra) => { tokens.push({ type, text: s.slice(i, end), ...extra }); i = end; };
  while (i < s.length) {
    const c = s[i];
    if (c === '/' && s[i + 1] === '*') {
      const end = s.indexOf('*/', i + 2);
      push('comment', end < 0 ? s.length : end + 2);
    } else if (isWs(c)) {
      let j = i;
      while (isWs(s[j])) j++;
      push('ws', j);
    } else if (c === '"' || c === "'") {
      const [value, j, closed] = stringAt(s, i);
      push('string', j, { value, closed });
    } else if (startsNumber(s, i)) {
      push('number', numberAt(s, i));
    } else if (c === '-' && s[i + 1] === '-' && s[i + 2] === '>') {
      push('delim', i + 3);
    } else if ((c === '@' || c === '#') && (c === '#' ? isNameChar(s[i + 1]) || validEscape(s, i + 1) : startsIdent(s, i + 1))) {
      const [name, j] = nameAt(s, i + 1);
      push(c === '@' ? 'at' : 'hash', j, { name: name.toLowerCase() });
    } else if (startsIdent(s, i)) {
      const [name, j] = nameAt(s, i);
      const lower = name.toLowerCase();
      if (s[j] !== '(') {
        push('ident', j, { name: lower });
      } else {
        let k = j + 1;
        while (isWs(s[k])) k++;
        if (lower === 'url' && s[k] !== '"' && s[k] !== "'") {
          const [value, end] = urlAt(s, j + 1);
          push('url', end, { value });
        } else {
          push('function', j + 1, { name: lower });
        }
      }
    } else if ('(){}[];:,'.includes(c)) {
      push(c, i + 1);
    } else {
      push('delim', i + 1);
    }
  }
  return tokens;
}

// Functions that load what they are given without url(), or run code.
// `:host-context()` matches the card's ancestors in the page: with an animation event it
// told the guest the page's classes and attributes.
const CSS_BAD_FUNCTIONS = new Set(['expression', 'image-set', '-webkit-image-set', 'image', 'cross-fade',
  '-webkit-cross-fade', 'src', 'element', '-moz-element', 'paint', 'host-context']);
const CSS_BAD_IDENTS = new Set(['-moz-binding', 'behavior', '-ms-behavior']);
const CSS_PUNCT = new Set(['(', ')', '{', '}', '[', ']', ';', ':', ',']);
const MAX_CSS = 1 << 20;

/** Index after the `)` closing the function or `(` at `i`. */
function closeParen(tokens, i) {
  let depth = 0;
  for (let j = i; j < tokens.length; j++) {
    const t = tokens[j].type;
    if (t === '(' || t === 'function') depth++;
    else if (t === ')' && --depth === 0) return j + 1;
  }
  return tokens.length;
}

/** Whether a browser could read token text `left` followed by `right` as one token. */
function mergeable(left, type, right) {
  const r = right[0];
  const nameish = isNameChar(r) || r === '\\';
  if (['ident', 'at', 'hash', 'number'].includes(type)) return nameish || r === '(' || (type === 'number' && (r === '%' || r === '.'));
  if (type !== 'delim') return false;
  switch (left) {
    case '-': return nameish || r === '.';
    case '+': case '.': return isDigit(r) || r === '.';
    case '@': case '#': return nameish;
    case '\\': return true;
    case '/': return r === '*';
    case '<': return r === '!';
    default: return false;
  }
}

// Strings and urls are written back from the value that was checked, with every character
// the CSS parser could read another way hex-escaped (so no `</style` survives either): the
// browser reads what was checked. Rewriting the raw text instead once turned `\<` into a
// backslash that ends a URL's host.
const cssString = (value) => `"${value.replace(/[\\"'<>()\u0000-\u001f\u007f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;

/**
 * A segment (the tokens between `{`, `}` and `;`) as output pieces `[text, kind]`, or null
 * if it must go (with its block, if it opens one).
 */
function cleanSegment(tokens, policy) {
  const property = tokens.find((t) => t.type !== 'ws' && t.type !== 'comment');
  const out = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'at' && t.name === 'import') return null;
    if (t.type === 'ident' && CSS_BAD_IDENTS.has(t.name)) return null;
    if (t.type === 'function' && CSS_BAD_FUNCTIONS.has(t.name)) return null;
    // `#url(` or `1url(` is no url() to a browser, and never valid CSS: not worth keeping.
    if ((t.type === 'hash' || t.type === 'number') && tokens[i + 1]?.type === '(') return null;
    // attr() only where it is text: `content`.
    if (t.type === 'function' && t.name === 'attr' && !(property?.type === 'ident' && property.name === 'content')) return null;
    if (t.type === 'ws' || t.type === 'comment') {
      out.push([t.type === 'ws' ? t.text : '/**/', 'gap']);
    } else if (t.type === 'url') {
      const ok = t.value !== null && resourceUrl(t.value, policy);
      out.push(ok ? [`url(${cssString(t.value)})`, 'url'] : ['none', 'ident']);
    } else if (t.type === 'function' && t.name === 'url') {
      const end = closeParen(tokens, i);
      const inner = tokens.slice(i + 1, end - 1).filter((x) => x.type !== 'ws' && x.type !== 'comment');
      const ok = tokens[end - 1]?.type === ')' && inner.length === 1 && inner[0].type === 'string' && resourceUrl(inner[0].value, policy);
      out.push(ok ? [`url(${cssString(inner[0].value)})`, 'url'] : ['none', 'ident']);
      i = end - 1;
    } else if (t.type === 'string') {
      // A bad string voids its declaration anyway.
      if (!t.closed) return null;
      out.push([cssString(t.value), 'string']);
    } else {
      out.push([t.text, CSS_PUNCT.has(t.type) ? 'gap' : t.type]);
    }
  }
  return out;
}

/**
 * `css` without `@import`, without url()s that leave the page's origin or `allowedOrigins`
 * (data:image/png|gif|jpeg|webp is fine), without image-set()/expression()/bindings, and
 * without `</style`. Drops whole declarations or rules when in doubt.
 */
export function sanitizeCss(css, allowedOrigins = []) {
  const policy = originPolicy(allowedOrigins, globalThis.document);
  let s = String(css ?? '');
  if (s.length > MAX_CSS) throw fail('SANDBOX_RENDER_REJECTED', `the card CSS is longer than ${MAX_CSS} characters`, { limit: 'maxCssLength' });
  s = s.replace(/\r\n?|\f/g, '\n').replace(/\u0000/g, '\uFFFD');
  const tokens = tokenize(s);
  const pieces = [];
  let i = 0;
  while (i < tokens.length) {
    let j = i;
    while (j < tokens.length && !'{};'.includes(tokens[j].type)) j++;
    const clean = cleanSegment(tokens.slice(i, j), policy);
    const term = tokens[j];
    if (term?.type === '{' && clean === null) {
      let depth = 0; // skip the rule with its whole block
      for (; j < tokens.length; j++) {
        if (tokens[j].type === '{') depth++;
        else if (tokens[j].type === '}' && --depth === 0) break;
      }
      i = j + 1;
      continue;
    }
    // A dropped statement goes with its `;`: at top level a stray `;` would become part of
    // the next rule's selector and void it.
    if (clean) pieces.push(...clean);
    if (term && !(clean === null && term.type === ';')) pieces.push([term.text, 'gap']);
    i = j + 1;
  }
  let out = '';
  pieces.forEach(([text, kind], k) => {
    const prev = pieces[k - 1];
    if (prev && kind !== 'gap' && mergeable(prev[0], prev[1], text)) out += '/**/';
    out += text;
  });
  // Outside strings `<` and `/` are lone delimiters; a space between them changes nothing.
  return out.replace(/<\//g, '< /');
}

// ------------------------------------------------------------------------------------------
// mountCard
// ------------------------------------------------------------------------------------------

const BASE_CSS = `
:host { display: block; }
.frame { contain: content; position: relative; }
.frame[data-stale] > .content { opacity: 0.6; }
[hidden] { display: none !important; }
.stale { font: 12px/1.4 system-ui, sans-serif; background: #fff4ce; color: #5c4400; border: 1px solid #e5c55c; padding: 4px 8px; }
.error { font: 13px/1.4 system-ui, sans-serif; background: #fde7e9; color: #5c0011; border: 1px solid #e8a0a8; padding: 8px; }
.error h2 { font-size: 13px; margin: 0 0 4px; }
.error dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 8px; margin: 0; }
.error dt { font-weight: 600; }
.error dd { margin: 0; overflow-wrap: anywhere; }
.error pre { margin: 6px 0 0; padding: 6px; background: #fff; overflow: auto; max-height: 16em; white-space: pre-wrap; font: 12px/1.4 ui-monospace, monospace; }
`;

function el(doc, tag, attrs = {}, text) {
  const e = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function errorRows(error, id, format) {
  const e = error ?? {};
  const rows = [['card', 'Card', `${id} (${format})`]];
  if (e.filename) rows.push(['filename', 'Module', String(e.filename)]);
  if (e.line !== undefined) rows.push(['location', 'Line:column', `${e.line}:${e.column ?? '?'}`]);
  rows.push(['code', 'Code', String(e.code ?? e.name ?? 'Error')]);
  rows.push(['message', 'Message', String(e.message ?? error)]);
  return rows;
}

function report(e) {
  if (typeof globalThis.reportError === 'function') globalThis.reportError(e);
}

/**
 * Mounts card `id` in `format` into `container`'s shadow root. Content lives in a nested
 * shadow root under a paint-contained frame: the card's CSS cannot reach the stale banner or
 * the error panel, and nothing it positions can leave the frame.
 */
export function mountCard(container, options = {}) {
  if (!(container instanceof Element)) throw fail('SANDBOX_INVALID_OPTIONS', 'container must be an Element', { option: 'container' });
  const { compartment, id, format = 'isolated', mapper = EMPTY_MAPPER, allowedOrigins = [], onCardError } = options;
  if (typeof id !== 'string') throw fail('SANDBOX_INVALID_OPTIONS', 'id must be a string', { option: 'id' });
  const source = compartment
    ? { render: (...a) => compartment.render(...a), dispatch: (...a) => compartment.dispatch(...a) }
    : { render: typeof options.render === 'function' ? options.render : null, dispatch: typeof options.dispatch === 'function' ? options.dispatch : null };
  originPolicy(allowedOrigins, container.ownerDocument); // validate now

  const doc = container.ownerDocument;
  const shadow = container.shadowRoot ?? container.attachShadow({ mode: 'open' });
  shadow.replaceChildren();
  const frame = el(doc, 'div', { class: 'frame', part: 'frame' });
  const host = el(doc, 'div', { class: 'content', part: 'content' });
  const banner = el(doc, 'div', { class: 'stale', part: 'stale', role: 'status', hidden: '' }, 'This card could not update: showing its last good render.');
  const panel = el(doc, 'section', { class: 'error', part: 'error', role: 'alert', hidden: '' });
  frame.append(host);
  shadow.append(el(doc, 'style', {}, BASE_CSS), banner, frame, panel);
  const content = host.attachShadow({ mode: 'open' });
  const cardStyle = el(doc, 'style');
  const body = el(doc, 'div', { class: 'card', part: 'card' });
  content.append(cardStyle, body);

  let good = false;
  let destroyed = false;
  let queue = Promise.resolve();
  let waiting = 0; // actions raised and not finished
  const enqueue = (job) => {
    const run = queue.then(() => (destroyed ? null : job()));
    queue = run.catch(() => {});
    return run;
  };

  const onAction = (actionId, data) => {
    waiting++;
    enqueue(async () => {
      if (!source.dispatch) throw fail('SANDBOX_INVALID_OPTIONS', 'this card view has no compartment or dispatch function', { option: 'dispatch' });
      const result = await source.dispatch(id, actionId, data);
      if (destroyed) return;
      // Later events are queued: this render is not the latest, so leave the focused control.
      if (result && result.render) view.update(result.render, { keepFocusedValue: waiting > 1 });
      const detail = { id, format, actionId, patches: result?.patches ?? [], changed: result?.changed ?? [] };
      container.dispatchEvent(new CustomEvent('cardpatches', { detail, bubbles: true }));
    }).catch((e) => { if (!destroyed) view.showError(e); }).finally(() => { waiting--; });
  };

  const view = {
    id,
    format,
    title: '',
    shadowRoot: shadow,
    contentRoot: content,
    /** Patches the content to `render`; on failure keeps the last good content and shows why. */
    update(render, { keepFocusedValue = false } = {}) {
      if (destroyed) return null;
      try {
        if (!isPlainObject(render) || !Array.isArray(own(render, 'tree'))) {
          throw fail('SANDBOX_RENDER_REJECTED', `a render must be an object with a tree array, not ${describe(render)}`, {});
        }
        const css = sanitizeCss(own(render, 'css') ?? '', allowedOrigins);
        const result = renderTree(body, render.tree, { mapper, onAction, allowedOrigins, keepFocusedValue });
        if (cardStyle.textContent !== css) cardStyle.textContent = css;
        const title = typeof render.title === 'string' ? render.title : '';
        if (host.getAttribute('aria-label') !== title) host.setAttribute('aria-label', title);
        view.title = title;
        good = true;
        clearError();
        return result;
      } catch (e) {
        view.showError(e);
        return null;
      }
    },
    /** Asks for a fresh render; resolves with it, or null if it failed (the panel says why). */
    refresh() {
      return enqueue(async () => {
        if (!source.render) return null;
        const render = await source.render(id, format);
        if (destroyed) return null;
        return view.update(render) ? render : null;
      }).catch((e) => {
        if (!destroyed) view.showError(e);
        return null;
      });
    },
    showError(error) {
      if (destroyed) return;
      const rows = errorRows(error, id, format);
      const dl = el(doc, 'dl');
      for (const [field, label, value] of rows) {
        dl.append(el(doc, 'dt', {}, label), el(doc, 'dd', { 'data-field': field }, value));
      }
      const parts = [el(doc, 'h2', {}, 'This card failed'), dl];
      if (error && error.guestStack) parts.push(el(doc, 'pre', { 'data-field': 'stack' }, String(error.guestStack)));
      panel.replaceChildren(...parts);
      panel.hidden = false;
      container.setAttribute('data-card-error', '');
      if (good) {
        banner.hidden = false;
        frame.setAttribute('data-stale', '');
        container.setAttribute('data-stale', '');
      }
      try {
        if (typeof onCardError === 'function') onCardError(error, { id, format, view });
      } catch (e) {
        report(e);
      }
      container.dispatchEvent(new CustomEvent('carderror', { detail: { error, id, format }, bubbles: true }));
    },
    /** Resolves once every queued action and refresh has finished. */
    settled() {
      return queue.then(() => undefined);
    },
    destroy() {
      if (destroyed) return;
      renderTree(body, [], {}); // drops the listeners with their elements
      destroyed = true;
      shadow.replaceChildren();
      for (const a of ['data-stale', 'data-card-error']) container.removeAttribute(a);
    },
  };

  function clearError() {
    if (!panel.hidden) { panel.hidden = true; panel.replaceChildren(); }
    if (!banner.hidden) banner.hidden = true;
    if (frame.hasAttribute('data-stale')) frame.removeAttribute('data-stale');
    for (const a of ['data-stale', 'data-card-error']) if (container.hasAttribute(a)) container.removeAttribute(a);
  }

  if (isPlainObject(options.render)) view.ready = Promise.resolve(view.update(options.render) ? options.render : null);
  else view.ready = source.render ? view.refresh() : Promise.resolve(null);
  return view;
}
