// A card whose action never returns. The host gives it a compartment (realm) of its own
// with a short budget: the engine stops it, the host shows why, and nothing else waits.
import { CardDef, on, html, css } from 'https://cardstack.com/base/card-api';
import { theme } from './theme.js';

export class Runaway extends CardDef {
  static displayName = 'Runaway';
  static styles = css`${theme}
    .rw { display: grid; gap: 12px; }
    pre { margin: 0; padding: 10px 12px; border-radius: 8px; background: var(--gx-bg); border: 1px solid var(--gx-line);
      font: 12.5px/1.5 ui-monospace, "SF Mono", Menlo, Consolas, monospace; color: #fed7aa; white-space: pre; overflow: auto; }
    .row { display: flex; align-items: center; gap: 12px; }
    .run { background: var(--gx-2); border-color: var(--gx-2); color: #fff; padding: 7px 18px; }
    .run:hover { background: var(--gx); border-color: var(--gx); }
    .meta { font-size: 12.5px; color: var(--gx-muted); }
  `;


  spin() {
    let n = 0;
    for (;;) n++; // never returns
  }

  static isolated({ model }) {
    return html`<div class="rw">
      <pre>spin() {
  let n = 0;
  for (;;) n++; // never returns
}</pre>
      <div class="row">
        <button class="run" data-role="run" data-testid="run" ${on('click', model.spin)}>Run</button>
        <span class="meta">Runs only when you click.</span>
      </div>
    </div>`;
  }
}
