// The card host shim under test, without a worker: renders come from the test driver as
// JSON (with `{ $token: [module, export] }` standing for a TrustedToken) and dispatches are
// recorded here. Exposes helpers on `window.R` that answer with plain data.
import * as cards from '/pkg/cards.js';
import { TrustedToken, SandboxError } from '/pkg/index.js';

const registry = {
  ui: {
    // Passes the DOM event itself to `on.click`: the shim must sanitise it.
    Button(props, children, on) {
      const b = document.createElement('button');
      b.className = 'host-button';
      b.dataset.label = String(props.label ?? '');
      b.append(String(props.label ?? ''), ...children);
      if (on.click) b.addEventListener('click', (e) => on.click(e));
      R.componentCalls++;
      return b;
    },
    // Calls `on.change` with whatever the test put in `R.junk`.
    Junk(props, children, on) {
      const s = document.createElement('span');
      s.className = 'junk';
      s.append(...children);
      s.addEventListener('click', () => on.change?.(R.junk));
      return s;
    },
    // Keeps its props object, to prove it got a copy.
    Keeper(props) {
      R.kept = props;
      const s = document.createElement('span');
      s.className = 'keeper';
      s.textContent = JSON.stringify(props);
      return s;
    },
  },
};

const hydrate = (v) => {
  if (Array.isArray(v)) return v.map(hydrate);
  if (v === null || typeof v !== 'object') return v;
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === '$token') return new TrustedToken(v.$token[0], v.$token[1]);
  const out = {};
  for (const k of keys) Object.defineProperty(out, k, { value: hydrate(v[k]), enumerable: true, writable: true, configurable: true });
  return out;
};

const describeError = (e) => (e && typeof e === 'object'
  ? { sandbox: e instanceof SandboxError, code: e.code, limit: e.limit, message: String(e.message) }
  : { thrown: String(e) });

/** Every element under `root`, through nested open shadow roots. */
function elements(root) {
  const out = [];
  const walk = (node) => {
    for (const el of node.querySelectorAll('*')) {
      const attrs = {};
      for (const a of el.attributes) attrs[a.name] = a.value;
      out.push({ tag: el.localName, attrs });
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(root);
  return out;
}

const R = {
  cards,
  TrustedToken,
  SandboxError,
  hydrate,
  describeError,
  mapper: cards.createTokenMapper(registry),
  registry,
  views: {},
  actions: [],
  events: [],
  cardErrors: [],
  componentCalls: 0,
  junk: undefined,
  kept: undefined,
  dispatchDelayMs: 0,
  inFlight: 0,
  maxInFlight: 0,
  nextRender: null,
  dispatchError: null,
  renderSource: {},

  container(name) {
    const div = document.createElement('div');
    div.id = name;
    div.className = 'card-container';
    document.body.append(div);
    for (const type of ['carderror', 'cardpatches']) {
      div.addEventListener(type, (e) => R.events.push({ card: name, type, detail: type === 'carderror'
        ? { id: e.detail.id, format: e.detail.format, code: e.detail.error?.code }
        : e.detail }));
    }
    return div;
  },

  /** Mounts card `name`; renders come from R.renderSource[name] (a render or an error). */
  mount(name, render, options = {}) {
    const container = R.container(name);
    if (render !== undefined) R.renderSource[name] = render;
    const view = cards.mountCard(container, {
      id: name,
      format: 'isolated',
      mapper: R.mapper,
      allowedOrigins: options.allowedOrigins,
      onCardError: (error, ctx) => R.cardErrors.push({ card: name, code: error?.code, id: ctx.id, format: ctx.format, hasView: ctx.view === R.views[name] }),
      render: async (id, format) => {
        const src = R.renderSource[id];
        if (src && src.$error) throw new SandboxError(src.$error);
        return hydrate({ ...src, id, format });
      },
      dispatch: async (id, actionId, data) => {
        R.actions.push({ id, actionId, data, proto: Object.getPrototypeOf(data) === Object.prototype, json: JSON.stringify(data) });
        R.inFlight++;
        R.maxInFlight = Math.max(R.maxInFlight, R.inFlight);
        try {
          if (R.dispatchDelayMs) await new Promise((ok) => setTimeout(ok, R.dispatchDelayMs));
          if (R.dispatchError) throw new SandboxError(R.dispatchError);
          const next = R.nextRender ?? R.renderSource[id];
          return { render: hydrate({ ...next, id, format: 'isolated' }), patches: [{ seq: R.actions.length, id, path: 'x', op: 'replace', value: actionId }], changed: ['x'] };
        } finally {
          R.inFlight--;
        }
      },
    });
    R.views[name] = view;
    return view.ready.then(() => R.snapshot(name));
  },

  /** Renders `render` into a fresh card and reports what is there and what was dropped. */
  async vector(name, render, options) {
    const container = R.container(name);
    const view = cards.mountCard(container, { id: name, mapper: R.mapper, allowedOrigins: options?.allowedOrigins });
    R.views[name] = view;
    const result = view.update(hydrate({ id: name, format: 'isolated', css: '', title: '', ...render }));
    return { ...R.snapshot(name), dropped: result ? result.dropped : null };
  },

  snapshot(name) {
    const view = R.views[name];
    const container = document.getElementById(name);
    const content = view.contentRoot;
    const body = content.querySelector('.card');
    const panel = view.shadowRoot.querySelector('.error');
    const fields = {};
    for (const dd of panel.querySelectorAll('[data-field]')) fields[dd.dataset.field] = dd.textContent;
    return {
      elements: body ? elements(body) : [],
      styles: content.querySelectorAll('style').length,
      css: content.querySelector('style')?.textContent ?? '',
      text: body ? body.textContent : '',
      error: panel.hidden ? null : { fields, visible: panel.getBoundingClientRect().height > 0, pre: panel.querySelectorAll('pre').length },
      stale: container.hasAttribute('data-stale'),
      bannerVisible: !view.shadowRoot.querySelector('.stale').hidden,
      outer: elements(view.shadowRoot).map((e) => e.tag),
    };
  },

  /** The card's content element matching `selector`. */
  $(name, selector) {
    return R.views[name].contentRoot.querySelector(`.card ${selector}`);
  },

  /** Records mutations under the card's content root while `fn` runs. */
  async mutations(name, fn) {
    const root = R.views[name].contentRoot;
    const records = [];
    const mo = new MutationObserver((list) => records.push(...list));
    mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    await fn();
    records.push(...mo.takeRecords());
    mo.disconnect();
    return records.map((r) => ({ type: r.type, target: r.target.nodeName, attribute: r.attributeName, added: r.addedNodes.length, removed: r.removedNodes.length, value: r.target.nodeType === 3 ? r.target.data : undefined }));
  },
};

globalThis.R = R;
globalThis.ready = true;
