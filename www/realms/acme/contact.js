// A contact in `edit` format: string, number, boolean and date fields and a compound
// field (Address). Every keystroke is an action in the sandbox; every write leaves as a
// model patch ({ seq, id, path, value }) that the host applies to its store.
import { CardDef, FieldDef, contains, StringField, NumberField, BooleanField, DateField, html, css } from 'https://cardstack.com/base/card-api';
import { theme } from './theme.js';

export class Address extends FieldDef {
  static displayName = 'Address';
  street = contains(StringField);
  city = contains(StringField);
}

const initials = (name) => String(name || '?').trim().split(/\s+/).slice(0, 2).map((w) => w[0] || '').join('').toUpperCase() || '?';

export class Contact extends CardDef {
  static displayName = 'Contact';
  static styles = css`${theme}
    .contact { display: grid; gap: 12px; }
    .who { display: flex; align-items: center; gap: 12px; padding-bottom: 12px; border-bottom: 1px solid var(--acme-line); }
    .avatar {
      width: 42px; height: 42px; border-radius: 50%; display: grid; place-items: center; flex: none;
      background: linear-gradient(135deg, #2dd4bf, #0ea5e9); color: var(--acme-ink); font-weight: 800;
    }
    .who strong { display: block; font-size: 16px; }
    .who span { color: var(--acme-muted); font-size: 12.5px; }
    .grid { display: grid; grid-template-columns: 1fr 1fr; gap: 10px 12px; }
    .row { display: grid; gap: 4px; font-size: 12px; color: var(--acme-muted); font-weight: 600; letter-spacing: 0.02em; }
    .wide { grid-column: 1 / -1; }
    input {
      font-size: 14px; line-height: 1.3; font-family: inherit; width: 100%; box-sizing: border-box; padding: 7px 10px;
      border-radius: 8px; border: 1px solid var(--acme-line); background: var(--acme-bg); color: var(--acme-text);
      color-scheme: dark;
    }
    input:hover { border-color: #2b5459; }
    input:focus { border-color: var(--acme); outline: none; box-shadow: 0 0 0 3px rgba(45, 212, 191, 0.18); }
    .check { display: flex; align-items: center; gap: 9px; font-size: 13.5px; color: var(--acme-text); font-weight: 500; cursor: pointer; }
    .check input { width: 16px; height: 16px; accent-color: var(--acme); margin: 0; }
    fieldset { margin: 0; padding: 10px 12px 12px; border: 1px dashed var(--acme-line); border-radius: 10px; }
    legend { padding: 0 6px; font-size: 12px; color: var(--acme-muted); font-weight: 600; }
    fieldset .edit { display: grid; grid-template-columns: 1.4fr 1fr; gap: 10px 12px; }
    fieldset .field { display: grid; gap: 4px; }
    fieldset label { font-size: 12px; color: var(--acme-muted); font-weight: 600; text-transform: capitalize; }
  `;

  name = contains(StringField);
  age = contains(NumberField);
  subscribed = contains(BooleanField);
  birthday = contains(DateField);
  address = contains(Address);

  static edit({ model, fields }) {
    const city = model.address && model.address.city;
    return html`<form class="contact">
      <div class="who">
        <div class="avatar" aria-hidden="true">${initials(model.name)}</div>
        <div><strong data-testid="contact-name">${model.name || 'Unnamed'}</strong>
          <span>${model.age ?? '?'} years${city ? ` · ${city}` : ''}</span></div>
      </div>
      <div class="grid">
        <label class="row wide" data-field="name">Name ${fields.name}</label>
        <label class="row" data-field="age">Age ${fields.age}</label>
        <label class="row" data-field="birthday">Birthday ${fields.birthday}</label>
        <label class="check wide" data-field="subscribed">${fields.subscribed} Subscribed to the newsletter</label>
      </div>
      <fieldset data-field="address"><legend>Address · a compound field</legend>${fields.address}</fieldset>
    </form>`;
  }
}
