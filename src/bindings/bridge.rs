//! The host side of the platform bridge: URL and Intl answered by this JS engine's own
//! builtins (captured at load), with cloned data in and out. See `platform::Bridge`.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::from_graph;
use super::walk::to_graph;
use crate::platform::Bridge;
use crate::value::{CloneLimits, Graph};

#[wasm_bindgen(inline_js = r#"
const URLCtor = URL;
const ParamsCtor = URLSearchParams;
const IntlNS = Intl;
const kinds = {
  NumberFormat: IntlNS.NumberFormat, DateTimeFormat: IntlNS.DateTimeFormat, PluralRules: IntlNS.PluralRules,
  Collator: IntlNS.Collator, RelativeTimeFormat: IntlNS.RelativeTimeFormat, ListFormat: IntlNS.ListFormat,
};
const numberToLocale = Number.prototype.toLocaleString;
const bigintToLocale = BigInt.prototype.toLocaleString;
const dateMethods = {
  toLocaleString: Date.prototype.toLocaleString,
  toLocaleDateString: Date.prototype.toLocaleDateString,
  toLocaleTimeString: Date.prototype.toLocaleTimeString,
};
const localeCompare = String.prototype.localeCompare;
const toUpper = String.prototype.toLocaleUpperCase;
const toLower = String.prototype.toLocaleLowerCase;
const stringify = JSON.stringify;
const cache = new Map();
const MAX_CACHED = 256;
const METHODS = new Set(['format', 'formatToParts', 'formatRange', 'select', 'compare']);
const SETTABLE = ['href', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];

function record(u) {
  return { href: u.href, origin: u.origin, protocol: u.protocol, username: u.username, password: u.password,
    host: u.host, hostname: u.hostname, port: u.port, pathname: u.pathname, search: u.search, hash: u.hash };
}

function formatter(kind, locales, options) {
  const C = kinds[kind];
  if (!C) throw new TypeError(`unknown Intl kind ${kind}`);
  const key = stringify([kind, locales, options]);
  let f = cache.get(key);
  if (!f) {
    f = new C(locales, options);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, f);
  }
  return f;
}

function plain(v) {
  return v && typeof v === 'object' ? JSON.parse(stringify(v)) : v;
}

export function bridge_call(op, args) {
  switch (op) {
    case 'url.parse': {
      try { return record(args[1] === null ? new URLCtor(args[0]) : new URLCtor(args[0], args[1])); } catch { return null; }
    }
    case 'url.set': {
      let u;
      try { u = new URLCtor(args[0]); } catch { return null; }
      if (!SETTABLE.includes(args[1])) return null;
      if (args[1] === 'href') { try { u = new URLCtor(args[2]); } catch { return null; } } else u[args[1]] = args[2];
      return record(u);
    }
    case 'params.parse':
      return [...new ParamsCtor(String(args[0]))];
    case 'params.serialize':
      return new ParamsCtor(args[0]).toString();
    case 'intl.new':
      return plain(formatter(args[0], args[1], args[2]).resolvedOptions());
    case 'intl.supported': {
      const C = kinds[args[0]];
      if (!C) throw new TypeError(`unknown Intl kind ${args[0]}`);
      return C.supportedLocalesOf(args[1], args[2]);
    }
    case 'intl.canonical':
      return IntlNS.getCanonicalLocales(args[0]);
    case 'intl.call': {
      const f = formatter(args[0], args[1], args[2]);
      const method = args[3];
      const call = args[4];
      if (args[0] === 'DateTimeFormat' && (method === 'format' || method === 'formatToParts' || method === 'formatRange')) {
        return plain(f[method](...call.map((t) => new Date(t))));
      }
      if (!METHODS.has(method)) throw new TypeError(`unknown Intl method ${method}`);
      return plain(f[method](...call));
    }
    case 'intl.value': {
      const [what, value, locales, options, other] = args;
      switch (what) {
        case 'number':
          return typeof value === 'bigint' ? bigintToLocale.call(value, locales, options) : numberToLocale.call(value, locales, options);
        case 'toLocaleString': case 'toLocaleDateString': case 'toLocaleTimeString':
          return dateMethods[what].call(new Date(value), locales, options);
        case 'localeCompare':
          return localeCompare.call(value, other, locales, options);
        case 'toLocaleUpperCase':
          return toUpper.call(value, locales);
        case 'toLocaleLowerCase':
          return toLower.call(value, locales);
        default:
          throw new TypeError(`unknown locale operation ${what}`);
      }
    }
    default:
      throw new TypeError(`unknown bridge operation ${op}`);
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    fn bridge_call(op: &str, args: &JsValue) -> Result<JsValue, JsValue>;
}

/// The bridge of this thread's JS engine.
pub struct HostBridge;

impl Bridge for HostBridge {
    fn call(&self, op: &str, args: Graph) -> Result<Graph, (String, String)> {
        let args = from_graph(&args).map_err(|e| ("TypeError".to_owned(), e.to_string()))?;
        let args: Array = args.unchecked_into();
        match bridge_call(op, &args) {
            Ok(value) => to_graph(&value, CloneLimits::default())
                .map_err(|e| ("TypeError".to_owned(), e.to_string())),
            Err(thrown) => {
                let get = |k: &str| {
                    Reflect::get(&thrown, &k.into())
                        .ok()
                        .and_then(|v| v.as_string())
                };
                Err((
                    get("name").unwrap_or_else(|| "Error".into()),
                    get("message").unwrap_or_else(|| "the host failed".into()),
                ))
            }
        }
    }
}
