// One small card per teammate, shown in `embedded` format. The host asks for all of them
// in a single renderMany call: one round trip for the whole list.
import { CardDef, contains, StringField, NumberField, html, css } from 'https://cardstack.com/base/card-api';
import { theme } from './theme.js';

export class Teammate extends CardDef {
  static displayName = 'Teammate';
  static styles = css`${theme}
    .mate { display: flex; align-items: center; gap: 10px; min-width: 0; }
    .avatar {
      width: 30px; height: 30px; border-radius: 9px; flex: none; display: grid; place-items: center;
      font: 700 11.5px/1 system-ui, sans-serif; color: #061a1a;
    }
    .h0 { background: #2dd4bf; } .h1 { background: #38bdf8; } .h2 { background: #a78bfa; } .h3 { background: #f472b6; }
    .h4 { background: #fbbf24; } .h5 { background: #4ade80; } .h6 { background: #fb7185; } .h7 { background: #93c5fd; }
    .text { min-width: 0; }
    .name { font-size: 13px; font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .role { font-size: 11.5px; color: var(--acme-muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  `;

  name = contains(StringField);
  role = contains(StringField);
  city = contains(StringField);
  hue = contains(NumberField);

  static embedded({ model }) {
    const words = String(model.name || '?').split(' ');
    const initials = words.length > 1 ? words[0][0] + words[words.length - 1][0].toUpperCase() : words[0][0];
    return html`<div class="mate">
      <div class="avatar h${(model.hue ?? 0) % 8}" aria-hidden="true">${initials}</div>
      <div class="text"><div class="name">${model.name}</div><div class="role">${model.role} · ${model.city}</div></div>
    </div>`;
  }
}
