// Guest-side TextEncoder and TextDecoder, evaluated in the guest realm on first use (realm creation stays
// cheap). It runs as guest code and holds no host object: only the natives passed in,
// which take and return guest values (and, for `bridge`, plain data the host answers).
(function (natives) {
  'use strict';
  const { encode, decode } = natives;
  const define = (target, name, value) =>
    Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
  const brand = (C, tag) => Object.defineProperty(C.prototype, Symbol.toStringTag, { value: tag, configurable: true });

  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input = '') { return encode(String(input)); }
    encodeInto(source, destination) {
      if (!(destination instanceof Uint8Array)) throw new TypeError('encodeInto needs a Uint8Array');
      const s = String(source);
      let read = 0;
      let written = 0;
      for (const ch of s) {
        const bytes = encode(ch);
        if (written + bytes.length > destination.length) break;
        destination.set(bytes, written);
        written += bytes.length;
        read += ch.length;
      }
      return { read, written };
    }
  }
  brand(TextEncoder, 'TextEncoder');

  const UTF8_LABELS = ['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8'];
  class TextDecoder {
    #fatal;
    #ignoreBOM;
    constructor(label = 'utf-8', options = {}) {
      const l = String(label).trim().toLowerCase();
      if (!UTF8_LABELS.includes(l)) throw new RangeError(`The encoding label provided ('${label}') is invalid.`);
      this.#fatal = Boolean(options && options.fatal);
      this.#ignoreBOM = Boolean(options && options.ignoreBOM);
    }
    get encoding() { return 'utf-8'; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input, options) {
      if (options && options.stream) throw new TypeError('streaming decode is not supported');
      return decode(input, this.#fatal, this.#ignoreBOM);
    }
  }
  brand(TextDecoder, 'TextDecoder');

  return { TextEncoder, TextDecoder };
})
