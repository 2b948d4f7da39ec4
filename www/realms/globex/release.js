// A release sign-off that uses the host's design system: `Button` and `Badge` are trusted
// exports of '@ui/components'. In the sandbox they are inert tokens; the host shim maps them
// back to the page's own components, so these are the host's real buttons.
import { CardDef, contains, StringField, NumberField, on, html, css } from 'https://cardstack.com/base/card-api';
import { Button, Badge } from '@ui/components';
import { theme } from './theme.js';

const NEEDED = 2;

export class Release extends CardDef {
  static displayName = 'Release';
  static styles = css`${theme}
    .release { display: grid; gap: 14px; }
    .head { display: flex; align-items: center; justify-content: space-between; gap: 10px; }
    .version { font: 700 22px/1.1 ui-monospace, "SF Mono", Menlo, Consolas, monospace; letter-spacing: -0.02em; }
    .notes { margin: 0; color: var(--gx-muted); font-size: 13px; }
    .meter { display: flex; gap: 6px; }
    .pip { flex: 1; height: 6px; border-radius: 99px; background: var(--gx-line); }
    .pip.on { background: var(--gx); box-shadow: 0 0 10px rgba(251, 146, 60, 0.45); }
    .count { font-size: 12.5px; color: var(--gx-muted); }
    .actions { display: flex; gap: 8px; flex-wrap: wrap; }
  `;

  version = contains(StringField);
  approvals = contains(NumberField);
  status = contains(StringField);

  approve() {
    this.approvals = Math.min(NEEDED, (this.approvals ?? 0) + 1);
    this.status = this.approvals >= NEEDED ? 'approved' : 'in review';
  }
  requestChanges() {
    this.approvals = 0;
    this.status = 'changes requested';
  }

  static isolated({ model }) {
    const tone = model.status === 'approved' ? 'success' : model.status === 'changes requested' ? 'danger' : 'neutral';
    const pips = [];
    for (let i = 0; i < NEEDED; i++) pips.push(html`<span class=${i < (model.approvals ?? 0) ? 'pip on' : 'pip'}></span>`);
    return html`<div class="release">
      <div class="head">
        <span class="version">${model.version}</span>
        <${Badge} tone=${tone}>${model.status}</${Badge}>
      </div>
      <p class="notes">${model.description}</p>
      <div class="meter" aria-hidden="true">${pips}</div>
      <div class="count" data-testid="approvals">${model.approvals ?? 0} of ${NEEDED} approvals</div>
      <div class="actions">
        <${Button} variant="primary" ${on('click', model.approve)}>Approve</${Button}>
        <${Button} variant="secondary" ${on('click', model.requestChanges)}>Request changes</${Button}>
      </div>
    </div>`;
  }
}
