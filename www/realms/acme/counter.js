// A counter: `count` is a saved field (every write is a model patch the host acknowledges);
// `session` and `recent` are tracked state that lives only in the sandbox.
import { CardDef, contains, NumberField, tracked, on, html, css } from 'https://cardstack.com/base/card-api';
import { theme } from './theme.js';

export class Counter extends CardDef {
  static displayName = 'Counter';
  static styles = css`${theme}
    .counter { display: grid; gap: 14px; justify-items: center; padding: 6px 0 2px; }
    .value {
      font: 700 64px/1 ui-monospace, "SF Mono", Menlo, Consolas, monospace; letter-spacing: -0.04em;
      color: var(--acme); text-shadow: 0 0 28px rgba(45, 212, 191, 0.28);
      min-width: 3ch; text-align: center; font-variant-numeric: tabular-nums;
    }
    .buttons { display: flex; gap: 8px; }
    .step { width: 46px; height: 40px; padding: 0; font-size: 22px; line-height: 1; }
    .inc { background: var(--acme); border-color: var(--acme); color: var(--acme-ink); }
    .inc:hover { background: #5eead4; border-color: #5eead4; }
    .reset { height: 40px; color: var(--acme-muted); }
    .meta { margin: 0; font-size: 12.5px; color: var(--acme-muted); text-align: center; }
    .meta b { color: var(--acme-text); font-weight: 600; }
    .recent { display: flex; gap: 5px; flex-wrap: wrap; justify-content: center; min-height: 24px; margin: 0; padding: 0; list-style: none; }
    .recent li {
      font: 600 11.5px/1 ui-monospace, "SF Mono", Menlo, Consolas, monospace; padding: 5px 7px; border-radius: 6px;
      background: rgba(45, 212, 191, 0.1); border: 1px solid rgba(45, 212, 191, 0.28); color: var(--acme);
    }
    .recent li.none { background: none; border-color: transparent; color: var(--acme-muted); font-family: inherit; font-weight: 400; }
  `;

  count = contains(NumberField);
  session = tracked(0);
  recent = tracked([]);

  note(what) { this.session++; this.recent = [...this.recent, what].slice(-8); }
  increment() { this.count = (this.count ?? 0) + 1; this.note('+1'); }
  decrement() { this.count = (this.count ?? 0) - 1; this.note('−1'); }
  reset() { this.count = 0; this.note('reset'); }

  static isolated({ model }) {
    return html`<div class="counter">
      <div class="value" data-testid="count">${model.count ?? 0}</div>
      <div class="buttons">
        <button class="step dec" aria-label="Decrement" data-testid="dec" ${on('click', model.decrement)}>−</button>
        <button class="step inc" aria-label="Increment" data-testid="inc" ${on('click', model.increment)}>+</button>
        <button class="reset" data-testid="reset" ${on('click', model.reset)}>Reset</button>
      </div>
      <ul class="recent" aria-label="Recent actions">${model.recent.length
        ? model.recent.map((r) => html`<li>${r}</li>`)
        : html`<li class="none">no actions yet</li>`}</ul>
      <p class="meta" data-testid="session"><b>${model.session}</b> actions this session, kept as tracked state in the sandbox</p>
    </div>`;
  }
}
