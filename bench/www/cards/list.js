// The benchmark's card module: a product listing as it would sit in a realm, rendered in a
// list (embedded format). Ten fields (the two CardDef inherits, seven primitives, a list, a
// compound field), an html`` embedded template with attributes, a nested field template and
// one action. Every engine in the cards section runs this same text: the Compartment imports
// it from /cards/ (its realm) through the broker; V8 imports /cards-gen/list.mjs (this file
// with the card-API specifier pointed at runtime.js wrapped as a module); QuickJS evaluates
// it as a module with the card API supplied by its module loader; the sync Realm evaluates
// /cards-gen/list.script.js (this file with import/export rewritten, see server.mjs).
import { CardDef, FieldDef, contains, containsMany, StringField, NumberField, BooleanField, DateField, html, on, css } from 'https://cardstack.com/base/card-api';

export class Address extends FieldDef {
  static displayName = 'Address';
  street = contains(StringField);
  city = contains(StringField);
  postcode = contains(StringField);
  country = contains(StringField);
  static embedded({ fields }) {
    return html`<address class="address">${fields.street}, ${fields.postcode} ${fields.city}
      <span class="country">${fields.country}</span></address>`;
  }
}

export class Listing extends CardDef {
  static displayName = 'Listing';
  static styles = css`.listing { display: grid; gap: 4px } .price { font-weight: 700 } .sold-out { opacity: .6 }`;
  sku = contains(StringField);
  price = contains(NumberField);
  currency = contains(StringField);
  inStock = contains(BooleanField);
  listed = contains(DateField);
  likes = contains(NumberField);
  tags = containsMany(StringField);
  address = contains(Address);

  like() {
    this.likes = this.likes + 1;
  }

  static embedded({ model, fields }) {
    return html`<article class="listing ${model.inStock ? 'in-stock' : 'sold-out'}" data-sku=${model.sku} aria-label="${model.title}">
      <header>
        <h3 class="title">${fields.title}</h3>
        <span class="price" title="Price in ${model.currency}">${model.currency} ${model.price.toFixed(2)}</span>
      </header>
      <p class="description">${fields.description}</p>
      ${fields.address}
      <div class="tags">${fields.tags}</div>
      <footer>
        <span class="listed">Listed ${fields.listed}</span>
        <span class="stock">${model.inStock ? 'In stock' : 'Sold out'}</span>
        <button type="button" class="like" aria-label="Like ${model.title}" ${on('click', model.like)}>Like (${fields.likes})</button>
      </footer>
    </article>`;
  }
}
