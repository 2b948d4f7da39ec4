// This module loads, but its template throws: the quote links to no author, so
// `byline()` reads `.name` of null. The host gets SANDBOX_GUEST_THREW with the line and
// column in this file and the guest's own stack.
import { CardDef, contains, linksTo, StringField, html } from 'https://cardstack.com/base/card-api';

export class Author extends CardDef {
  static displayName = 'Author';
  name = contains(StringField);
}

function byline(quote) {
  return `— ${quote.author.name}`;
}

export class Quote extends CardDef {
  static displayName = 'Quote';
  text = contains(StringField);
  author = linksTo(Author);

  static isolated({ model }) {
    return html`<blockquote>${model.text}</blockquote><p>${byline(model)}</p>`;
  }
}
