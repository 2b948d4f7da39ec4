// Differential cases: each expression runs in the guest and in this browser's own engine,
// and the JSON of both must be identical. Included by tests/platform_web.rs (a page) and
// tests/platform_web_worker.rs (a dedicated worker).

use isolated_realm::{EvalOptions, Realm, RealmOptions, Value};
use wasm_bindgen_test::wasm_bindgen_test;

const URL_CASES: &[&str] = &[
    "new URL('https://user:pw@Example.COM:443/a/../b/./c?x=1&y=2#frag').href",
    "(() => { const u = new URL('https://example.com:8080/p?q=1#h'); return [u.origin, u.protocol, u.host, u.hostname, u.port, u.pathname, u.search, u.hash] })()",
    "new URL('../x?y#z', 'https://a.example/b/c/d').href",
    "new URL('HTTP://EXAMPLE.com/%7Efoo/ bar').href",
    "new URL('https://xn--nxasmq6b.example/').hostname",
    "new URL('https://ñandú.example/').hostname",
    "new URL('file:///C:/dir/../file.txt').href",
    "new URL('mailto:someone@example.com').pathname",
    "new URL('blob:https://a.example/uuid').origin",
    "new URL('https://[::1]:8443/').host",
    "new URL('https://a.example/?q=a b&r=ü').search",
    "URL.canParse('not a url')",
    "URL.canParse('/path', 'https://a.example')",
    "(() => { try { new URL('http://') } catch (e) { return e.name } })()",
    "(() => { const u = new URL('https://a.example/p'); u.pathname = '/new path'; u.search = 'a=1'; u.hash = 'h'; u.port = '99'; return u.href })()",
    "(() => { const u = new URL('https://a.example/?a=1&b=2&a=3'); return [u.searchParams.getAll('a'), u.searchParams.get('b'), u.searchParams.size] })()",
    "(() => { const u = new URL('https://a.example/?a=1'); u.searchParams.append('b', 'x y'); u.searchParams.set('a', '&'); return u.href })()",
    "(() => { const u = new URL('https://a.example/?z=1&a=2&m=3'); u.searchParams.sort(); return u.search })()",
    "(() => { const u = new URL('https://a.example/?a=1'); u.searchParams.delete('a'); return [u.href, u.search] })()",
    "new URLSearchParams('?a=1&b=%20&c=+&d').toString()",
    "[...new URLSearchParams({ x: '1', y: 'ü' })]",
    "new URLSearchParams([['a', '='], ['b', '&']]).toString()",
    "(() => { const p = new URLSearchParams('a=1&a=2&b=3'); p.delete('a', '2'); return [p.toString(), p.has('a', '1'), p.has('a', '2')] })()",
    "JSON.stringify(new URL('https://a.example/x'))",
    "String(new URL('https://a.example/x'))",
];

const INTL_CASES: &[&str] = &[
    "new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(1234567.891)",
    "new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(1234567.891)",
    "new Intl.NumberFormat('ja-JP', { style: 'currency', currency: 'JPY' }).format(5000)",
    "new Intl.NumberFormat('fr-FR').format(-0.5)",
    "new Intl.NumberFormat('en-IN').format(12345678)",
    "new Intl.NumberFormat('en-US', { notation: 'compact' }).format(1250000)",
    "new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 }).format(0.1234)",
    "new Intl.NumberFormat('en-US', { style: 'unit', unit: 'kilometer-per-hour' }).format(88)",
    "new Intl.NumberFormat('ar-EG').format(123.45)",
    "new Intl.NumberFormat('en-US').formatToParts(1234.5)",
    "new Intl.NumberFormat('en-US').format(12345678901234567890n)",
    "new Intl.NumberFormat('en-US', { minimumFractionDigits: 2 }).resolvedOptions().minimumFractionDigits",
    "[1, 2.5, 1e21].map(new Intl.NumberFormat('en-US').format)",
    "new Intl.DateTimeFormat('en-US', { timeZone: 'UTC' }).format(new Date(1700000000000))",
    "new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'long', timeZone: 'UTC' }).format(new Date(1700000000000))",
    "new Intl.DateTimeFormat('de-DE', { weekday: 'long', month: 'long', day: 'numeric', timeZone: 'Europe/Berlin' }).format(new Date(1700000000000))",
    "new Intl.DateTimeFormat('ja-JP', { era: 'long', year: 'numeric', timeZone: 'Asia/Tokyo' }).format(new Date(1700000000000))",
    "new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'America/New_York' }).formatToParts(new Date(1700000000000))",
    "new Intl.DateTimeFormat().resolvedOptions().timeZone",
    "new Intl.PluralRules('en-US').select(1) + new Intl.PluralRules('en-US').select(2)",
    "['zero', 1, 2, 5, 11].map((n) => new Intl.PluralRules('ar', {}).select(typeof n === 'number' ? n : 0))",
    "new Intl.PluralRules('en-US', { type: 'ordinal' }).select(22)",
    "['ä', 'a', 'z'].sort(new Intl.Collator('de').compare)",
    "['ä', 'a', 'z'].sort(new Intl.Collator('sv').compare)",
    "new Intl.Collator('en', { sensitivity: 'base' }).compare('a', 'A')",
    "new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(-1, 'day')",
    "new Intl.RelativeTimeFormat('es').format(3, 'month')",
    "new Intl.ListFormat('en', { type: 'disjunction' }).format(['a', 'b', 'c'])",
    "Intl.getCanonicalLocales(['EN-us', 'de-de'])",
    "Intl.NumberFormat.supportedLocalesOf(['en-US', 'tlh'])",
    "(() => { try { new Intl.NumberFormat('en', { style: 'currency' }) } catch (e) { return e.name } })()",
    "(1234.5).toLocaleString('de-DE')",
    "(1234.5).toLocaleString('en-US', { style: 'currency', currency: 'USD' })",
    "(123456789n).toLocaleString('en-US')",
    "new Date(1700000000000).toLocaleDateString('en-US', { timeZone: 'UTC' })",
    "new Date(1700000000000).toLocaleTimeString('fr-FR', { timeZone: 'UTC' })",
    "new Date(1700000000000).toLocaleString('en-GB', { timeZone: 'UTC' })",
    "'a'.localeCompare('b') + 'ä'.localeCompare('z', 'sv')",
    "'i'.toLocaleUpperCase('tr') + 'I'.toLocaleLowerCase('tr')",
    "Object.prototype.toString.call(Intl) + Object.prototype.toString.call(new Intl.NumberFormat())",
];

const TEXT_CASES: &[&str] = &[
    "[...new TextEncoder().encode('héllo 👋 \\uD800')]",
    "new TextDecoder().decode(new Uint8Array([0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xC0, 0x80]))",
    "new TextEncoder().encodeInto('añ👋', new Uint8Array(4))",
    "btoa('\\u00ff\\u00fe binary')",
    "atob('  SGVs\\nbG8=  ')",
    "[typeof setTimeout, typeof setInterval, typeof queueMicrotask, typeof structuredClone, typeof performance.now, typeof crypto.randomUUID]",
    "'abc'.substr(-2) + escape('ä ') + unescape('%E4')",
];

fn check(cases: &[&str]) {
    isolated_realm::bindings::install_bridge();
    let mut realm = Realm::new(RealmOptions::default(), None).expect("realm");
    let mut failures = Vec::new();
    for case in cases {
        let src = format!("JSON.stringify({case}, (k, v) => typeof v === 'bigint' ? v + 'n' : v)");
        let guest = match realm.eval(&src, &EvalOptions::default()) {
            Ok(g) => match g.root {
                Value::String(t) => t.to_lossy(),
                other => format!("{other:?}"),
            },
            Err(e) => format!("guest error: {e}"),
        };
        let host = js_sys::eval(&src)
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| "host error".into());
        if guest != host {
            failures.push(format!("{case}\n    guest: {guest}\n    V8:    {host}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ from V8:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[wasm_bindgen_test]
fn url_agrees_with_the_browser() {
    check(URL_CASES);
}

#[wasm_bindgen_test]
fn intl_agrees_with_the_browser() {
    check(INTL_CASES);
}

#[wasm_bindgen_test]
fn text_and_helpers_agree_with_the_browser() {
    check(TEXT_CASES);
}
