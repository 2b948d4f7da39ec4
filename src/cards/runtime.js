// The card runtime. It runs inside the guest realm with the guest's authority and nothing
// more: everything it returns crosses the boundary by clone like any guest value, and the
// host shim treats render trees as untrusted. Rust evaluates this once per realm, keeps
// `ops` to itself and exposes `api` as the trusted card-API module.
(function () {
  'use strict';

  const FORMATS = ['isolated', 'embedded', 'fitted', 'edit', 'atom'];
  const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  const hasOwn = Object.hasOwn;
  const isFn = (f) => typeof f === 'function';

  // ---- field declarations -------------------------------------------------------------

  class FieldDescriptor {
    constructor(kind, type, options) {
      if (!isFn(type)) throw new TypeError(`${kind}() needs a field or card class`);
      this.kind = kind;
      this.type = type;
      this.computeVia = options && isFn(options.computeVia) ? options.computeVia : null;
      Object.freeze(this);
    }
  }
  class TrackedInit {
    constructor(value) { this.value = value; }
  }

  const contains = (type, options) => new FieldDescriptor('contains', type, options);
  const containsMany = (type, options) => new FieldDescriptor('containsMany', type, options);
  const linksTo = (type, options) => new FieldDescriptor('linksTo', type, options);
  const linksToMany = (type, options) => new FieldDescriptor('linksToMany', type, options);
  // `@field title = contains(X)` becomes `title = field(contains(X))` (or just drop `field`).
  const field = (d) => {
    if (!(d instanceof FieldDescriptor)) throw new TypeError('field() takes contains(), containsMany(), linksTo() or linksToMany()');
    return d;
  };
  // `@tracked count = 0` becomes `count = tracked(0)`.
  const tracked = (value) => new TrackedInit(value);
  // `@action` is not needed: any method or arrow function can be an action.
  const action = (f) => f;

  // ---- instances ----------------------------------------------------------------------

  const schemas = new WeakMap(); // class -> Map(name -> FieldDescriptor)
  const state = new WeakMap(); // proxy -> { values, owner, path, card, id, dirty }
  const instances = new Map(); // id -> card proxy
  let nextId = 1;
  let patchSeq = 1;
  let patches = [];
  // Read by Rust after every message: patches written outside a call that returns them
  // (an async action still waiting, a guest timer) leave the worker at once.
  const outbox = { count: 0 };
  const changed = new Set();
  let silent = 0; // > 0 while loading data: writes are not patches

  function schemaOf(cls) {
    let s = schemas.get(cls);
    if (!s) {
      s = new Map();
      schemas.set(cls, s);
    }
    return s;
  }

  // Subclass field initialisers run after the base constructor; a proxy `this` sees each
  // of them as a defineProperty, which turns field declarations into accessors.
  const trap = {
    defineProperty(target, key, desc) {
      const st = state.get(target);
      if (st && typeof key === 'string' && hasOwn(desc, 'value')) {
        if (desc.value instanceof FieldDescriptor) {
          return Reflect.defineProperty(target, key, accessorOf(st.cls, key, desc.value));
        }
        if (desc.value instanceof TrackedInit) {
          let v = desc.value.value;
          return Reflect.defineProperty(target, key, {
            get: () => v,
            set: (x) => { v = x; markChanged(st); },
            enumerable: true, configurable: true,
          });
        }
      }
      return Reflect.defineProperty(target, key, desc);
    },
  };

  // One accessor per field of a class, made by its first instance: every instance then
  // shares it. A field with `computeVia` gets its own each time (the function may close
  // over the instance), and so does one declared differently from the last time.
  const accessors = new WeakMap(); // class -> Map(name -> [FieldDescriptor, accessor])
  function accessorOf(cls, key, d) {
    let byName = accessors.get(cls);
    if (!byName) accessors.set(cls, (byName = new Map()));
    const seen = byName.get(key);
    if (seen && !d.computeVia && seen[0].kind === d.kind && seen[0].type === d.type && !seen[0].computeVia) return seen[1];
    const schema = schemaOf(cls);
    if (!schema.has(key)) allFields = new WeakMap();
    schema.set(key, d);
    const accessor = fieldAccessor(key, d);
    byName.set(key, [d, accessor]);
    return accessor;
  }

  function markChanged(st) {
    const card = st.card || st;
    if (card.id) changed.add(card.id);
  }

  function fieldAccessor(name, d) {
    return {
      enumerable: true,
      configurable: true,
      get() {
        const st = state.get(this);
        if (st && st.pending !== undefined) settle(this);
        if (d.computeVia) return d.computeVia.call(this);
        if (!st) return undefined;
        if (!hasOwn(st.values, name)) st.values[name] = emptyValue(d);
        return st.values[name];
      },
      set(value) {
        const st = state.get(this);
        if (!st) return;
        if (st.pending !== undefined) settle(this);
        const path = st.path ? `${st.path}.${name}` : name;
        if (d.computeVia) throw new TypeError(`field "${path}" is computed and cannot be set`);
        st.values[name] = coerce(d, value, this, path);
        record(st, path, st.values[name], d);
      },
    };
  }

  function emptyValue(d) {
    if (d.kind === 'containsMany' || d.kind === 'linksToMany') return Object.freeze([]);
    return null;
  }

  function isPrimitiveField(type) {
    // The cheap test first: compound fields and cards fail it without walking a chain.
    return type.primitive === true && isFn(type.serialize) && type.prototype instanceof FieldDef;
  }

  function coerce(d, value, owner, path) {
    if (d.kind === 'containsMany' || d.kind === 'linksToMany') {
      if (value == null) return Object.freeze([]);
      if (!Array.isArray(value)) throw new TypeError(`field "${path}" takes an array`);
      const one = { kind: d.kind === 'containsMany' ? 'contains' : 'linksTo', type: d.type };
      return Object.freeze(value.map((v, i) => coerce(one, v, owner, `${path}[${i}]`)));
    }
    if (value == null) return null;
    if (d.kind === 'linksTo') {
      if (!(value instanceof CardDef)) throw new TypeError(`field "${path}" links to a card, not ${typeof value}`);
      return value;
    }
    if (isPrimitiveField(d.type)) return d.type.deserialize(value, path);
    // A compound field: an instance of the FieldDef class, owned at `path`.
    const inst = value instanceof d.type ? value : d.type.create(value);
    const st = state.get(inst);
    if (st) {
      const parent = state.get(owner);
      st.card = parent ? parent.card || parent : null;
      st.path = path;
    }
    return inst;
  }

  function record(st, path, value, d) {
    const card = st.card || st;
    if (!card.id) return;
    changed.add(card.id);
    if (silent > 0) return;
    patches.push({ seq: patchSeq++, id: card.id, path, op: 'replace', value: serializeValue(d, value, path) });
    outbox.count = patches.length;
  }

  class Base {
    constructor(data) {
      const cls = new.target;
      const target = this;
      const proxy = new Proxy(target, trap);
      // `pending`: constructor data, applied once the subclass's field initialisers ran.
      const st = { cls, values: Object.create(null), card: null, path: '', id: null, pending: data };
      state.set(target, st);
      state.set(proxy, st);
      return proxy;
    }

    static create(data) {
      const inst = new this();
      silent++;
      try {
        assign(inst, data || {});
      } finally {
        silent--;
      }
      return inst;
    }
  }
  // Applies constructor data once the subclass finished its field initialisers.
  function settle(inst) {
    const st = state.get(inst);
    if (st && st.pending !== undefined) {
      const data = st.pending;
      st.pending = undefined;
      silent++;
      try { assign(inst, data); } finally { silent--; }
    }
    return inst;
  }

  function assign(inst, data) {
    if (data === null || typeof data !== 'object') throw new TypeError('card data must be an object');
    const schema = fieldsOf(inst.constructor);
    const keys = Object.keys(data);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const d = schema.get(key);
      if (!d) throw new TypeError(`${inst.constructor.name} has no field "${key}"`);
      if (d.computeVia) continue;
      inst[key] = data[key];
    }
  }

  // The fields of a class, including inherited ones (declarations run on construction).
  // Cached per class; a declaration not seen before drops the cache.
  let allFields = new WeakMap();
  function fieldsOf(cls) {
    const cached = allFields.get(cls);
    if (cached) return cached;
    if (!schemas.has(cls)) probe(cls);
    const all = new Map();
    const chain = [];
    for (let c = cls; c && c !== Base && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
    for (let i = 0; i < chain.length; i++) {
      const s = schemas.get(chain[i]);
      if (s) s.forEach((v, k) => all.set(k, v));
    }
    allFields.set(cls, all);
    return all;
  }

  function probe(cls) {
    // Field initialisers record into the schema of the class being constructed.
    silent++;
    try { new cls(); } finally { silent--; }
  }

  class CardDef extends Base {
    static displayName = 'Card';
    static isCardDef = true;
    title = contains(StringField);
    description = contains(StringField);
  }

  class FieldDef extends Base {
    static displayName = 'Field';
    static isFieldDef = true;
  }

  function primitive(name, serialize, deserialize, edit) {
    const cls = {
      [name]: class extends FieldDef {
        static displayName = name.replace(/Field$/, '');
        static primitive = true;
        static serialize(v) { return v == null ? null : serialize(v); }
        static deserialize(v, path) { return v == null ? null : deserialize(v, path); }
        static editor = edit;
      },
    }[name];
    return cls;
  }

  const StringField = primitive('StringField', String, String, (v, set) => h('input', { type: 'text', value: v ?? '', on: { input: (e) => set(e.value) } }));
  const NumberField = primitive('NumberField', Number, (v, path) => {
    const n = Number(v);
    if (!Number.isFinite(n)) throw new TypeError(`field "${path}" takes a finite number, not ${String(v)}`);
    return n;
  }, (v, set) => h('input', { type: 'number', value: v == null ? '' : String(v), on: { input: (e) => set(e.value === '' ? null : e.value) } }));
  const BooleanField = primitive('BooleanField', Boolean, Boolean, (v, set) => h('input', { type: 'checkbox', checked: !!v, on: { change: (e) => set(!!e.checked) } }));
  const DateField = primitive('DateField', (d) => d.toISOString().slice(0, 10), (v, path) => {
    const d = v instanceof Date ? new Date(v.getTime()) : new Date(String(v));
    if (Number.isNaN(d.getTime())) throw new TypeError(`field "${path}" takes a date, not ${String(v)}`);
    return d;
  }, (v, set) => h('input', { type: 'date', value: v ? v.toISOString().slice(0, 10) : '', on: { input: (e) => set(e.value || null) } }));

  // ---- serialization ------------------------------------------------------------------

  function serializeValue(d, value, path) {
    if (d.kind === 'containsMany' || d.kind === 'linksToMany') {
      const one = { kind: d.kind === 'containsMany' ? 'contains' : 'linksTo', type: d.type };
      return (value || []).map((v, i) => serializeValue(one, v, `${path}[${i}]`));
    }
    if (value == null) return null;
    if (d.kind === 'linksTo') return cardId(value);
    if (isPrimitiveField(d.type)) {
      const out = d.type.serialize(value);
      const t = typeof out;
      if (out !== null && t !== 'string' && t !== 'number' && t !== 'boolean') {
        throw new TypeError(`field "${path}" serialized to a ${t}, not plain data`);
      }
      return out;
    }
    return attributesOf(value, path);
  }

  function attributesOf(inst, prefix) {
    const out = {};
    fieldsOf(inst.constructor).forEach((d, name) => {
      if (d.computeVia || d.kind === 'linksTo' || d.kind === 'linksToMany') return;
      out[name] = serializeValue(d, inst[name], prefix ? `${prefix}.${name}` : name);
    });
    return out;
  }

  function cardId(card) {
    const st = state.get(card);
    if (!st) throw new TypeError('not a card instance');
    if (!st.id) adopt(card);
    return st.id;
  }

  function adopt(card, id) {
    const st = state.get(card);
    if (!st.id) {
      st.id = id || `card-${nextId++}`;
      if (instances.has(st.id)) throw new TypeError(`a card with id "${st.id}" is already loaded`);
      instances.set(st.id, card);
    }
    return st.id;
  }

  function serialize(card) {
    const st = state.get(card);
    const relationships = {};
    fieldsOf(card.constructor).forEach((d, name) => {
      if (d.kind === 'linksTo') relationships[name] = card[name] ? cardId(card[name]) : null;
      if (d.kind === 'linksToMany') relationships[name] = card[name].map(cardId);
    });
    return { id: st.id, type: typeRefOf(card.constructor), attributes: attributesOf(card, ''), relationships };
  }

  const typeRefs = new WeakMap(); // class -> { module, name }
  function typeRefOf(cls) {
    return typeRefs.get(cls) || { module: null, name: cls.name };
  }

  // ---- templates ----------------------------------------------------------------------

  class On {
    constructor(event, fn, args) {
      if (typeof event !== 'string' || !isFn(fn)) throw new TypeError('on(event, handler) needs an event name and a function');
      this.event = event;
      this.fn = fn;
      this.args = args;
    }
  }
  // `{{on "click" this.go}}` becomes `${on('click', this.go)}` inside html``.
  const on = (event, fn, ...args) => new On(event, fn, args);

  const VNODE = Symbol('vnode');
  function vnode(node) {
    node[VNODE] = true;
    return node;
  }

  // h('div', { class: 'x', on: { click: f } }, ...children) or h(Token, props, ...children).
  function h(tag, attrs, ...children) {
    const a = attrs || {};
    const events = {};
    const rest = {};
    const keys = Object.keys(a);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (k === 'on') Object.assign(events, a.on);
      else if (a[k] instanceof On) events[a[k].event] = a[k];
      else rest[k] = a[k];
    }
    if (typeof tag === 'string') return vnode({ tag: tag.toLowerCase(), attrs: rest, on: events, children });
    return vnode({ component: tag, props: rest, on: events, children });
  }

  const css = (strings, ...values) => String.raw({ raw: strings }, ...values);

  // html`…` parses once per call site (the strings array is the cache key).
  const parsed = new WeakMap();
  function html(strings, ...values) {
    let tpl = parsed.get(strings);
    if (!tpl) {
      tpl = parseTemplate(strings);
      parsed.set(strings, tpl);
    }
    return instantiate(tpl, values);
  }

  const HOLE = '\u0000';
  function parseTemplate(strings) {
    const src = strings.join(HOLE);
    let hole = 0;
    let i = 0;
    const root = { children: [] };
    const stack = [root];
    const top = () => stack[stack.length - 1];
    const text = (s) => {
      const parts = s.split(HOLE);
      parts.forEach((p, k) => {
        if (k > 0) top().children.push({ hole: hole++ });
        // Indentation between tags is layout of the source, not content.
        if (p && !(/^\s*$/.test(p) && p.includes('\n'))) top().children.push(decode(p));
      });
    };
    while (i < src.length) {
      const lt = src.indexOf('<', i);
      if (lt < 0) { text(src.slice(i)); break; }
      if (lt > i) text(src.slice(i, lt));
      i = lt;
      if (src.startsWith('<!--', i)) {
        const end = src.indexOf('-->', i + 4);
        const body = src.slice(i, end < 0 ? src.length : end + 3);
        hole += body.split(HOLE).length - 1;
        i = end < 0 ? src.length : end + 3;
        continue;
      }
      if (src[i + 1] === '/') {
        const end = src.indexOf('>', i);
        if (end < 0) throw new SyntaxError('html``: unterminated closing tag');
        const name = src.slice(i + 2, end).trim();
        if (name.includes(HOLE)) hole++;
        if (stack.length > 1) stack.pop();
        i = end + 1;
        continue;
      }
      // An opening tag: a name (or a hole, for a component) then attributes.
      i++;
      const node = { attrs: [], children: [] };
      if (src[i] === HOLE) {
        node.componentHole = hole++;
        i++;
      } else {
        const m = /^[A-Za-z][A-Za-z0-9-]*/.exec(src.slice(i));
        if (!m) { text('<'); continue; }
        node.tag = m[0].toLowerCase();
        i += m[0].length;
      }
      let selfClosing = false;
      for (;;) {
        while (i < src.length && /\s/.test(src[i])) i++;
        if (i >= src.length) throw new SyntaxError(`html\`\`: unterminated <${node.tag || 'component'}>`);
        if (src[i] === '>') { i++; break; }
        if (src.startsWith('/>', i)) { selfClosing = true; i += 2; break; }
        if (src[i] === HOLE) { node.attrs.push({ spread: hole++ }); i++; continue; }
        const m = /^[^\s=>/\u0000]+/.exec(src.slice(i));
        if (!m) throw new SyntaxError('html``: bad attribute');
        const name = m[0];
        i += name.length;
        if (src[i] !== '=') { node.attrs.push({ name, parts: [true] }); continue; }
        i++;
        const q = src[i] === '"' || src[i] === "'" ? src[i] : null;
        let raw;
        if (q) {
          const end = src.indexOf(q, i + 1);
          if (end < 0) throw new SyntaxError(`html\`\`: unterminated value of ${name}`);
          raw = src.slice(i + 1, end);
          i = end + 1;
        } else {
          const m2 = /^[^\s>]*/.exec(src.slice(i));
          raw = m2[0];
          i += raw.length;
        }
        const parts = [];
        raw.split(HOLE).forEach((p, k) => {
          if (k > 0) parts.push({ hole: hole++ });
          if (p) parts.push(decode(p));
        });
        node.attrs.push({ name, parts, whole: !q && parts.length === 1 && typeof parts[0] === 'object' });
      }
      top().children.push(node);
      if (!selfClosing && !(node.tag && VOID.has(node.tag))) stack.push(node);
    }
    return root.children;
  }

  const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
  function decode(s) {
    return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (all, e) => {
      if (e[0] === '#') {
        const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : all;
      }
      return hasOwn(ENTITIES, e.toLowerCase()) ? ENTITIES[e.toLowerCase()] : all;
    });
  }

  // Render paths loop by index: in the guest's engine a for-of or a spread over an array
  // allocates an iterator and a result object per step (a quarter of a card's render).
  function instantiate(nodes, values) {
    const out = [];
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      if (typeof n === 'string') out.push(n);
      else if (hasOwn(n, 'hole')) out.push(values[n.hole]);
      else {
        const attrs = {};
        const events = {};
        for (let j = 0; j < n.attrs.length; j++) {
          const a = n.attrs[j];
          if (hasOwn(a, 'spread')) {
            const v = values[a.spread];
            const xs = Array.isArray(v) ? v : [v];
            for (let k = 0; k < xs.length; k++) {
              const x = xs[k];
              if (x instanceof On) events[x.event] = x;
              else if (x && typeof x === 'object') Object.assign(attrs, x);
            }
          } else if (a.whole) {
            const v = values[a.parts[0].hole];
            if (v instanceof On) events[v.event] = v;
            else attrs[a.name] = v;
          } else {
            attrs[a.name] = a.parts.length === 1 && a.parts[0] === true ? true : joinParts(a.parts, values);
          }
        }
        const children = instantiate(n.children, values);
        if (hasOwn(n, 'componentHole')) out.push(vnode({ component: values[n.componentHole], props: attrs, on: events, children }));
        else out.push(vnode({ tag: n.tag, attrs, on: events, children }));
      }
    }
    return out;
  }

  function joinParts(parts, values) {
    let s = '';
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k];
      s += typeof p === 'string' ? p : String(values[p.hole] ?? '');
    }
    return s;
  }

  function pushAll(out, items) {
    for (let i = 0; i < items.length; i++) out.push(items[i]);
  }

  // ---- rendering ----------------------------------------------------------------------

  // Lowered nodes are the plain data that crosses; vnodes still hold functions.
  const lowered = new WeakSet();
  const plain = (node) => { lowered.add(node); return node; };

  let renderSeq = 1;
  // Events the host queued while a dispatch ran name the render they were raised on, so the
  // last few renders of each view keep their action tables; older ids are errors.
  const KEPT_RENDERS = 64;
  const renderOf = new Map(); // `${id}\u0000${format}` -> seqs of its latest renders, oldest first
  const tables = new Map(); // seq -> { id, format, actions: Map(actionId -> { fn, args, self }) }

  const MAX_NODES = 100000;
  function lower(value, ctx, out) {
    if (value == null || value === false || value === true) return;
    if (typeof value === 'string') { out.push(value); return; }
    if (typeof value === 'number' || typeof value === 'bigint') { out.push(String(value)); return; }
    if (Array.isArray(value)) { for (let i = 0; i < value.length; i++) lower(value[i], ctx, out); return; }
    if (typeof value !== 'object' && !isFn(value)) throw new TypeError(`a template produced a ${typeof value}, which is not renderable`);
    if (lowered.has(value)) { out.push(value); return; }
    // Vnodes first: they are most of a tree, and no card, field or date is one.
    if (!value[VNODE]) {
      if (value instanceof Date) { out.push(value.toISOString().slice(0, 10)); return; }
      if (value instanceof CardDef) { pushAll(out, renderNested(value, 'embedded', ctx)); return; }
      if (value instanceof FieldDef) { pushAll(out, renderField(value.constructor, value, 'embedded', ctx, null, '')); return; }
      throw new TypeError('a template produced an object that is not renderable (use html`` or h())');
    }
    if (++ctx.nodes > MAX_NODES) throw new RangeError(`a render produced more than ${MAX_NODES} nodes`);
    const on = {};
    const events = Object.keys(value.on || {});
    for (let i = 0; i < events.length; i++) {
      const ev = events[i];
      const given = value.on[ev];
      const entry = given instanceof On ? { fn: given.fn, args: given.args } : isFn(given) ? { fn: given, args: [] } : null;
      if (!entry) throw new TypeError(`the "${ev}" handler is not a function`);
      const id = `${ctx.seq}:${ctx.actions.size + 1}`;
      ctx.actions.set(id, { fn: entry.fn, args: entry.args, self: ctx.self });
      on[ev] = id;
    }
    const children = [];
    lower(value.children, ctx, children);
    if (hasOwn(value, 'component')) {
      out.push(plain({ component: value.component, props: plainProps(value.props), on, children }));
    } else {
      out.push(plain({ tag: value.tag, attrs: attrStrings(value.attrs), on, children }));
    }
  }

  // Lowers `value` with `self` as the `this` of the actions it binds.
  function lowerAs(self, value, ctx) {
    const before = ctx.self;
    ctx.self = self;
    try {
      const out = [];
      lower(value, ctx, out);
      return out;
    } finally {
      ctx.self = before;
    }
  }

  function attrStrings(attrs) {
    const out = {};
    const keys = Object.keys(attrs || {});
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'class' && Array.isArray(v)) out.class = v.filter(Boolean).join(' ');
      else if (k === 'class' && typeof v === 'object') out.class = Object.keys(v).filter((c) => v[c]).join(' ');
      else if (isFn(v)) throw new TypeError(`attribute "${k}" is a function; bind events with on()`);
      else out[k] = v === true ? '' : String(v);
    }
    return out;
  }

  function plainProps(props) {
    const out = {};
    const keys = Object.keys(props || {});
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      const v = props[k];
      if (isFn(v)) throw new TypeError(`prop "${k}" is a function; pass actions with on()`);
      out[k] = v;
    }
    return out;
  }

  function chainCss(cls) {
    const parts = [];
    for (let c = cls; c && c !== Base; c = Object.getPrototypeOf(c)) {
      if (hasOwn(c, 'styles') && typeof c.styles === 'string') parts.unshift(c.styles);
    }
    return parts;
  }

  function templateOf(cls, format) {
    for (let c = cls; c && c !== Base; c = Object.getPrototypeOf(c)) {
      if (hasOwn(c, format) && isFn(c[format])) return c[format];
    }
    return null;
  }

  // `fields.x` in a template: field x rendered in the matching sub-format. The getters live
  // on one prototype per class, so a render only allocates the view itself.
  const VIEW = Symbol('view');
  const viewProtos = new WeakMap();
  function fieldsView(model, format, ctx) {
    const fields = fieldsOf(model.constructor);
    let proto = viewProtos.get(fields);
    if (!proto) {
      proto = Object.create(null);
      fields.forEach((d, name) => {
        Object.defineProperty(proto, name, {
          enumerable: true,
          get() { const v = this[VIEW]; return renderFieldOf(v.model, name, d, v.format, v.ctx); },
        });
      });
      viewProtos.set(fields, proto);
    }
    const view = Object.create(proto);
    view[VIEW] = { model, format, ctx };
    return view;
  }

  // No closure is made here, so a field render needs no environment of its own: the many
  // case goes through `renderItems` and the setter is made only where a template can use it.
  function renderFieldOf(model, name, d, format, ctx) {
    const value = model[name];
    const sub = format === 'edit' ? 'edit' : format === 'atom' ? 'atom' : 'embedded';
    if (d.kind === 'containsMany' || d.kind === 'linksToMany') {
      return [plain({ tag: 'ul', attrs: { class: 'field-list' }, on: {}, children: renderItems(d, value, sub, ctx) })];
    }
    return renderOne(d, value, sub, ctx, d.computeVia ? null : model, name);
  }

  function renderItems(d, values, format, ctx) {
    return values.map((v) => plain({ tag: 'li', attrs: {}, on: {}, children: renderOne(d, v, format, ctx, null, '') }));
  }

  // `set` of a field template: writes the field `name` of `owner` (null: not settable).
  function setterOf(owner, name) {
    return owner === null ? null : (v) => { owner[name] = v; };
  }

  function renderOne(d, value, format, ctx, owner, name) {
    if (d.kind === 'linksTo' || d.kind === 'linksToMany') {
      return value ? renderNested(value, format === 'edit' ? 'embedded' : format, ctx) : [];
    }
    return renderField(d.type, value, format, ctx, owner, name);
  }

  function renderField(type, value, format, ctx, owner, name) {
    if (isPrimitiveField(type)) {
      const t = templateOf(type, format);
      if (t) return lowerAs(ctx.self, t.call(value, { model: value, format, set: setterOf(owner, name) }), ctx);
      if (format === 'edit' && owner !== null) return lowerAs(ctx.self, type.editor(value, setterOf(owner, name)), ctx);
      if (value == null) return [];
      return [type === DateField ? value.toISOString().slice(0, 10) : type === BooleanField ? (value ? 'Yes' : 'No') : String(value)];
    }
    if (value == null) return [];
    const t = templateOf(type, format) || templateOf(type, 'embedded');
    const fields = fieldsView(value, format, ctx);
    return lowerAs(value, t ? t.call(value, { model: value, fields, format, set: setterOf(owner, name) }) : defaultTemplate(value, fields, format), ctx);
  }

  function renderNested(card, format, ctx) {
    if (ctx.depth > 16) throw new RangeError('cards link more than 16 levels deep');
    ctx.depth++;
    try {
      const styles = chainCss(card.constructor);
      for (let i = 0; i < styles.length; i++) ctx.css.add(styles[i]);
      const fields = fieldsView(card, format, ctx);
      const t = templateOf(card.constructor, format);
      const set = pathSetters(card);
      const body = lowerAs(card, t ? t.call(card, { model: card, fields, format, set }) : defaultTemplate(card, fields, format), ctx);
      const attrs = { class: `card card-${format}`, 'data-card-id': cardId(card), 'data-format': format };
      return [plain({ tag: format === 'atom' ? 'span' : 'div', attrs, on: {}, children: body })];
    } finally {
      ctx.depth--;
    }
  }

  // `set` of a card template (made apart, so `renderNested` needs no environment).
  function pathSetters(card) {
    return (path) => setterFor(card, path);
  }

  // `set('address.city')` in a template: a handler that writes the event's value there.
  function setterFor(card, path) {
    return (e) => {
      const v = e && typeof e === 'object' && hasOwn(e, 'value') ? e.value : e;
      const keys = String(path).split('.');
      let target = card;
      for (const k of keys.slice(0, -1)) target = target[k];
      target[keys[keys.length - 1]] = v;
    };
  }

  function defaultTemplate(model, fields, format) {
    const cls = model.constructor;
    const isCard = model instanceof CardDef;
    const title = isCard ? (model.title || cls.displayName) : cls.displayName;
    if (format === 'atom') return title;
    const names = [...fieldsOf(cls).keys()].filter((n) => n !== 'title' && n !== 'description');
    if (!isCard && format !== 'edit') return h('span', { class: 'compound' }, ...names.map((n) => [fields[n], ' ']));
    if (format === 'embedded' || format === 'fitted') {
      return h('div', { class: 'embedded' }, h('strong', null, title), model.description ? h('p', null, model.description) : null);
    }
    const shown = format === 'edit' && isCard ? ['title', 'description', ...names] : names;
    const rows = shown.map((n) => h('div', { class: 'field' }, h('label', null, n), h('div', { class: 'value' }, fields[n])));
    if (format === 'edit') return h('div', { class: 'edit' }, ...rows);
    return h('article', { class: 'isolated' }, h('h1', null, title), model.description ? h('p', null, model.description) : null, ...rows);
  }

  function renderCard(id, format) {
    if (!FORMATS.includes(format)) throw new TypeError(`format must be one of ${FORMATS.join(', ')}, not ${String(format)}`);
    const card = lookup(id);
    const ctx = { seq: renderSeq++, actions: new Map(), self: card, css: new Set(), nodes: 0, depth: 0 };
    const tree = renderNested(card, format, ctx);
    const key = `${id}\u0000${format}`;
    const kept = renderOf.get(key) || [];
    kept.push(ctx.seq);
    while (kept.length > KEPT_RENDERS) tables.delete(kept.shift());
    renderOf.set(key, kept);
    tables.set(ctx.seq, { id: String(id), format, actions: ctx.actions });
    const cls = card.constructor;
    return { id: String(id), format, tree, css: [...ctx.css].join('\n'), title: String(card.title || cls.displayName || cls.name) };
  }

  function lookup(id) {
    const card = instances.get(String(id));
    if (!card) throw new TypeError(`no card with id "${String(id)}" is loaded`);
    return card;
  }

  // ---- host operations ----------------------------------------------------------------

  function cardClass(ns, name, module) {
    const cls = ns[name];
    if (!isFn(cls) || !(cls.prototype instanceof CardDef)) throw new TypeError(`${module} has no card export "${name}"`);
    if (!typeRefs.has(cls)) typeRefs.set(cls, { module, name });
    return cls;
  }

  function load(ns, type, data) {
    const cls = cardClass(ns, type.name, type.module);
    const card = settle(new cls());
    silent++;
    try {
      const attrs = (data && data.attributes) || {};
      assign(card, attrs);
      const rels = (data && data.relationships) || {};
      const schema = fieldsOf(cls);
      for (const key of Object.keys(rels)) {
        const d = schema.get(key);
        if (!d || (d.kind !== 'linksTo' && d.kind !== 'linksToMany')) throw new TypeError(`${cls.name} has no link field "${key}"`);
        const r = rels[key];
        card[key] = d.kind === 'linksTo' ? (r == null ? null : lookup(r)) : (r || []).map(lookup);
      }
    } finally {
      silent--;
    }
    adopt(card, data && data.id != null ? String(data.id) : undefined);
    changed.delete(state.get(card).id);
    return serialize(card);
  }

  function flush() {
    const out = { patches, changed: [...changed] };
    patches = [];
    outbox.count = 0;
    changed.clear();
    return out;
  }

  function describeExport(name, v) {
    if (isFn(v) && (v.prototype instanceof CardDef || v.prototype instanceof FieldDef)) {
      const fields = {};
      fieldsOf(v).forEach((d, f) => {
        fields[f] = { kind: d.kind, type: d.type.name, computed: !!d.computeVia };
      });
      return { name, kind: v.prototype instanceof CardDef ? 'card' : 'field', displayName: String(v.displayName), fields };
    }
    if (isFn(v)) return { name, kind: /^class[\s{]/.test(Function.prototype.toString.call(v)) ? 'class' : 'function' };
    return { name, kind: 'value' };
  }

  // A failure of one card in a batch, as data: the host makes it the error one call would throw.
  function failure(e) {
    return { name: String(e && e.name), message: String(e && e.message), stack: String(e && e.stack) };
  }

  const ops = {
    create(ns, type, data) { return load(ns, type, data); },
    load(ns, type, data) { return load(ns, type, data); },
    // In order, so a card links to cards earlier in the list; a card that fails is left out
    // and the rest load.
    loadMany(namespaces, list) {
      if (!Array.isArray(list)) throw new TypeError('loadMany takes an array of serialized cards');
      return list.map((data) => {
        const id = data && data.id != null ? String(data.id) : null;
        try {
          const type = data && data.type;
          const ns = type && hasOwn(namespaces, type.module) ? namespaces[type.module] : undefined;
          if (!ns) throw new TypeError(`the module of card ${id} was not named in the request`);
          return load(ns, type, data);
        } catch (e) {
          return { id, error: failure(e) };
        }
      });
    },
    render(id, format) { return renderCard(id, format); },
    renderMany(list) {
      if (!Array.isArray(list)) throw new TypeError('renderMany takes an array of [id, format]');
      return list.map((item) => {
        const id = Array.isArray(item) ? item[0] : undefined;
        const format = Array.isArray(item) ? item[1] : undefined;
        try {
          return renderCard(id, format);
        } catch (e) {
          return { id: String(id), format: String(format), error: failure(e) };
        }
      });
    },
    dispatch(id, actionId, event) {
      const seq = Number(String(actionId).split(':')[0]);
      const table = tables.get(seq);
      const entry = table && table.id === String(id) ? table.actions.get(String(actionId)) : undefined;
      if (!entry) throw new TypeError(`action "${String(actionId)}" is not in a recent render of card "${String(id)}"`);
      const format = table.format;
      const result = entry.fn.call(entry.self, event, ...entry.args);
      const finish = () => ({ render: renderCard(id, format), ...flush() });
      if (result && isFn(result.then)) return Promise.resolve(result).then(finish);
      return finish();
    },
    describe(ns, url) {
      return { url, exports: Object.keys(ns).sort().map((n) => describeExport(n, ns[n])) };
    },
    serialize(id) { return serialize(lookup(id)); },
    // Writes an action made before it threw are still changes of the model.
    flush() { return flush(); },
    drop(id) {
      const card = instances.get(String(id));
      if (!card) return false;
      instances.delete(String(id));
      for (const f of FORMATS) {
        const key = `${id}\u0000${f}`;
        for (const seq of renderOf.get(key) || []) tables.delete(seq);
        renderOf.delete(key);
      }
      return true;
    },
  };

  const api = {
    CardDef, FieldDef, StringField, NumberField, BooleanField, DateField,
    field, contains, containsMany, linksTo, linksToMany, tracked, action,
    on, h, html, css,
  };
  for (const k of Object.keys(api)) if (isFn(api[k]) && !api[k].name) Object.defineProperty(api[k], 'name', { value: k });
  return { api: Object.freeze(api), ops, outbox };
})()
