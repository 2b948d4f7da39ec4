// This module does not parse: the class field on line 13 has no value. Nothing in it
// runs; the host gets SANDBOX_SYNTAX with the module's URL, line and column.
import { CardDef, contains, NumberField, StringField, html } from 'https://cardstack.com/base/card-api';

export class Invoice extends CardDef {
  static displayName = 'Invoice';
  customer = contains(StringField);
  amount = contains(NumberField);

  static isolated({ model }) {
    return html`<p>${model.customer}: ${model.amount} EUR</p>`;
  }
  total = ;
}
