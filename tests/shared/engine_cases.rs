// Cases for the string and regex builtins we replace (src/builtins/) or patch (patches/
// boa_engine-04-regexp-latin1.patch). Each case is an expression; `sources()` wraps it with
// the prelude into a script whose completion is the case's JSON (or `threw <ErrorName>`).
// tests/engine_web.rs runs each in the guest and in the browser's own engine and requires
// identical text; tests/engine.rs runs each natively in our realm and in a plain Boa context
// (Boa's own builtins) and requires the same.
//
// Boa stores a string as Latin-1 bytes when it can and as UTF-16 otherwise, and our code
// takes different paths for each, so the templated operations run over strings of every
// kind: ASCII and non-ASCII Latin-1 (long enough for the regex input cache, and short),
// UTF-16 with wide characters and surrogates, and UTF-16 holding only Latin-1 content.

#[allow(dead_code)]
const PRELUDE: &str = r#"
const ASCII = 'The quick brown fox, jumps; over the lazy dog. 123 abc ABC k s K S_ a,b,,c';
const LATIN = 'Th\u00e9 qu\u00efck br\u00f6wn f\u00f3x, j\u00fcmps; \u00f6ver th\u00e9 l\u00e4zy d\u00f6g. 123 \u00e0bc \u00c0BC \u00df \u00ff \u00b5, k s';
const WIDE = 'Th\u00e9 qu\u00efck \u4e2d\u6587 br\u00f6wn \ud83d\ude00 f\u00f3x, j\u00fcmps; \u00f6ver th\u00e9 l\u00e4zy d\u00f6g. 123 \u00e0bc \u212a \u017f, k s';
const WIDE_LATIN = String.fromCharCode.apply(null, Array.from(LATIN, (c) => c.charCodeAt(0)));
const WIDE_ASCII = String.fromCharCode.apply(null, Array.from(ASCII, (c) => c.charCodeAt(0)));
const SHORT = 'a,b, c;d e';
const SURR = 'x\ud83d\ude00y\ud800z\udc00\udbff\udfff, \ud83d\ude00';
const codes = (s) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i).toString(16)).join(' ');
const replacer = (k, v) => typeof v === 'bigint' ? v + 'n'
  : typeof v === 'string' && /[\ud800-\udfff]/.test(v) ? 'units:' + codes(v) : v;
"#;

/// The strings every templated operation runs over.
#[allow(dead_code)]
const STRINGS: &[&str] = &["ASCII", "WIDE_ASCII", "LATIN", "WIDE_LATIN", "WIDE", "SHORT", "SURR"];

/// String operations over `S`.
#[allow(dead_code)]
const STRING_OPS: &[&str] = &[
    "[S.indexOf(','), S.indexOf(', '), S.indexOf(',', 20), S.indexOf('zz'), S.indexOf(''), S.indexOf('', 5), S.indexOf('', 1e9)]",
    "[S.indexOf(S), S.indexOf(S + 'x'), S.indexOf(S.slice(3, 9)), S.indexOf(S.slice(-4)), S.indexOf(S.slice(-4), S.length - 3)]",
    "[S.indexOf('o', -5), S.indexOf('o', NaN), S.indexOf('o', Infinity), S.indexOf('o', -Infinity), S.indexOf('o', 4.9), S.indexOf('o', '7')]",
    "[S.indexOf('\\u00e9'), S.indexOf('\\u00f6w'), S.indexOf('\\u4e2d'), S.indexOf('\\ud83d'), S.indexOf('\\ude00'), S.indexOf('\\ud83d\\ude00'), S.indexOf('\\u212a')]",
    "[S.indexOf('k s'), S.indexOf('K'), S.indexOf('\\u00e9'.toUpperCase().toLowerCase()), S.indexOf(String.fromCharCode(0x2c, 0x20))]",
    "(() => { const hits = []; let p = 0; while ((p = S.indexOf('o', p)) !== -1) { hits.push(p); p += 1 } return hits })()",
    "(() => { const hits = []; for (let p = -3; p <= S.length + 9; p += 7) hits.push(S.indexOf('', p), S.indexOf(S.slice(p, p + 2), p)); return hits })()",
    "[S.includes(','), S.includes(',', 40), S.includes('zz'), S.includes(''), S.includes('', 1e9), S.includes('\\u00f6'), S.includes('\\ud83d\\ude00', 3)]",
    "S.split(',')",
    "S.split(', ')",
    "S.split(' ', 3)",
    "[S.split(',', 0), S.split(',', 1), S.split(',', -1).length, S.split(',', 2 ** 32).length, S.split(',', 2 ** 32 + 1), S.split(',', NaN), S.split(',', '2')]",
    "[S.split(), S.split(undefined, 0), S.split(undefined, 1)]",
    "S.split('')",
    "S.split('', 5)",
    "[S.split(S), S.split(S + S), S.split(S.slice(0, 1)), S.split(S.slice(-1))]",
    "[S.split('\\u00e9'), S.split('\\u00f6w'), S.split('\\u4e2d'), S.split('\\ud83d'), S.split('\\ude00')]",
    "S.split(null)",
    "S.repeat(300).split(', ').length",
    "S.replaceAll(',', ';')",
    "S.replaceAll('', '-')",
    "S.replaceAll(', ', '[$&|$$|$`|$\\'|$1|$<n>|$]')",
    "S.replaceAll('o', (m, p, s) => `${m}${p}${s.length}`)",
    "S.replaceAll('\\u00f6', 'oe') + S.replaceAll('o', '\\u00f6') + S.replaceAll('o', '\\u4e2d')",
    "S.replaceAll('\\ud83d', '\\ude00') + S.replaceAll('\\ude00', '')",
    "S.repeat(200).replaceAll(' ', '  ').length",
];

/// Regex operations over `S`, through every `RegExp` entry point.
#[allow(dead_code)]
const REGEX_OPS: &[&str] = &[
    "S.replace(/o/g, '[$&]')",
    "S.replace(/(\\w)(\\w)/g, '$2$1')",
    "S.replace(/(?<word>[a-z]+)/gi, '<$<word>>')",
    "S.replace(/\\b/g, '|')",
    "S.replace(/x*/g, '-')",
    "S.replace(/[\\u00e0-\\u00ff]/g, (c, i) => c.toUpperCase() + i)",
    "S.replace(/\\u00f6|\\u00e9/gi, 'X')",
    "S.replace(/K/gi, '#') + S.replace(/K/giu, '#') + S.replace(/S/gi, '$') + S.replace(/s/giu, '$')",
    "S.replace(/\\u212a/gi, '#') + S.replace(/\\u212a/giu, '#') + S.replace(/\\u017f/gi, '$') + S.replace(/\\u017f/giu, '$')",
    "[/\\W/iu.test(S.slice(-3)), S.replace(/\\W+/giu, '_'), S.replace(/[^k]/giu, ''), S.replace(/\\w/giu, '')]",
    "S.replace(/(.)\\1/gi, '<$1$1>') + S.replace(/([a-z])(?=\\1)/gi, '*')",
    "S.replace(/(?<=o)\\w/g, '!') + S.replace(/(?<!\\w)\\w/g, (c) => c.toUpperCase())",
    "S.replace(/^|$/gm, '|') + S.replace(/\\s$/, '!') + S.replace(/./gs, '.').length",
    "S.replace(/./gu, '.') + S.replace(/./g, '.')",
    "S.repeat(40).replace(/,/g, ';').length",
    "S.split(/\\s+/)",
    "S.split(/(\\s)/)",
    "S.split(/,?\\s/, 3)",
    "S.split(/x*/).length",
    "S.split(/(?:)/u)",
    "S.split(/(?<=o)/)",
    "S.split(/\\b/)",
    "S.split(/$/m)",
    "S.split(/(,)|(;)/)",
    "S.split(/\\ud83d/)",
    "S.split(/\\ud83d/u)",
    "S.split(/\\p{L}+/u)",
    "S.split(/[\\u00e9\\u00f6]/i)",
    "S.split(/zz/)",
    "S.split(/,/, 2)",
    "[S.split(/,/, 0), S.split(/(o)/, 4)]",
    "S.repeat(60).split(/\\s+/).length",
    "S.repeat(60).split(/;/).length",
    "S.match(/[a-z]+/gi)",
    "(() => { const m = S.match(/(?<first>\\w)(\\w*)/); return [m.index, m[0], m[1], m[2], m.groups, m.input === S] })()",
    "[...S.matchAll(/(?<v>[aeiou\\u00e4\\u00f6\\u00fc])/gi)].map((m) => [m.index, m[0], m.groups.v])",
    "[...S.matchAll(/(?:)/gu)].length + ':' + [...S.matchAll(/(?:)/g)].length",
    "[S.search(/\\u00f6|z/), S.search(/zz/), S.search(/\\d/)]",
    "(() => { const r = /o/g; r.lastIndex = 10; const m = r.exec(S); return [m && m.index, r.lastIndex] })()",
    "(() => { const r = /o/g; r.lastIndex = 1000; return [r.exec(S), r.lastIndex] })()",
    "(() => { const r = /\\w+/y; const out = []; for (let i = 0; i < 16; i++) { r.lastIndex = i; const m = r.exec(S); out.push(m ? [m.index, m[0], r.lastIndex] : r.lastIndex) } return out })()",
    "(() => { const r = /\\s/y; let n = 0; for (let i = 0; i < S.length; i++) { r.lastIndex = i; if (r.test(S)) n++ } return n })()",
    "(() => { const r = /(?<w>qu\\w+)|(z)/d; const m = r.exec(S); return m && [m.indices, m.indices.groups] })()",
    "(() => { const r = /(\\w)(?<rest>\\w*)/dg; const out = []; let m; while ((m = r.exec(S))) out.push(m.indices[0], m.indices[2], m.indices.groups.rest); return out.length + ':' + out.slice(0, 12).join(';') })()",
    "(() => { const r = /\\u{1F600}/u; const m = r.exec(S); return m && [m.index, m[0]] })()",
    "(() => { const r = /(?:)/gu; r.lastIndex = 2; const m = r.exec(S); return [m.index, r.lastIndex] })()",
    "(() => { const r = /./gu; r.lastIndex = 2; const m = r.exec(S); return [m.index, m[0], r.lastIndex] })()",
];

/// Cases that are not about the content of the string: coercion order, errors, property
/// shape, `Symbol.split`/`Symbol.replace` dispatch, subclassing, limits.
#[allow(dead_code)]
const FIXED_CASES: &[&str] = &[
    // Same shape as the builtin they replace.
    "['indexOf', 'includes', 'split', 'replaceAll'].map((k) => { const d = Object.getOwnPropertyDescriptor(String.prototype, k); const f = d.value; return [k, f.name, f.length, d.writable, d.enumerable, d.configurable, typeof f, Object.getOwnPropertyNames(f).sort(), Object.getPrototypeOf(f) === Function.prototype, 'prototype' in f] })",
    "['indexOf', 'includes', 'split', 'replaceAll'].map((k) => { try { new String.prototype[k]('a'); return 'constructed' } catch (e) { return e.name } })",
    "['indexOf', 'includes', 'split', 'replaceAll'].map((k) => String.prototype[k].toString() === String.prototype.lastIndexOf.toString().replace('lastIndexOf', k))",
    "Object.keys(String.prototype).length + ':' + Object.getOwnPropertyNames(String.prototype).filter((k) => ['indexOf', 'includes', 'split', 'replaceAll'].includes(k)).length",
    // RequireObjectCoercible and ToString(this).
    "['indexOf', 'includes', 'split', 'replaceAll'].map((k) => { try { String.prototype[k].call(null, 'a'); return 'ok' } catch (e) { return e.name } })",
    "['indexOf', 'includes', 'split', 'replaceAll'].map((k) => { try { String.prototype[k].call(undefined, 'a'); return 'ok' } catch (e) { return e.name } })",
    "['indexOf', 'includes', 'split', 'replaceAll'].map((k) => { try { String.prototype[k].call(Symbol('x'), 'a'); return 'ok' } catch (e) { return e.name } })",
    "[String.prototype.indexOf.call(12321, 2), String.prototype.includes.call(true, 'ru'), String.prototype.split.call(12321, 2), String.prototype.replaceAll.call(12321, 2, 9)]",
    "[String.prototype.indexOf.call({ toString() { return 'xyz' } }, 'z'), 'undefined'.indexOf(), 'null'.indexOf(null), 'abc'.indexOf({ toString() { return 'c' } })]",
    // Order of observable coercions.
    "(() => { const log = []; const t = { toString() { log.push('this'); return 'a,b,c' } }; const s = { toString() { log.push('search'); return 'b' } }; const p = { valueOf() { log.push('pos'); return 0 } }; return [String.prototype.indexOf.call(t, s, p), String.prototype.includes.call(t, s, p), log] })()",
    "(() => { const log = []; const t = { toString() { log.push('this'); return 'a,b,c' } }; const sep = { [Symbol.split]: undefined, toString() { log.push('sep'); return ',' } }; const lim = { valueOf() { log.push('lim'); return 2 } }; return [String.prototype.split.call(t, sep, lim), log] })()",
    "(() => { const log = []; const t = { toString() { log.push('this'); return 'a,b,c' } }; const sv = { [Symbol.replace]: null, toString() { log.push('search'); return ',' } }; const rv = { toString() { log.push('replace'); return ';' } }; return [String.prototype.replaceAll.call(t, sv, rv), log] })()",
    "(() => { const log = []; try { String.prototype.split.call(null, { [Symbol.split]() { log.push('split') } }) } catch (e) { log.push(e.name) } return log })()",
    // Symbol.split dispatch.
    "'a b'.split({ [Symbol.split](s, l) { return [s, l, typeof this] } }, 7)",
    "'a b'.split({ [Symbol.split]: null, toString() { return ' ' } })",
    "(() => { try { return 'a b'.split({ [Symbol.split]: 42 }) } catch (e) { return e.name } })()",
    "(() => { let seen = 0; Object.defineProperty(String.prototype, Symbol.split, { configurable: true, get() { seen++; return () => ['hijacked'] } }); try { return ['a,b'.split(','), seen] } finally { delete String.prototype[Symbol.split] } })()",
    "(() => { const n = new Number(5); n[Symbol.split] = (s) => ['num', s]; return '152'.split(n) })()",
    // replaceAll dispatch and its global check.
    "'a.b.c'.replaceAll(/\\./g, '!')",
    "(() => { try { return 'a.b'.replaceAll(/\\./, '!') } catch (e) { return e.name } })()",
    "(() => { try { return 'a.b'.replaceAll({ [Symbol.match]: true, flags: undefined }, '!') } catch (e) { return e.name } })()",
    "(() => { try { return 'a.b'.replaceAll({ [Symbol.match]: true, flags: 'i', [Symbol.replace]: () => 'r' }, '!') } catch (e) { return e.name } })()",
    "'a.b'.replaceAll({ [Symbol.match]: true, flags: 'g', [Symbol.replace]: (s, r) => s + r }, '!')",
    "(() => { const r = /\\./g; r[Symbol.match] = false; return 'a/\\\\./b'.replaceAll(r, '!') })()",
    "'abc'.replaceAll({ [Symbol.replace](s, r) { return [s, r, typeof this].join('|') } }, '!')",
    "(() => { try { return 'abc'.replaceAll({ [Symbol.replace]: 'no' }, '!') } catch (e) { return e.name } })()",
    "'aaaa'.replaceAll('aa', 'b') + '|' + ''.replaceAll('', 'x') + '|' + 'abc'.replaceAll('abc', '') + '|' + 'abcb'.replaceAll('b', (...a) => JSON.stringify(a))",
    "['$', '$$', '$$$', 'x$', '$0', '$00', '$1', '$10', '$<', '$<a', '$<a>', \"$'\", '$`', '$&$&'].map((t) => 'ab-ab'.replaceAll('b', t))",
    "'a-a'.replaceAll('a', () => 1) + 'a-a'.replaceAll('a', () => ({ toString() { return 'o' } })) + 'a-a'.replaceAll('a', undefined) + 'a-a'.replaceAll('a', null)",
    // includes refuses a regexp unless Symbol.match says otherwise.
    "(() => { try { return 'a/a/'.includes(/a/) } catch (e) { return e.name } })()",
    "(() => { const r = /a/; r[Symbol.match] = false; return 'a/a/'.includes(r) })()",
    "(() => { try { return 'x'.includes({ [Symbol.match]: 1 }) } catch (e) { return e.name } })()",
    "'[object Object]'.includes({})",
    // Searches that defeat a naive scan.
    "(() => { const s = 'a'.repeat(20000) + 'b'; return [s.indexOf('a'.repeat(300) + 'b'), s.indexOf('a'.repeat(300) + 'c'), s.includes('aab', 100), s.split('a'.repeat(999) + 'b').length, s.replaceAll('a'.repeat(500), '.').length] })()",
    "(() => { const s = 'ab'.repeat(5000); return [s.indexOf('abab'.repeat(40) + 'b'), s.split('ba').length, s.split('abab').length] })()",
    // RegExp @@split through subclasses, species and a replaced exec (the slow path).
    "(() => { let calls = 0; class R extends RegExp { exec(s) { calls++; return super.exec(s) } } return ['a b  c'.split(new R('\\\\s+')), calls] })()",
    "(() => { class R extends RegExp { static get [Symbol.species]() { return RegExp } } return 'a b  c'.split(new R('\\\\s+')) })()",
    "(() => { let made = 0; class R extends RegExp { static get [Symbol.species]() { return function (p, f) { made++; return new RegExp(p, f) } } } return ['a b  c'.split(new R('\\\\s+', 'g')), made] })()",
    "(() => { const exec = RegExp.prototype.exec; let calls = 0; RegExp.prototype.exec = function (s) { calls++; return exec.call(this, s) }; try { return ['a b  c'.split(/\\s+/), calls] } finally { RegExp.prototype.exec = exec } })()",
    "(() => { const exec = RegExp.prototype.exec; let gets = 0; Object.defineProperty(RegExp.prototype, 'exec', { configurable: true, get() { gets++; return exec } }); try { return ['a b c'.split(/ /), gets] } finally { Object.defineProperty(RegExp.prototype, 'exec', { value: exec, writable: true, configurable: true }) } })()",
    "(() => { const r = /\\s/; Object.defineProperty(r, 'flags', { value: 'i' }); return 'a B c'.split(r) })()",
    "(() => { const r = /b/; r.exec = () => null; return ['abc'.split(r), 'abc'.replace(r, 'x'), r.test('abc')] })()",
    "(() => { const r = /\\s/g; r[Symbol.split] = (s, l) => ['own', s, l]; return 'a b'.split(r, 3) })()",
    "(() => { const r = /b/g; r[Symbol.replace] = (s, x) => ['own', s, x].join('|'); return ['abc'.replace(r, 'x'), 'abc'.replaceAll(r, 'y')] })()",
    "(() => { const r = /b/g; r.lastIndex = 2; const out = ['abcb'.replace(r, 'x'), r.lastIndex, 'abcb'.match(r), r.lastIndex, 'abcb'.split(r), r.lastIndex]; return out })()",
    "(() => { const r = /o/y; r.lastIndex = 0; return ['foo'.replace(r, '0'), r.lastIndex, 'oof'.replace(r, '0'), r.lastIndex] })()",
    "(() => { const r = /(?:)/y; return 'abc'.split(r) })()",
    "''.split(/x/).concat(''.split(/(?:)/), ''.split(''), ''.split(','))",
    // RegExp @@replace: the fast path (patch 12) for an unmodified RegExp, and each change
    // to the regexp or %RegExp.prototype% that must send it back to the spec's steps.
    "(() => { const r = /b/g; r.lastIndex = 7; const out = ['abcb'.replace(r, 'x'), r.lastIndex]; const n = /b/; n.lastIndex = 7; out.push('abcb'.replace(n, 'x'), n.lastIndex); return out })()",
    "(() => { const r = /(a)|(b)/g; const seen = []; const out = 'abcab'.replace(r, (...a) => { seen.push(a, r.lastIndex); r.lastIndex = 99; return '[' + a[0] + ']' }); return [out, seen, r.lastIndex] })()",
    "(() => { const r = /\\w/g; const exec = RegExp.prototype.exec; let n = 0; try { return ['abc'.replace(r, (m) => { RegExp.prototype.exec = () => { n++; return null }; return m.toUpperCase() }), n] } finally { RegExp.prototype.exec = exec } })()",
    "(() => { const r = /b/g; try { 'abcb'.replace(r, () => { throw new Error('stop') }) } catch (e) { return [e.message, r.lastIndex] } })()",
    "(() => { const log = []; const r = /b/; r.lastIndex = { valueOf() { log.push('valueOf'); return 0 } }; return ['abc'.replace(r, 'x'), log] })()",
    "(() => { const r = /b/g; Object.defineProperty(r, 'flags', { value: '' }); return ['abcb'.replace(r, 'x'), r.lastIndex] })()",
    "(() => { const r = /b/g; Object.defineProperty(r, 'global', { value: false }); return ['abcb'.replace(r, 'x'), r.lastIndex] })()",
    "(() => { const r = Object.freeze(/b/g); try { return 'abcb'.replace(r, 'x') } catch (e) { return e.name } })()",
    "(() => { const r = /b/; Object.defineProperty(r, 'lastIndex', { value: 0, writable: false }); return ['abcb'.replace(r, 'x'), (() => { try { return 'abcb'.replace(Object.defineProperty(/b/g, 'lastIndex', { value: 0, writable: false }), 'x') } catch (e) { return e.name } })()] })()",
    "(() => { const d = Object.getOwnPropertyDescriptor(RegExp.prototype, 'global'); Object.defineProperty(RegExp.prototype, 'global', Object.getOwnPropertyDescriptor(RegExp.prototype, 'sticky')); try { return ['abcb'.replace(/b/g, 'x'), 'abcb'.replace(/b/gy, 'x')] } finally { Object.defineProperty(RegExp.prototype, 'global', d) } })()",
    "(() => { const d = Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags'); let gets = 0; Object.defineProperty(RegExp.prototype, 'flags', { configurable: true, get() { gets++; return d.get.call(this).replace('g', '') } }); try { return ['abcb'.replace(/b/g, 'x'), gets] } finally { Object.defineProperty(RegExp.prototype, 'flags', d) } })()",
    "(() => { const d = Object.getOwnPropertyDescriptor(RegExp.prototype, 'unicode'); Object.defineProperty(RegExp.prototype, 'unicode', { configurable: true, get() { return true } }); try { return '\\ud83d\\ude00\\ud83d\\ude00'.replace(/(?:)/g, '-') } finally { Object.defineProperty(RegExp.prototype, 'unicode', d) } })()",
    "(() => { const proto = RegExp.prototype; const r = /b/g; Object.setPrototypeOf(r, Object.create(proto, { exec: { value(s) { return proto.exec.call(this, s) } } })); return 'abcb'.replace(r, 'x') })()",
    "(() => { class R extends RegExp { exec(s) { const m = super.exec(s); if (m) m[0] = 'Q'; return m } } return 'abcb'.replace(new R('b', 'g'), '[$&]') })()",
    "[new RegExp('b', 'g'), RegExp('b', 'g'), new RegExp(/b/g), /b/g].map((r) => 'abcb'.replace(r, '<$&>'))",
    "['\\ud83d\\ude00x'.replace(/(?:)/g, '-'), '\\ud83d\\ude00x'.replace(/(?:)/gu, '-'), '\\ud83d\\ude00x'.replace(/(?:)/gv, '-'), '\\ud83d\\ude00x'.replaceAll(/(?:)/gu, '-'), 'aaa'.replace(/a*?/g, '-'), 'aaa'.replace(/a*/g, '-')]",
    "['abc'.replace(/(?<x>b)/g, '[$<x>]'), 'abc'.replace(/(?<x>b)/, (...a) => JSON.stringify(a)), 'abc'.replace(/(?<x>z)?b/g, (...a) => JSON.stringify(a))]",
    "['a1b22c'.replace(/(\\d)(\\d)?/g, '[$1|$2|$3|$&|$`|$\\'|$$]'), 'a1b22c'.replace(/(\\d)(\\d)?/g, (...a) => JSON.stringify(a)), 'abc'.replace(/z/g, 'x'), ''.replace(/(?:)/g, 'x'), 'abc'.replace(/$/g, '!'), 'ab\\ncd'.replace(/^/gm, '> ')]",
    "(() => { const a = /b/g, b = /b/g; a.lastIndex = 3; const r = [a === b, a.lastIndex, b.lastIndex, 'abcb'.replace(a, 'x'), a.compile('c', 'g') === a, 'abcb'.replace(a, 'x'), 'abcb'.replace(b, 'x'), 'abcb'.replace(/b/g, 'y')]; return r })()",
    "(() => { const out = []; for (let i = 0; i < 3; i++) { try { new RegExp('(', 'g') } catch (e) { out.push(e.name) } try { new RegExp('b', 'gg') } catch (e) { out.push(e.name) } } return out })()",
    "(() => { const out = []; for (let i = 0; i < 70; i++) out.push('abc'.replace(new RegExp(String.fromCharCode(97 + (i % 26)), i % 2 ? 'g' : 'gi'), '#')); return out.join() })()",
    // The same input through several regexes and back, so the per-string caches turn over.
    "(() => { const s = 'word, '.repeat(100) + '\\u00e9'; const t = 'word, '.repeat(100); return [s.split(/,\\s/).length, t.split(/,\\s/).length, s.replace(/w/g, 'W').slice(0, 12), t.replace(/o/g, '0').slice(0, 12), s.split(/,\\s/).length, /\\u00e9$/.test(s), /\\u00e9$/.test(t)] })()",
    "(() => { const s = 'ab'.repeat(100); const a = s.split(/b/y).length; const b = s.split(/b/g).length; const c = s.split(/a/).length; return [a, b, c, s.split(/b/y).length] })()",
    // Latin-1 case folding that differs from ASCII folding.
    "['\\u00e9'.repeat(70).replace(/\\u00c9/gi, 'e').length, 'x'.repeat(70).concat('\\u00ff').search(/\\u0178/i), 'x'.repeat(70).concat('\\u00ff').search(/\\u0178/iu), 'x'.repeat(70).concat('\\u00b5').search(/\\u039c/i), 'x'.repeat(70).concat('\\u00b5').search(/\\u03bc/iu)]",
    "['x'.repeat(70) + '\\u00df', 'x'.repeat(70) + 'SS'].map((s) => [s.search(/\\u1e9e/i), s.search(/\\u1e9e/iu), s.search(/\\u00df/i), s.search(/(.)\\1/i)])",
];

/// Results past V8's string length limit: its `RangeError`, before anything is allocated.
/// Not compared with Boa's own `replaceAll`, which would allocate them.
#[allow(dead_code)]
const LIMIT_CASES: &[&str] = &[
    "(() => { try { return 'x'.repeat(2 ** 16).replaceAll('x', 'y'.repeat(2 ** 13)).length } catch (e) { return e.name } })()",
    "(() => { try { return 'x'.repeat(2 ** 15).replaceAll('x', '$`').length } catch (e) { return e.name } })()",
    "(() => { try { return 'x'.repeat(2 ** 15).replaceAll('x', \"$'\").length } catch (e) { return e.name } })()",
];

/// Cases where Boa already differed from V8 before any change of ours (the same answer on
/// boa_engine 0.22.0 from crates.io, on every string representation): regress folds
/// U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG S to ASCII letters without the `u`
/// flag, where the spec's Canonicalize keeps a non-ASCII character from matching an ASCII
/// one; and a `u`-flag `lastIndex` inside a surrogate pair is not moved to the pair's start.
/// They are listed, not fixed: both are in regress, not in code we patch.
#[allow(dead_code)]
const KNOWN_V8_DIFFERENCES: &[&str] = &[
    "(() => { const S = WIDE; return S.replace(/(?<word>[a-z]+)/gi, '<$<word>>') })()",
    "(() => { const S = WIDE; return S.replace(/K/gi, '#') + S.replace(/K/giu, '#') + S.replace(/S/gi, '$') + S.replace(/s/giu, '$') })()",
    "(() => { const S = ASCII; return S.replace(/\\u212a/gi, '#') + S.replace(/\\u212a/giu, '#') + S.replace(/\\u017f/gi, '$') + S.replace(/\\u017f/giu, '$') })()",
    "(() => { const S = WIDE_ASCII; return S.replace(/\\u212a/gi, '#') + S.replace(/\\u212a/giu, '#') + S.replace(/\\u017f/gi, '$') + S.replace(/\\u017f/giu, '$') })()",
    "(() => { const S = LATIN; return S.replace(/\\u212a/gi, '#') + S.replace(/\\u212a/giu, '#') + S.replace(/\\u017f/gi, '$') + S.replace(/\\u017f/giu, '$') })()",
    "(() => { const S = WIDE_LATIN; return S.replace(/\\u212a/gi, '#') + S.replace(/\\u212a/giu, '#') + S.replace(/\\u017f/gi, '$') + S.replace(/\\u017f/giu, '$') })()",
    "(() => { const S = WIDE; return S.replace(/\\u212a/gi, '#') + S.replace(/\\u212a/giu, '#') + S.replace(/\\u017f/gi, '$') + S.replace(/\\u017f/giu, '$') })()",
    "(() => { const S = WIDE; return S.match(/[a-z]+/gi) })()",
    "(() => { const S = SURR; return (() => { const r = /(?:)/gu; r.lastIndex = 2; const m = r.exec(S); return [m.index, r.lastIndex] })() })()",
    "(() => { const S = SURR; return (() => { const r = /./gu; r.lastIndex = 2; const m = r.exec(S); return [m.index, m[0], r.lastIndex] })() })()",
];

/// Every case, as a script whose completion value is the case's JSON text.
#[allow(dead_code)]
fn sources(with_limits: bool) -> Vec<(String, String)> {
    let mut cases: Vec<String> = Vec::new();
    for op in STRING_OPS.iter().chain(REGEX_OPS) {
        for s in STRINGS {
            cases.push(format!("(() => {{ const S = {s}; return {op} }})()"));
        }
    }
    cases.extend(FIXED_CASES.iter().map(|c| (*c).to_owned()));
    if with_limits {
        cases.extend(LIMIT_CASES.iter().map(|c| (*c).to_owned()));
    }
    cases
        .into_iter()
        .map(|case| {
            let source = format!(
                "(() => {{ {PRELUDE}\ntry {{ return JSON.stringify({case}, replacer) }} catch (e) {{ return 'threw ' + e.name }} }})()"
            );
            (case, source)
        })
        .collect()
}

/// Errors that name what failed (patch 08), with V8's message for each: tests/engine.rs
/// checks our realm gives exactly that text, and tests/engine_web.rs that V8 still does.
#[allow(dead_code)]
const ERROR_MESSAGES: &[(&str, &str)] = &[
    ("[].missing()", "[].missing is not a function"),
    ("({}).missing()", "{}.missing is not a function"),
    ("const o = { f() { return {} } }; o.f().missing()", "o.f(...).missing is not a function"),
    ("function f() {} f()()", "f(...) is not a function"),
    ("class A { #p = 1; m() { this.#p() } } new A().m()", "this[#p] is not a function"),
    ("const o = {}; o['a-b']()", "o.a-b is not a function"),
    ("const o = {}; o[1]()", "o[1] is not a function"),
    ("class B { m() { super.nope() } } new B().m()", "(intermediate value).nope is not a function"),
    ("globalThis.zz()", "globalThis.zz is not a function"),
    ("const s = Symbol('q'); let u; u[s]", "Cannot read properties of undefined (reading 'Symbol(q)')"),
    ("const o = {}; o.missing()", "o.missing is not a function"),
    ("const a = { b: {} }; a.b.c(1)", "a.b.c is not a function"),
    ("const o = { x: {} }; o.x()", "o.x is not a function"),
    ("const o = { x: 1 }; o.x(...[1, 2])", "o.x is not a function"),
    ("const f = 5; f()", "f is not a function"),
    ("const k = 'z'; const o = {}; o[k]()", "o[k] is not a function"),
    ("let u; u.x", "Cannot read properties of undefined (reading 'x')"),
    ("const n = null; n.x.y", "Cannot read properties of null (reading 'x')"),
    ("let u; u.m()", "Cannot read properties of undefined (reading 'm')"),
    ("let u; u[0]", "Cannot read properties of undefined (reading '0')"),
    ("const o = {}; o.a.b", "Cannot read properties of undefined (reading 'b')"),
    ("let u; u.x = 1", "Cannot set properties of undefined (setting 'x')"),
    ("const n = null; n['y'] = 1", "Cannot set properties of null (setting 'y')"),
    ("const x = 1; new x()", "x is not a constructor"),
    ("new Math.max()", "Math.max is not a constructor"),
    ("const C = () => 1; new C()", "C is not a constructor"),
];

/// What a regex match can start with, which regress is patched to search for over ASCII
/// text instead of trying each position (patches/regress-01): a literal, a class (inverted,
/// case-folded, non-ASCII), an anchor (with a `lastIndex` past it, sticky, multiline), a
/// zero-width start, a branch that can be empty, a back-reference. Over a long ASCII string
/// (regex inputs of 64 units or more are cached), a short one, Latin-1 and UTF-16, with V8's
/// answers: tests/engine.rs requires our realm to give exactly them, and tests/engine_web.rs
/// that V8 still does.
#[allow(dead_code)]
const REGEX_START_CASES: &[(&str, &str)] = &[
    (
        "(() => { const S = 'The quick brown fox, jumps; over the lazy dog. 123 abc ABC k s K S_ a,b,,c <b>&\"q\"'; return [S.search(/o/), S.search(/,\\s/), S.search(/[;.]/), S.search(/[^\\w\\s]/), S.search(/[A-Z]/i), S.search(/[Q]/i), S.search(/[\\u00e0-\\u00ff]/), S.search(/\\u00e9/), S.search(/\\u00c9/i), S.search(/\\ud83d/), S.search(/\\u{1F600}/u), S.search(/z/)] })()",
        "[12,19,26,19,0,4,-1,-1,-1,-1,-1,39]",
    ),
    (
        "(() => { const S = 'The quick brown fox, jumps; over the lazy dog. 123 abc ABC k s K S_ a,b,,c <b>&\"q\"'; return [S.search(/^T/), S.search(/^h/), S.search(/^1/m), S.search(/$|,/), S.replace(/^/g, '>').length, S.split(/^/m).length, (() => { const r = /^T/g; r.lastIndex = 3; return [r.test(S), r.lastIndex] })(), (() => { const r = /^/y; r.lastIndex = 1; return r.test(S) })(), (() => { const r = /^./y; return [r.test(S), r.lastIndex] })()] })()",
        "[0,-1,-1,19,83,1,[false,0],false,[true,1]]",
    ),
    (
        "(() => { const S = 'The quick brown fox, jumps; over the lazy dog. 123 abc ABC k s K S_ a,b,,c <b>&\"q\"'; return [S.search(/(?=o)\\w/), S.search(/(?<=,)\\s/), S.search(/x?o/), S.search(/(?:z|)o/), S.search(/(s)\\1/), S.search(/o{0}b/), S.search(/(?:q|b)r/), S.search(/(?:qu|\\u00e9)/), S.match(/[\\s,;.]+/g)] })()",
        "[12,20,12,12,-1,10,10,4,[\" \",\" \",\" \",\", \",\"; \",\" \",\" \",\" \",\". \",\" \",\" \",\" \",\" \",\" \",\" \",\" \",\",\",\",,\",\" \"]]",
    ),
    (
        "(() => { const S = 'The quick brown fox, jumps; over the lazy dog. 123 abc ABC k s K S_ a,b,,c <b>&\"q\"'; return S.replace(/[&<>\"']|,/g, (c) => '&#' + c.charCodeAt(0) + ';') + S.repeat(3).replace(/[aeiou]/g, '').length })()",
        "\"The quick brown fox&#44; jumps; over the lazy dog. 123 abc ABC k s K S_ a&#44;b&#44;&#44;c &#60;b&#62;&#38;&#34;q&#34;207\"",
    ),
    (
        "(() => { const S = 'The quick brown fox, jumps; over the lazy dog. 123 abc ABC k s K S_ a,b,,c <b>&\"q\"'; return (() => { const r = /o\\w/g; const out = []; let m; while ((m = r.exec(S))) out.push(m.index + m[0]); const y = /o/y; y.lastIndex = S.indexOf('o') + 1; return [out, y.test(S), y.lastIndex] })() })()",
        "[[\"12ow\",\"17ox\",\"28ov\",\"43og\"],false,0]",
    ),
    (
        "(() => { const S = 'The quick brown fox, jumps; over the lazy dog. 123 abc ABC k s K S_ a,b,,c <b>&\"q\"'; return [S.split(/,/), S.split(/\\s+/).length, S.split(/k/i).length, S.match(/\\d+/g)] })()",
        "[[\"The quick brown fox\",\" jumps; over the lazy dog. 123 abc ABC k s K S_ a\",\"b\",\"\",\"c <b>&\\\"q\\\"\"],18,4,[\"123\"]]",
    ),
    (
        "(() => { const S = 'a,b, c;d e<>&x'; return [S.search(/o/), S.search(/,\\s/), S.search(/[;.]/), S.search(/[^\\w\\s]/), S.search(/[A-Z]/i), S.search(/[Q]/i), S.search(/[\\u00e0-\\u00ff]/), S.search(/\\u00e9/), S.search(/\\u00c9/i), S.search(/\\ud83d/), S.search(/\\u{1F600}/u), S.search(/z/)] })()",
        "[-1,3,6,1,0,-1,-1,-1,-1,-1,-1,-1]",
    ),
    (
        "(() => { const S = 'a,b, c;d e<>&x'; return [S.search(/^T/), S.search(/^h/), S.search(/^1/m), S.search(/$|,/), S.replace(/^/g, '>').length, S.split(/^/m).length, (() => { const r = /^T/g; r.lastIndex = 3; return [r.test(S), r.lastIndex] })(), (() => { const r = /^/y; r.lastIndex = 1; return r.test(S) })(), (() => { const r = /^./y; return [r.test(S), r.lastIndex] })()] })()",
        "[-1,-1,-1,1,15,1,[false,0],false,[true,1]]",
    ),
    (
        "(() => { const S = 'a,b, c;d e<>&x'; return [S.search(/(?=o)\\w/), S.search(/(?<=,)\\s/), S.search(/x?o/), S.search(/(?:z|)o/), S.search(/(s)\\1/), S.search(/o{0}b/), S.search(/(?:q|b)r/), S.search(/(?:qu|\\u00e9)/), S.match(/[\\s,;.]+/g)] })()",
        "[-1,4,-1,-1,-1,2,-1,-1,[\",\",\", \",\";\",\" \"]]",
    ),
    (
        "(() => { const S = 'a,b, c;d e<>&x'; return S.replace(/[&<>\"']|,/g, (c) => '&#' + c.charCodeAt(0) + ';') + S.repeat(3).replace(/[aeiou]/g, '').length })()",
        "\"a&#44;b&#44; c;d e&#60;&#62;&#38;x36\"",
    ),
    (
        "(() => { const S = 'a,b, c;d e<>&x'; return (() => { const r = /o\\w/g; const out = []; let m; while ((m = r.exec(S))) out.push(m.index + m[0]); const y = /o/y; y.lastIndex = S.indexOf('o') + 1; return [out, y.test(S), y.lastIndex] })() })()",
        "[[],false,0]",
    ),
    (
        "(() => { const S = 'a,b, c;d e<>&x'; return [S.split(/,/), S.split(/\\s+/).length, S.split(/k/i).length, S.match(/\\d+/g)] })()",
        "[[\"a\",\"b\",\" c;d e<>&x\"],3,1,null]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck br\\u00f6wn f\\u00f3x, jumps; 123 k s <\\u00e9>'; return [S.search(/o/), S.search(/,\\s/), S.search(/[;.]/), S.search(/[^\\w\\s]/), S.search(/[A-Z]/i), S.search(/[Q]/i), S.search(/[\\u00e0-\\u00ff]/), S.search(/\\u00e9/), S.search(/\\u00c9/i), S.search(/\\ud83d/), S.search(/\\u{1F600}/u), S.search(/z/)] })()",
        "[-1,19,26,2,0,4,2,2,2,-1,-1,-1]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck br\\u00f6wn f\\u00f3x, jumps; 123 k s <\\u00e9>'; return [S.search(/^T/), S.search(/^h/), S.search(/^1/m), S.search(/$|,/), S.replace(/^/g, '>').length, S.split(/^/m).length, (() => { const r = /^T/g; r.lastIndex = 3; return [r.test(S), r.lastIndex] })(), (() => { const r = /^/y; r.lastIndex = 1; return r.test(S) })(), (() => { const r = /^./y; return [r.test(S), r.lastIndex] })()] })()",
        "[0,-1,-1,19,40,1,[false,0],false,[true,1]]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck br\\u00f6wn f\\u00f3x, jumps; 123 k s <\\u00e9>'; return [S.search(/(?=o)\\w/), S.search(/(?<=,)\\s/), S.search(/x?o/), S.search(/(?:z|)o/), S.search(/(s)\\1/), S.search(/o{0}b/), S.search(/(?:q|b)r/), S.search(/(?:qu|\\u00e9)/), S.match(/[\\s,;.]+/g)] })()",
        "[-1,20,-1,-1,-1,10,10,2,[\" \",\" \",\" \",\", \",\"; \",\" \",\" \",\" \"]]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck br\\u00f6wn f\\u00f3x, jumps; 123 k s <\\u00e9>'; return S.replace(/[&<>\"']|,/g, (c) => '&#' + c.charCodeAt(0) + ';') + S.repeat(3).replace(/[aeiou]/g, '').length })()",
        "\"Thé quïck bröwn fóx&#44; jumps; 123 k s &#60;é&#62;111\"",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck br\\u00f6wn f\\u00f3x, jumps; 123 k s <\\u00e9>'; return (() => { const r = /o\\w/g; const out = []; let m; while ((m = r.exec(S))) out.push(m.index + m[0]); const y = /o/y; y.lastIndex = S.indexOf('o') + 1; return [out, y.test(S), y.lastIndex] })() })()",
        "[[],false,0]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck br\\u00f6wn f\\u00f3x, jumps; 123 k s <\\u00e9>'; return [S.split(/,/), S.split(/\\s+/).length, S.split(/k/i).length, S.match(/\\d+/g)] })()",
        "[[\"Thé quïck bröwn fóx\",\" jumps; 123 k s <é>\"],9,3,[\"123\"]]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck \\u4e2d br\\u00f6wn \\ud83d\\ude00 f\\u00f3x, 123 k s <\\u00e9>'; return [S.search(/o/), S.search(/,\\s/), S.search(/[;.]/), S.search(/[^\\w\\s]/), S.search(/[A-Z]/i), S.search(/[Q]/i), S.search(/[\\u00e0-\\u00ff]/), S.search(/\\u00e9/), S.search(/\\u00c9/i), S.search(/\\ud83d/), S.search(/\\u{1F600}/u), S.search(/z/)] })()",
        "[-1,24,-1,2,0,4,2,2,2,18,18,-1]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck \\u4e2d br\\u00f6wn \\ud83d\\ude00 f\\u00f3x, 123 k s <\\u00e9>'; return [S.search(/^T/), S.search(/^h/), S.search(/^1/m), S.search(/$|,/), S.replace(/^/g, '>').length, S.split(/^/m).length, (() => { const r = /^T/g; r.lastIndex = 3; return [r.test(S), r.lastIndex] })(), (() => { const r = /^/y; r.lastIndex = 1; return r.test(S) })(), (() => { const r = /^./y; return [r.test(S), r.lastIndex] })()] })()",
        "[0,-1,-1,24,38,1,[false,0],false,[true,1]]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck \\u4e2d br\\u00f6wn \\ud83d\\ude00 f\\u00f3x, 123 k s <\\u00e9>'; return [S.search(/(?=o)\\w/), S.search(/(?<=,)\\s/), S.search(/x?o/), S.search(/(?:z|)o/), S.search(/(s)\\1/), S.search(/o{0}b/), S.search(/(?:q|b)r/), S.search(/(?:qu|\\u00e9)/), S.match(/[\\s,;.]+/g)] })()",
        "[-1,25,-1,-1,-1,12,12,2,[\" \",\" \",\" \",\" \",\" \",\", \",\" \",\" \",\" \"]]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck \\u4e2d br\\u00f6wn \\ud83d\\ude00 f\\u00f3x, 123 k s <\\u00e9>'; return S.replace(/[&<>\"']|,/g, (c) => '&#' + c.charCodeAt(0) + ';') + S.repeat(3).replace(/[aeiou]/g, '').length })()",
        "\"Thé quïck 中 bröwn 😀 fóx&#44; 123 k s &#60;é&#62;108\"",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck \\u4e2d br\\u00f6wn \\ud83d\\ude00 f\\u00f3x, 123 k s <\\u00e9>'; return (() => { const r = /o\\w/g; const out = []; let m; while ((m = r.exec(S))) out.push(m.index + m[0]); const y = /o/y; y.lastIndex = S.indexOf('o') + 1; return [out, y.test(S), y.lastIndex] })() })()",
        "[[],false,0]",
    ),
    (
        "(() => { const S = 'Th\\u00e9 qu\\u00efck \\u4e2d br\\u00f6wn \\ud83d\\ude00 f\\u00f3x, 123 k s <\\u00e9>'; return [S.split(/,/), S.split(/\\s+/).length, S.split(/k/i).length, S.match(/\\d+/g)] })()",
        "[[\"Thé quïck 中 bröwn 😀 fóx\",\" 123 k s <é>\"],10,3,[\"123\"]]",
    ),

];

/// Patch 61 makes the array directly where `Construct(C, « length »)` would call this
/// realm's `%Array%` (`ArraySpeciesCreate`, `Array.from`, `Array.of`). Each case, with V8's
/// answer, constructs through a path that could differ: subclasses, a `constructor` or
/// `Symbol.species` redefined (their reads still observable), a species that is not
/// `%Array%`, null, not a constructor or a plain function, `from` and `of` called on other
/// `this` values, proxies, and lengths past 2^32 - 1. tests/engine.rs requires our realm to
/// give exactly them, and tests/engine_web.rs that V8 still does.
#[allow(dead_code)]
const SPECIES_CASES: &[(&str, &str)] = &[
    (
        "[1, 2, 3].map((x) => x * 2)",
        "[2,4,6]",
    ),
    (
        "(() => { const a = [1, 2, 3].filter((x) => x > 1); return [Array.isArray(a), Object.getPrototypeOf(a) === Array.prototype, a.constructor === Array, a] })()",
        "[true,true,true,[2,3]]",
    ),
    (
        "(() => { class MyArr extends Array {} const m = MyArr.from([1, 2, 3]); const r = m.map((x) => x + 1); return [r instanceof MyArr, r.constructor.name, r.length, [...r], MyArr.of(7, 8) instanceof MyArr, m.slice(1) instanceof MyArr] })()",
        "[true,\"MyArr\",3,[2,3,4],true,true]",
    ),
    (
        "(() => { let gets = 0; const a = [1, 2]; Object.defineProperty(a, 'constructor', { get() { gets++; return Array } }); const r = a.map((x) => x); return [gets, r, r instanceof Array] })()",
        "[1,[1,2],true]",
    ),
    (
        "(() => { let calls = 0; const d = Object.getOwnPropertyDescriptor(Array, Symbol.species); Object.defineProperty(Array, Symbol.species, { get() { calls++; return d.get.call(this) }, configurable: true }); try { const r = [1, 2, 3].map((x) => x).concat([4]).slice(1).splice(0, 1); return [calls, r] } finally { Object.defineProperty(Array, Symbol.species, d) } })()",
        "[4,[2]]",
    ),
    (
        "(() => { const d = Object.getOwnPropertyDescriptor(Array, Symbol.species); function Box(n) { this.made = n } Object.defineProperty(Array, Symbol.species, { get() { return Box }, configurable: true }); try { const r = [1, 2].map((x) => x * 3); return [r instanceof Box, r.made, r[0], r[1], r.length] } finally { Object.defineProperty(Array, Symbol.species, d) } })()",
        "[true,2,3,6,null]",
    ),
    (
        "(() => { const a = [1, 2, 3]; a.constructor = { [Symbol.species]: null }; const b = [4]; b.constructor = undefined; return [a.map((x) => x).constructor === Array, b.filter(() => true).constructor === Array] })()",
        "[true,true]",
    ),
    (
        "(() => { const a = [1]; a.constructor = { [Symbol.species]: 5 }; try { a.map((x) => x); return 'no error' } catch (e) { return e.constructor.name } })()",
        "\"TypeError\"",
    ),
    (
        "(() => { const a = [1]; a.constructor = 5; try { a.map((x) => x); return 'no error' } catch (e) { return e.constructor.name } })()",
        "\"TypeError\"",
    ),
    (
        "(() => { const r = [Array.from('abc'), Array.from({ length: 3 }, (_, i) => i * i), Array.of(), Array.of(5), Array.of(1, 2, 3), Array.from(new Set([3, 1, 3])), Array.from([])]; return [r, r.every((x) => Object.getPrototypeOf(x) === Array.prototype)] })()",
        "[[[\"a\",\"b\",\"c\"],[0,1,4],[],[5],[1,2,3],[3,1],[]],true]",
    ),
    (
        "(() => { function C(n) { this.args = arguments.length; this.n = n } const f = Array.from.call(C, { length: 2, 0: 'a', 1: 'b' }); const g = Array.from.call(C, new Set(['x'])); const o = Array.of.call(C, 1, 2, 3); return [f instanceof C, f.args, f.n, f.length, f[1], g.args, g.n, g.length, o.n, o.length, o[2]] })()",
        "[true,1,2,2,\"b\",0,null,1,3,3,3]",
    ),
    (
        "(() => { const plain = Array.from.call(undefined, [1, 2]); const notCtor = Array.of.call(Math.max, 3); return [Array.isArray(plain), plain, Array.isArray(notCtor), notCtor] })()",
        "[true,[1,2],true,[3]]",
    ),
    (
        "(() => { try { Array.from({ length: 2 ** 32 }); return 'no error' } catch (e) { return e.constructor.name } })()",
        "\"RangeError\"",
    ),
    (
        "(() => { try { Array.prototype.map.call([], (x) => x); const a = []; a.length = 3; return [a.map((x) => x).length, 0 in a.map((x) => x)] } catch (e) { return e.constructor.name } })()",
        "[3,false]",
    ),
    (
        "(() => { const a = [1, 2, 3, 4, 5]; return [a.slice(1, 3), a.filter((x) => x % 2), a.flatMap((x) => [x, x]).length, a.splice(1, 2), a, [[1, [2]], 3].flat(2)] })()",
        "[[2,3],[1,3,5],10,[2,3],[1,4,5],[1,2,3]]",
    ),
    (
        "(() => { const a = [1, 2]; Object.setPrototypeOf(a, null); try { return Array.prototype.map.call(a, (x) => x + 1) } catch (e) { return e.constructor.name } })()",
        "[2,3]",
    ),
    (
        "(() => { const saved = Array.prototype.constructor; function Other(n) { return ['other', n] } Array.prototype.constructor = Other; Other[Symbol.species] = Other; try { return [[1, 2].map((x) => x), Array.from([1]).length] } finally { Array.prototype.constructor = saved } })()",
        "[[1,2],1]",
    ),
    (
        "(() => { const r = Array.from({ length: 3 }); r.push(1); return [r.length, r, Array.of.apply(null, [1, 2]), Array.from.apply(Array, [[1, 2]])] })()",
        "[4,[null,null,null,1],[1,2],[1,2]]",
    ),
    (
        "(() => { const p = new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 32 : t[k]) }); try { Array.prototype.map.call(p, (x) => x); return 'no error' } catch (e) { return e.constructor.name } })()",
        "\"RangeError\"",
    ),
    (
        "(() => { const p = new Proxy([1, 2], {}); const r = Array.prototype.map.call(p, (x) => x * 10); return [Array.isArray(r), Object.getPrototypeOf(r) === Array.prototype, r] })()",
        "[true,true,[10,20]]",
    ),
];

/// Patch 60 reads an ordinary object's own data property for `[[Get]]` straight from its
/// storage, without a descriptor, and records the slot inline caches are filled from. Each
/// case, with V8's answer, reads where that could differ: accessors own and inherited, a
/// property redefined between reads, symbols, frozen objects, arrays, `String` and
/// `arguments` objects (exotic), proxies, `Reflect.get` with a receiver, and call sites whose
/// caches are filled, missed, invalidated and megamorphic. tests/engine.rs requires our
/// realm to give exactly them, and tests/engine_web.rs that V8 still does.
#[allow(dead_code)]
const OWN_GET_CASES: &[(&str, &str)] = &[
    (
        "(() => { const o = { a: 1, get b() { return 2 } }; return ['a', 'b', 'c'].map((k) => o[k]) })()",
        "[1,2,null]",
    ),
    (
        "(() => { const p = { x: 1, get y() { return this.z } }; const o = Object.create(p); o.z = 5; return [o['x'], o['y'], o['nope']] })()",
        "[1,5,null]",
    ),
    (
        "(() => { const s = Symbol('s'); const o = { [s]: 3 }; return [o[s], o[Symbol.iterator] === undefined] })()",
        "[3,true]",
    ),
    (
        "(() => { const o = { a: 1 }; const r1 = o['a']; Object.defineProperty(o, 'a', { get() { return 9 } }); const r2 = o['a']; Object.defineProperty(o, 'a', { value: 4 }); return [r1, r2, o['a']] })()",
        "[1,9,4]",
    ),
    (
        "(() => { const o = Object.freeze({ a: 1 }); const a = [1, 2, 3]; a['x'] = 2; return [o['a'], a['length'], a['x'], a['1']] })()",
        "[1,3,2,2]",
    ),
    (
        "(() => { const s = Object('abc'); return [s['length'], s['1'], 'abc'['length'], s['toUpperCase']()] })()",
        "[3,\"b\",3,\"ABC\"]",
    ),
    (
        "[(function () { return arguments['length'] })(1, 2), (function (a) { a = 5; return arguments['0'] })(1), (function (a) { 'use strict'; a = 5; return arguments['0'] })(1)]",
        "[2,5,1]",
    ),
    (
        "(() => { const p = new Proxy({}, { get: (t, k) => String(k) + '!' }); const q = new Proxy({ a: 1 }, {}); return [p['q'], q['a'], q['b']] })()",
        "[\"q!\",1,null]",
    ),
    (
        "(() => [globalThis['Math'] === Math, (function f() {})['name'], Math['max'](1, 2), [].constructor['name']])()",
        "[true,\"f\",2,\"Array\"]",
    ),
    (
        "(() => { class A { static s = 1; m() { return 2 } get g() { return 3 } } const a = new A(); return [A['s'], a['m'](), a['g'], A['prototype']['m'] === a.m] })()",
        "[1,2,3,true]",
    ),
    (
        "[Reflect.get({ get x() { return typeof this } }, 'x', 7), Reflect.get({ x: 1 }, 'x', { x: 2 }), Reflect.get({ get x() { return this.v } }, 'x', { v: 8 })]",
        "[\"object\",1,8]",
    ),
    (
        "(() => { const objs = [{ a: 1 }, { b: 1, a: 2 }, { c: 1, a: 3 }, { d: 1, a: 4 }, { e: 1, a: 5 }, { f: 1, a: 6 }]; const r = []; for (let i = 0; i < 3; i++) r.push(objs.map((o) => o.a).join()); return r })()",
        "[\"1,2,3,4,5,6\",\"1,2,3,4,5,6\",\"1,2,3,4,5,6\"]",
    ),
    (
        "(() => { function f(o) { return o.v } const a = { v: 1 }; const b = Object.create(a); const r = [f(a), f(b), f(a), f(b)]; delete a.v; r.push(f(b), f(a)); a.v = 7; r.push(f(b)); return r })()",
        "[1,1,1,1,null,null,7]",
    ),
    (
        "(() => { function g(o) { return o.z } const x = { p: 1, z: 2 }; const y = { q: 0, p: 1, z: 3 }; return [g(x), g(x), g(y), g(y), g(x)] })()",
        "[2,2,3,3,2]",
    ),
    (
        "(() => { function h(o) { return o.w } const acc = { get w() { return 'g' } }; return [h(acc), h(acc), h({ w: 'd' }), h(acc)] })()",
        "[\"g\",\"g\",\"d\",\"g\"]",
    ),
    (
        "(() => { const ESC = { '&': '&amp;', '<': '&lt;' }; return 'a<b&c'.replace(/[&<]/g, (c) => ESC[c]) })()",
        "\"a&lt;b&amp;c\"",
    ),
    (
        "(() => { const o = {}; for (let i = 0; i < 40; i++) o['k' + i] = i; let s = 0; for (let i = 0; i < 40; i++) s += o['k' + i]; delete o.k3; return [s, o['k3'], o['k39'], Object.keys(o).length] })()",
        "[780,null,39,39]",
    ),
    (
        "(() => { const o = { __proto__: { inherited: 1 }, own: 2 }; return [o['inherited'], o['own'], 'inherited' in o, o.hasOwnProperty('inherited')] })()",
        "[1,2,true,false]",
    ),
];

/// `source` wrapped to complete with the message of what it throws.
#[allow(dead_code)]
fn message_of(source: &str) -> String {
    format!("(() => {{ try {{ {source}; return 'no error' }} catch (e) {{ return String(e.message) }} }})()")
}

/// Patch 15 compiles reads of a function's locals in place (parameters, `return`, property
/// reads and method calls, `var` updates, object literal values), dropping copies through
/// temporaries; patch 16 stops a binary operator reading its left local in place when its
/// right side may write it. Each case, with V8's answer (the JSON of its value, or `threw <name>`), sits
/// where that could change what a program sees: tests/engine.rs requires our realm to give
/// exactly it, and tests/engine_web.rs that V8 still does.
#[allow(dead_code)]
const LOCALS_CASES: &[(&str, &str)] = &[
    // parameters read straight into their registers
    ("(function (a, a) { return a })(1, 2)", "2"),
    ("(function (a, b = a + 1, c) { return [a, b, c] })(1, undefined, 3)", "[1,2,3]"),
    ("(function (a) { arguments[0] = 9; return a })(1)", "9"),
    ("(function (a) { 'use strict'; arguments[0] = 9; return a })(1)", "1"),
    ("(function (a, ...r) { return [a, r] })(1, 2, 3)", "[1,[2,3]]"),
    ("(function (a) { a = a + 1; return [a, arguments[0]] })(1)", "[2,2]"),
    ("(function (a, b) { return [a, b, arguments.length] })(1)", "[1,null,1]"),
    ("(function (a) { const f = () => a; a = 5; return f() })(1)", "5"),
    ("(function ({ x }, [y]) { return [x, y] })({ x: 1 }, [2])", "[1,2]"),
    // return goes straight to the accumulator unless a finally or an iterator is in the way
    ("(function () { let log = []; function g() { log.push('g'); return 1 } function h() { log.push('h'); return 2 } function f() { try { return g() } finally { h() } } return [f(), log] })()", r#"[1,["g","h"]]"#),
    ("(function () { function f() { try { return 1 } finally { return 2 } } return f() })()", "2"),
    ("(function () { let closed = 0; const it = { [Symbol.iterator]() { return { next: () => ({ value: 7, done: false }), return() { closed++; return {} } } } }; function f() { for (const v of it) return v } return [f(), closed] })()", "[7,1]"),
    ("(function () { function f(x) { { let y = x * 2; const g = () => y; return g() + y } } return f(3) })()", "12"),
    ("(function () { function f() { return } return [f(), typeof f()] })()", r#"[null,"undefined"]"#),
    ("(function () { function f(x) { if (x) return x; return 'none' } return [f(0), f(4)] })()", r#"["none",4]"#),
    ("(function () { function* g() { return 5 } return [...g(), g().next()] })()", r#"[{"value":5,"done":true}]"#),
    ("(function () { class A { constructor() { return { o: 1 } } } class B extends A { constructor() { super(); return undefined } } return [new A(), new B()] })()", r#"[{"o":1},{"o":1}]"#),
    ("(function () { class B { constructor() { return 1 } } try { return new (class extends B { constructor() { super(); return 1 } })() } catch (e) { return e.name } })()", r#""TypeError""#),
    // property reads and method calls on a local read its register in place
    ("(function () { var o = { x: 1, get y() { o = null; return 2 } }; var a = o.y; return [a, o] })()", "[2,null]"),
    ("(function () { var o = { m() { o = 'gone'; return this === p } }; var p = o; return [o.m(), o] })()", r#"[true,"gone"]"#),
    ("(function () { var o = { get m() { o = { m() { return 'new' } }; return function () { return this.tag } }, tag: 'old' }; return [o.m(), typeof o.m] })()", r#"["old","function"]"#),
    ("(function () { var s = 'abc'; return [s.length, s.toUpperCase(), s.at(-1)] })()", r#"[3,"ABC","c"]"#),
    ("(function () { var n = null; try { n.x } catch (e) { return e.constructor.name } })()", r#""TypeError""#),
    ("(function () { var u; try { u.m() } catch (e) { return e.constructor.name } })()", r#""TypeError""#),
    ("(function (o) { return o.length })([1, 2, 3])", "3"),
    // var updates in place
    ("(function () { var i = '5'; var a = i++; return [a, i, typeof a] })()", r#"[5,6,"number"]"#),
    ("(function () { var i = '5'; var a = ++i; return [a, i] })()", "[6,6]"),
    ("(function () { let i = '5'; let a = i++; return [a, i, typeof a] })()", r#"[5,6,"number"]"#),
    ("(function () { let i = '5'; let a = i--; let b = --i; return [a, b, i] })()", "[5,3,3]"),
    ("(function () { let calls = 0; let o = { valueOf() { calls++; return 3 } }; let a = o--; return [a, o, calls] })()", "[3,2,1]"),
    ("(function () { var i = 10n; i++; --i; --i; return String(i) })()", r#""9""#),
    ("(function () { var calls = 0; var o = { valueOf() { calls++; return 3 } }; var a = o++; return [a, o, calls] })()", "[3,4,1]"),
    ("(function () { var s = 0; for (var i = 0; i < 5; i++) s += i; return [s, i] })()", "[10,5]"),
    ("(function () { var i = 0; var f = () => i; i++; return f() })()", "1"),
    ("(function f() { f++; return typeof f })()", r#""function""#),
    ("(function f() { 'use strict'; try { f++ } catch (e) { return e.name } })()", r#""TypeError""#),
    ("(function () { var x = { valueOf() { throw new RangeError('v') } }; try { x++ } catch (e) { return [e.name, typeof x] } })()", r#"["RangeError","object"]"#),
    // object literals take values from a local's register
    ("(function () { var a = 1, p = { inherited: true }; var o = { a, b: a, __proto__: p, c: a + 1 }; return [o, o.inherited, Object.keys(o)] })()", r#"[{"a":1,"b":1,"c":2},true,["a","b","c"]]"#),
    ("(function () { var p = null; var o = { __proto__: p }; return Object.getPrototypeOf(o) })()", "null"),
    ("(function () { var v = 1; var o = { v, get g() { return v } }; v = 2; return [o.v, o.g] })()", "[1,2]"),

    // a binary operator reads its left local before evaluating the right (patch 16)
    ("(function () { var x = 1; return x + (x = 5) })()", "6"),
    ("(function () { let x = 1; return [x * x++, x] })()", "[1,2]"),
    ("(function () { let x = 2; return x ** (x = 3) })()", "8"),
    ("(function () { let x = 'a'; return x < (x = 'b') })()", "true"),
    ("(function () { let x = 1; if (x < (x = 5)) return 'lt'; return 'ge' })()", r#""lt""#),
    ("(function () { let x = 1; return [x === (x = 1, 2), x] })()", "[false,1]"),
    ("(function () { let x = 6; return x & (x = 3) | x })()", "3"),
    ("(function () { let x = 1; const f = (y) => y * 10; return x + f(x) + (x ? x : 0) })()", "12"),
    ("(function () { let x = 1, o = { a: 2 }; return x - o.a + (x & 3) + -x })()", "-1"),
    // `return c ? a : b` returns from each branch (patch 17)
    (r#"(function () { function f(n) { return n < 2 ? n : f(n - 1) + f(n - 2) } return f(10) })()"#, r#"55"#),
    (r#"(function () { function s(x) { return x > 0 ? 'pos' : x < 0 ? 'neg' : (x === 0 ? 'zero' : 'nan') } return [s(1), s(-1), s(0), s(NaN)] })()"#, r#"["pos","neg","zero","nan"]"#),
    (r#"[1, 2, 3].map((x) => x % 2 ? x * 10 : -x)"#, r#"[10,-2,30]"#),
    (r#"(function () { let log = []; function f(c) { try { return c ? (log.push('a'), 'a') : 'b' } finally { log.push('finally') } } return [f(1), f(0), log] })()"#, r#"["a","b",["a","finally","finally"]]"#),
    (r#"(function (c) { { let y = 1; const g = () => y; return c ? g() : y + 1 } })(0)"#, r#"2"#),
    (r#"(function () { class A {} class B extends A { constructor(c) { super(); return c ? { o: 1 } : undefined } } return [new B(1), new B(0) instanceof B] })()"#, r#"[{"o":1},true]"#),
    (r#"(function () { function* g(c) { yield 0; return c ? 1 : 2 } const it = g(0); return [it.next(), it.next(), it.next()] })()"#, r#"[{"value":0,"done":false},{"value":2,"done":true},{"done":true}]"#),
    (r#"(function () { function f(o) { return o.a ? o.b.c : 'no' } try { f({ a: 1 }) } catch (e) { return [e.name, f({})] } })()"#, r#"["TypeError","no"]"#),
    (r#"(function (c) { return (c ? 'x' : 'y') })(1)"#, r#""x""#),
    (r#"(function () { let log = []; function f(c) { return (log.push(c), c) ? log.length : -log.length } return [f(1), f(0), log] })()"#, r#"[1,-2,[1,0]]"#),
    (r#"(function () { let x = 1; function f() { return x ? (x = 0, 'then') : x } return [f(), f(), x] })()"#, r#"["then",0,0]"#),
    (r#"(function () { let closed = 0; const it = { [Symbol.iterator]() { return { next: () => ({ value: 7, done: false }), return() { closed++; return {} } } } }; function f(c) { for (const v of it) return c ? v : -v } return [f(1), f(0), closed] })()"#, r#"[7,-7,2]"#),
    // `return value;` is one instruction where nothing runs between the value and the return (patch 41)
    (r#"(function () { function F(v) { this.a = 1; return v } return [new F(2), new F({ b: 3 }), new F(), new F(null), typeof new F('s')] })()"#, r#"[{"a":1},{"b":3},{"a":1},{"a":1},"object"]"#),
    (r#"(function () { function F() { this.a = 1; return } return [new F(), F.call({})] })()"#, r#"[{"a":1},null]"#),
    (r#"(function () { const f = (x) => x * 2; const g = (x) => { return x + 1 }; const h = () => { return }; return [f(2), g(2), h()] })()"#, r#"[4,3,null]"#),
    (r#"(function () { function f(c) { if (c) { let y = c; const g = () => y; return g() } return 'none' } return [f(5), f(0)] })()"#, r#"[5,"none"]"#),
    (r#"(function () { function f(n) { for (let i = 0; i < 10; i++) { const g = () => i; if (i === n) return g() } return -1 } return [f(3), f(20)] })()"#, r#"[3,-1]"#),
    (r#"(function () { function t() { throw new RangeError('r') } function f(c) { try { return c ? t() : 'ok' } catch (e) { return e.name } } return [f(0), f(1)] })()"#, r#"["ok","RangeError"]"#),
    (r#"(function () { class A { constructor(v) { this.a = 1; return v } } class B extends A { constructor(v) { super(v); return } } return [new A(2), new A([3]), new B(4)] })()"#, r#"[{"a":1},[3],{"a":1}]"#),
    (r#"(function () { class A {} class B extends A { constructor() { try { return 1 } catch (e) { return 'caught' } } } try { new B(); return 'no' } catch (e) { return e.name } })()"#, r#""TypeError""#),
    (r#"(function () { const o = { m(x) { return x + this.k }, k: 1, get g() { return this.k + 1 } }; return [o.m(1), o.g] })()"#, r#"[2,2]"#),
    (r#"(function () { function f(a) { return arguments.length + a } function g(a) { const h = () => a; a++; return h() } return [f(1, 2), g(1)] })()"#, r#"[3,2]"#),
    (r#"(function () { function f(x) { switch (x) { case 1: return 'one'; default: { let z = x; return () => z } } } return [f(1), f(2)()] })()"#, r#"["one",2]"#),
    (r#"(function () { function F() { return 7 } function G() {} return [Reflect.construct(F, [], G) instanceof G, Reflect.construct(F, []) instanceof F] })()"#, r#"[true,true]"#),
    (r#"(function () { var o = { x: 1 }; function f() { with (o) { return x } } return f() })()"#, r#"1"#),
    (r#"(function () { function f() { return (() => this)() } return [f.call(5) == 5, typeof f.call('s')] })()"#, r#"[true,"object"]"#),
    (r#"(function () { let n = 0; function f() { n++; return n > 3 ? n : f() } return f() })()"#, r#"4"#),
    (r#"(async function () { return 1 })() instanceof Promise"#, r#"true"#),
    (r#"(function () { function* g() { return 1 } return g().next() })()"#, r#"{"value":1,"done":true}"#),
    // `+` and `-` with an int32 literal, and `<`, `<=`, `>`, `>=` against one in a branch, carry
    // the literal in the instruction; a returned value goes straight to the caller's register (patch 42)
    (r#"(function () { const o = { valueOf() { return 3 } }; return ['a' + 1, '5' - 1, null + 1, undefined - 1, o - 1, o + 1, true + 1, [] + 1, [2] - 1] })()"#, r#"["a1",4,1,null,2,4,2,"1",1]"#),
    (r#"(function () { let log = []; const o = { valueOf() { log.push('v'); return 1 }, toString() { log.push('s'); return 'x' } }; const a = o + 1; const b = o - 1; return [a, b, log] })()"#, r#"[2,0,["v","v"]]"#),
    (r#"(function () { const o = { [Symbol.toPrimitive](h) { return h } }; return [o + 1, o - 1] })()"#, r#"["default1",null]"#),
    (r#"(function () { let m = 2147483647, n = -2147483648; return [m + 1, n - 1, m + 2147483647, n - 2147483647, 0.5 + 1, 1e300 - 1] })()"#, r#"[2147483648,-2147483649,4294967294,-4294967295,1.5,1e+300]"#),
    (r#"(function () { let z = -0; return [Object.is(z - 0, -0), Object.is(z + 0, 0), Object.is(z - 1 + 1, 0), 1 / (z - 0)] })()"#, r#"[true,true,true,null]"#),
    (r#"(function () { const r = []; for (const f of [() => 1n + 1, () => 1n - 1, () => Symbol() + 1, () => Symbol() - 1, () => ({ valueOf() { throw new RangeError() } }) - 1]) { try { f(); r.push('none') } catch (e) { r.push(e.name) } } return r })()"#, r#"["TypeError","TypeError","TypeError","TypeError","RangeError"]"#),
    (r#"(function () { let n = 5; const a = n - -1; const b = n + (2); const c = n - (-2147483648); const d = n + 2147483648; return [a, b, c, d] })()"#, r#"[6,7,2147483653,2147483653]"#),
    (r#"(function () { let s = 's', i = 0, o = { x: 1 }, a = [5]; s += 1; i -= 1; o.x += 1; a[0] -= 2; o.y += 1; return [s, i, o.x, a[0], o.y] })()"#, r#"["s1",-1,2,3,null]"#),
    (r#"(function () { const c = 1; try { c += 1 } catch (e) { return [e.name, c] } })()"#, r#"["TypeError",1]"#),
    (r#"(function () { function f(x) { if (x < 2) return 'lt'; return 'ge' } return [f(1), f(2), f('1'), f('10'), f('a'), f(null), f(undefined), f(NaN), f(-Infinity), f(1n), f(3n), f([1]), f(true)] })()"#, r#"["lt","ge","lt","ge","ge","lt","ge","ge","lt","lt","ge","lt","lt"]"#),
    (r#"(function () { function f(x) { return [x <= 0 ? 1 : 0, x > 0 ? 1 : 0, x >= 0 ? 1 : 0, x < 0 ? 1 : 0] } return [f(0), f(-0), f(null), f(undefined), f(NaN), f('0'), f(''), f(-1n)] })()"#, r#"[[1,0,1,0],[1,0,1,0],[1,0,1,0],[0,0,0,0],[0,0,0,0],[1,0,1,0],[1,0,1,0],[1,0,0,1]]"#),
    (r#"(function () { let log = []; const o = { valueOf() { log.push('v'); return 7 } }; if (o > 5) log.push('gt'); if (o <= 5) log.push('le'); while (o < 3) { log.push('loop'); break } return log })()"#, r#"["v","gt","v","v"]"#),
    (r#"(function () { const o = { valueOf() { throw new RangeError('v') } }; try { if (o < 1) return 'then'; return 'else' } catch (e) { return e.name } })()"#, r#""RangeError""#),
    (r#"(function () { let n = 0; for (let i = 10; i > 0; i -= 3) n += i; let k = 0; while (k <= 4) k += 1; return [n, k] })()"#, r#"[22,5]"#),
    (r#"(function () { function f(n) { return n < 2 ? n : f(n - 1) + f(n - 2) } function g(n) { if (n <= 1) return n; return g(n - 2) + g(n - 1) } return [f(15), g(15)] })()"#, r#"[610,610]"#),
    (r#"(function () { function id(x) { return x } function two() { return [id(1), id(2)] } let a = id(3) + id(4); id(5); const b = [1, 2].map(id); const c = Math.max(id(6), 1); return [two(), a, b, c, `${id(7)}${id(8)}`] })()"#, r#"[[1,2],7,[1,2],6,"78"]"#),
    (r#"(function () { function t() { throw new TypeError() } function f() { let x; try { x = t() } catch (e) { x = e.name } return x } function g() { try { return 1 } finally { } } return [f(), g() + g()] })()"#, r#"["TypeError",2]"#),
    (r#"(function () { function* gen() { const a = yield 1; return a + 1 } const it = gen(); it.next(); const o = { get v() { return 9 } }; return [it.next(4), o.v, new (function () { this.k = 1 })().k] })()"#, r#"[{"value":5,"done":true},9,1]"#),
    // a call's this, callee and arguments are pushed at once, in order (patch 18)
    (r#"(function () { let x = 1; function f(a, b) { return [a, b] } return f(x, x = 2) })()"#, r#"[1,2]"#),
    (r#"(function () { let f = () => 'old'; let g = () => 'new'; return [f(f = g), f()] })()"#, r#"["old","new"]"#),
    (r#"(function () { let o = { m() { return this.tag }, tag: 'o' }; let p = { m() { return 'p' }, tag: 'p' }; return [o.m(o = p), o.m()] })()"#, r#"["o","p"]"#),
    (r#"(function () { function f(...a) { return a } return f(1, f(2, f(3)), 4) })()"#, r#"[1,[2,[3]],4]"#),
    (r#"(function () { function f(...a) { return a } let x = 1; return f(x, ...[x = 2], x) })()"#, r#"[1,2,2]"#),
    (r#"(function () { function f(...a) { return a } let x = 1; return f(x, (x++, x), x) })()"#, r#"[1,2,2]"#),
    (r#"(function () { function f(...a) { return a.length + ':' + a.join('') } return f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10) })()"#, r#""10:12345678910""#),
    (r#"(function () { function f(...a) { return a } return [f(1, (() => { try { return f(null.x) } catch (e) { return e.name } })()), 'after'] })()"#, r#"[[1,"TypeError"],"after"]"#),
    (r#"new (function (a, b) { this.s = a + b })(1, 2).s"#, r#"3"#),
    (r#"(function () { 'use strict'; return [(function () { return this })(), typeof (function () { return this })()] })()"#, r#"[null,"undefined"]"#),
    (r#"(function () { const k = 5; return [k, Math.max(k, 2), String(k)] })()"#, r#"[5,5,"5"]"#),
    (r#"(function () { let x = 1, o = { m(a, b) { return [a, b] } }; return o?.m(x, x = 3) })()"#, r#"[1,3]"#),
    (r#"(function () { let x = 1; const mk = () => (a, b) => [a, b]; return mk()(x, x = 2) })()"#, r#"[1,2]"#),
    (r#"(function () { function f(a, b) { return [a, b] } function* g() { return f(yield 1, yield 2) } const it = g(); it.next(); it.next('a'); return it.next('b').value })()"#, r#"["a","b"]"#),
    (r#"(function () { let s = 'ab'; return [s.concat(s, s = 'c'), s] })()"#, r#"["ababc","c"]"#),
    (r#"(function () { let a = [3, 1, 2]; return [a.concat(a = [9]), a] })()"#, r#"[[3,1,2,9],[9]]"#),
    (r#"(function () { let n = 0; const o = { get m() { n++; return function (v) { return [this === o, v, n] } } }; return o.m(n) })()"#, r#"[true,1,1]"#),
    // Patch 59: a parameter takes its argument out of the argument's slot. An `arguments`
    // object, a rest parameter, a default derived constructor's `super(...args)`, a
    // generator's saved frame and a callback's reused frame each still see the arguments.
    (
        "(function (a, b) { return [arguments[0], arguments[1], a, b] })({ k: 1 }, 'two')",
        "[{\"k\":1},\"two\",{\"k\":1},\"two\"]",
    ),
    (
        "(function (a) { 'use strict'; a = 5; return [a, arguments[0]] })({ k: 1 })",
        "[5,{\"k\":1}]",
    ),
    (
        "(function (a, ...r) { return [a, r, arguments.length] })({ k: 1 }, 2, 3)",
        "[{\"k\":1},[2,3],3]",
    ),
    (
        "(function (a, b, ...r) { return [a, b, r] })({ k: 1 }, [2], 3, 4)",
        "[{\"k\":1},[2],[3,4]]",
    ),
    (
        "(() => { class A { constructor(x, y) { this.v = [x, y] } } class B extends A {} return new B(1, { k: 2 }).v })()",
        "[1,{\"k\":2}]",
    ),
    (
        "(() => { class A { constructor(x) { this.x = x } } class B extends A { constructor(x) { super(x); this.y = x } } const b = new B({ k: 3 }); return [b.x, b.y, b.x === b.y] })()",
        "[{\"k\":3},{\"k\":3},true]",
    ),
    (
        "(() => { function* g(a, b) { yield a; yield b; return arguments.length } const it = g({ k: 1 }, 'b'); return [it.next(), it.next(), it.next()] })()",
        "[{\"value\":{\"k\":1},\"done\":false},{\"value\":\"b\",\"done\":false},{\"value\":2,\"done\":true}]",
    ),
    (
        "(() => { function* g(a, b) { yield a; yield b } return [...g({ z: 1 }, [2])] })()",
        "[{\"z\":1},[2]]",
    ),
    (
        "(function (a, b = a) { return [a, b, a === b] })({ q: 1 })",
        "[{\"q\":1},{\"q\":1},true]",
    ),
    (
        "(() => { const o = {}; return (function (a, b) { return a === b && a === o })(o, o) })()",
        "true",
    ),
    (
        "(function (a, b) { return [a.k, b.k] }).apply(null, [{ k: 1 }, { k: 2 }])",
        "[1,2]",
    ),
    (
        "(function (a, b) { return [this.t, a.k, b] }).bind({ t: 0 }, { k: 1 })('b')",
        "[0,1,\"b\"]",
    ),
    (
        "[{ k: 1 }, { k: 2 }].map(function (x, i, arr) { return [x.k, i, arr.length, arguments.length, arguments[0] === x] })",
        "[[1,0,2,3,true],[2,1,2,3,true]]",
    ),
    (
        "[{ v: 2 }, { v: 1 }, { v: 3 }].sort(function (a, b) { return a.v - b.v }).map((o) => o.v)",
        "[1,2,3]",
    ),
    (
        "[3, 1, 2].sort(function (a, b) { return arguments[0] - arguments[1] })",
        "[1,2,3]",
    ),
    (
        "[{ v: 'b' }, { v: 'a' }].sort((a, b) => (a.v < b.v ? -1 : 1)).map((o) => o.v)",
        "[\"a\",\"b\"]",
    ),
    (
        "(() => { const seen = []; [{ k: 1 }, { k: 2 }].forEach(function (x) { seen.push(x.k, typeof arguments[0]) }); return seen })()",
        "[1,\"object\",2,\"object\"]",
    ),
    (
        "(() => { function f(a) { a.k++; return a } const o = { k: 1 }; return [f(o) === o, f(o).k, o.k] })()",
        "[true,3,3]",
    ),
    (
        "(() => { function f(a, b) { return b === undefined ? [a] : [a, b] } return [f({ k: 1 }), f(1, { k: 2 }), f()] })()",
        "[[{\"k\":1}],[1,{\"k\":2}],[null]]",
    ),
    (
        "(() => { function f(a) { function g() { return a } return g } return f({ k: 7 })().k })()",
        "7",
    ),
    (
        "(() => { function f(a) { return () => arguments[0] } return f({ k: 8 })().k })()",
        "8",
    ),
    (
        "(async function (a) { return a })({ k: 1 }) instanceof Promise",
        "true",
    ),
];

/// Patches 19-21, 24 and 40: `sort` reads and writes a dense array's elements directly, an
/// object literal adds a new key in one step (through the transition made before, patch
/// 40), a global name is read without re-resolving its binding, `@@replace` checks
/// `RegExp.prototype`'s builtins where it found them, `push` appends in place, and the
/// iterating builtins read and write dense elements in place (patch 40). Each case, with
/// V8's answer, sits where a fast path could see something the full path would not: holes
/// and inherited elements, a comparator that shrinks, freezes, redefines or grows the
/// array, duplicate and accessor keys, `__proto__`, index keys, non-extensible targets,
/// `with`, global getters and deleted globals.
#[allow(dead_code)]
const FAST_PATH_CASES: &[(&str, &str)] = &[
    // sort on dense arrays (patch 19)
    (r#"[3, 1, 2].sort()"#, r#"[1,2,3]"#),
    (r#"(() => { const a = [3, , 1]; a.sort(); return [a, a.length, 1 in a, 2 in a] })()"#, r#"[[1,3,null],3,true,false]"#),
    (r#"(() => { Array.prototype[1] = 'p'; try { const a = [3, , 1]; a.sort(); return [a.join(), a.hasOwnProperty(1), a.length] } finally { delete Array.prototype[1] } })()"#, r#"["1,3,p",true,3]"#),
    (r#"(() => { const a = [5, 4, 3, 2, 1]; a.sort((x, y) => { a.length = 2; return x - y }); return [a.length, a.join()] })()"#, r#"[5,"1,2,3,4,5"]"#),
    (r#"(() => { const a = [2, 1]; try { a.sort((x, y) => { Object.freeze(a); return x - y }) } catch (e) { return [e.name, a.join()] } return 'no error' })()"#, r#"["TypeError","2,1"]"#),
    (r#"(() => { const a = [2, 1, 3]; const seen = []; a.sort((x, y) => { Object.defineProperty(a, 0, { set(v) { seen.push(v) }, get() { return 'g' }, configurable: true }); return x - y }); return [a[0], a[1], a[2], seen] })()"#, r#"["g",2,3,[1]]"#),
    (r#"(() => { const a = [3, 1, 2]; a.sort((x, y) => { Object.preventExtensions(a); return x - y }); return [a.join(), Object.isExtensible(a)] })()"#, r#"["1,2,3",false]"#),
    (r#"[3, 1, 2.5, 'x', 1e21, -0].sort()"#, r#"[0,1,1e+21,2.5,3,"x"]"#),
    (r#"[3, 1, 2.5, { v: 0 }, 'x'].sort((a, b) => String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0)"#, r#"[1,2.5,3,{"v":0},"x"]"#),
    (r#"Array.prototype.sort.call({ length: 3, 0: 'c', 1: 'a', 2: 'b' })"#, r#"{"0":"a","1":"b","2":"c","length":3}"#),
    (r#"(() => { const a = [3, , 1]; return [a.toSorted(), a.length, 1 in a] })()"#, r#"[[1,3,null],3,false]"#),
    (r#"(() => { class A extends Array {} const a = A.from([3, 1, 2]).sort(); return [a, a instanceof A] })()"#, r#"[[1,2,3],true]"#),
    (r#"(() => { const a = [3, 1, 2]; let n = 0; a.sort((x, y) => { if (n++ === 0) a.push(9); return x - y }); return a })()"#, r#"[1,2,3,9]"#),
    (r#"(() => { const a = [3, 1, 2]; try { a.sort((x, y) => { throw new RangeError('stop') }) } catch (e) { return [e.name, a] } })()"#, r#"["RangeError",[3,1,2]]"#),
    (r#"(() => { const a = []; for (let i = 0; i < 300; i++) a.push({ id: i, k: (i * 7919) % 300 }); a.sort((x, y) => x.k - y.k); return [a[0].id, a[150].id, a[299].id, a.length] })()"#, r#"[0,150,121,300]"#),
    // object literal keys (patch 20)
    (r#"({ a: 1, b: 2, a: 3 })"#, r#"{"a":3,"b":2}"#),
    (r#"(() => { const o = { get a() { return 1 }, a: 2 }; const d = Object.getOwnPropertyDescriptor(o, 'a'); return [o.a, 'value' in d, d.writable, d.enumerable] })()"#, r#"[2,true,true,true]"#),
    (r#"(() => { const o = { a: 1, get a() { return 2 } }; return [o.a, typeof Object.getOwnPropertyDescriptor(o, 'a').get] })()"#, r#"[2,"function"]"#),
    (r#"(() => { const p = { inherited: 1 }; const o = { __proto__: p, own: 2 }; return [o.inherited, Object.keys(o), Object.getPrototypeOf(o) === p] })()"#, r#"[1,["own"],true]"#),
    (r#"(() => { const o = { ['__proto__']: 1, x: 2 }; return [Object.keys(o), Object.getPrototypeOf(o) === Object.prototype] })()"#, r#"[["__proto__","x"],true]"#),
    (r#"[Object.keys({ b: 'b', 1: 'a', '2': 'c', '01': 'd' }), { 1: 'a', b: 'b' }[1]]"#, r#"[["1","2","b","01"],"a"]"#),
    (r#"({ ...{ a: 1, b: 2 }, a: 3, c: 4 })"#, r#"{"a":3,"b":2,"c":4}"#),
    (r#"(() => { const a = { x: 1 }, b = { x: 2 }; b.y = 3; return [Object.keys(a), Object.keys(b), a.y, b.y] })()"#, r#"[["x"],["x","y"],null,3]"#),
    (r#"(() => { try { class C { static { Object.preventExtensions(this) } static x = 1 } return 'no error' } catch (e) { return e.name } })()"#, r#""TypeError""#),
    (r#"(() => { class C { static x = 1; static x = 2 } return C.x })()"#, r#"2"#),
    (r#"Object.keys({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10, k: 11, l: 12, m: 13, n: 14, o: 15, p: 16, q: 17, r: 18, s: 19, t: 20, u: 21, v: 22, w: 23, x: 24, y: 25, z: 26, aa: 27, ab: 28, ac: 29, ad: 30, ae: 31, af: 32, ag: 33 }).join()"#, r#""a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,aa,ab,ac,ad,ae,af,ag""#),
    (r#"[({ toString() { return 'mine' } }) + '', ({ valueOf: () => 41 }) + 1]"#, r#"["mine",42]"#),
    (r#"(() => { const xs = []; for (let i = 0; i < 3; i++) xs.push({ i, sq: i * i }); xs[1].extra = true; return xs })()"#, r#"[{"i":0,"sq":0},{"i":1,"sq":1,"extra":true},{"i":2,"sq":4}]"#),
    (r#"(() => { const o = { a: 1 }; delete o.a; const p = { a: 2 }; return [o, p, Object.keys(p)] })()"#, r#"[{},{"a":2},["a"]]"#),
    (r#"(() => { const o = Object.freeze({ a: 1 }); const p = { a: 1 }; return [Object.isFrozen(o), Object.isFrozen(p), (p.a = 5, p.a)] })()"#, r#"[true,false,5]"#),
    // global names (patch 21)
    (r#"(() => { globalThis.g21a = 1; const f = () => g21a; const r = [f()]; globalThis.g21a = 2; r.push(f()); delete globalThis.g21a; try { f() } catch (e) { r.push(e.name + ': ' + e.message) } return r })()"#, r#"[1,2,"ReferenceError: g21a is not defined"]"#),
    (r#"(() => { globalThis.gw21 = 'global'; const o = { gw21: 'with' }; let r; with (o) { r = (() => gw21)() } delete globalThis.gw21; return [r, (() => { try { return gw21 } catch (e) { return e.name } })()] })()"#, r#"["with","ReferenceError"]"#),
    (r#"(() => { let n = 0; Object.defineProperty(globalThis, 'gg21', { get() { return ++n }, configurable: true }); const f = () => gg21; const r = [f(), f()]; delete globalThis.gg21; return r })()"#, r#"[1,2]"#),
    (r#"(() => { Object.prototype.gp21 = 5; try { return (() => gp21)() } finally { delete Object.prototype.gp21 } })()"#, r#"5"#),
    (r#"[typeof notDeclared21, (() => { try { return notDeclared21 } catch (e) { return e.message } })()]"#, r#"["undefined","notDeclared21 is not defined"]"#),
    (r#"(() => { globalThis.fib21 = function (n) { return n < 2 ? n : fib21(n - 1) + fib21(n - 2) }; try { return fib21(15) } finally { delete globalThis.fib21 } })()"#, r#"610"#),
    // RegExp @@replace (patch 24 remembers where the prototype's builtins were found): a
    // getter swapped in place, `exec` assigned, a getter deleted and defined again at a new
    // position, each after a replace that warmed it, and the builtins put back.
    (r#"(() => { const P = RegExp.prototype, global = Object.getOwnPropertyDescriptor(P, 'global'), exec = P.exec; const log = []; const run = () => log.push('abcb'.replace(/b/g, 'x')); run(); Object.defineProperty(P, 'global', { configurable: true, get() { log.push('global'); return false } }); run(); Object.defineProperty(P, 'global', global); run(); P.exec = function (s) { log.push('exec'); return exec.call(this, s) }; run(); P.exec = exec; delete P.global; run(); Object.defineProperty(P, 'global', global); run(); run(); return log })()"#, r#"["axcx","global","axcb","axcx","exec","exec","exec","axcx","axcb","axcx","axcx"]"#),
    // Object literal keys added through a transition made before (patch 40): a duplicate
    // key, a data key after an accessor of that name and the reverse, a frozen prototype,
    // two key orders in turn, a deleted key, spread.
    (r#"(() => { const mk = () => ({ a: 1, b: 2 }); mk(); const o = { a: 1, a: 2, b: 3 }; return [Object.keys(o), o.a, mk()] })()"#, r#"[["a","b"],2,{"a":1,"b":2}]"#),
    (r#"(() => { const r = []; for (let i = 0; i < 3; i++) { const o = { get a() { return 'g' }, a: i }; r.push(Object.getOwnPropertyDescriptor(o, 'a')) } return r })()"#, r#"[{"value":0,"writable":true,"enumerable":true,"configurable":true},{"value":1,"writable":true,"enumerable":true,"configurable":true},{"value":2,"writable":true,"enumerable":true,"configurable":true}]"#),
    (r#"(() => { const r = []; for (let i = 0; i < 3; i++) { const o = { a: i, get a() { return 'g' + i } }; r.push(o.a, Object.keys(o).length) } return r })()"#, r#"["g0",1,"g1",1,"g2",1]"#),
    (r#"(() => { const P = Object.freeze({ x: 1 }); const r = []; for (let i = 0; i < 2; i++) { const o = { __proto__: P, x: i }; r.push(o.x, Object.getPrototypeOf(o) === P) } return r })()"#, r#"[0,true,1,true]"#),
    (r#"(() => { const r = []; for (let i = 0; i < 4; i++) { const o = i % 2 ? { b: i, a: i } : { a: i, b: i }; r.push(Object.keys(o).join('') + o.a + o.b) } return r })()"#, r#"["ab00","ba11","ab22","ba33"]"#),
    (r#"(() => { const r = []; for (let i = 0; i < 3; i++) { const o = { a: 1 }; if (i === 1) { delete o.a; } const p = Object.assign(o, { b: i }); r.push(JSON.stringify({ ...p, c: i })) } return r })()"#, r#"["{\"a\":1,\"b\":0,\"c\":0}","{\"b\":1,\"c\":1}","{\"a\":1,\"b\":2,\"c\":2}"]"#),
    // `map`, `filter`, `forEach`, `reduce`, `some` and `every` reading a dense array's
    // elements in place, and `map` and `filter` appending to the array they make (patch
    // 40): holes, a getter for a hole on `Array.prototype`, a source shrunk and grown by
    // the callback, species that are subclasses, frozen or with a read-only length, an
    // element made an accessor, typed arrays, array-likes, strings and a proxy.
    (r#"(() => { const r = [1, , 3].map((x) => x * 2); return [r, r.length, 1 in r] })()"#, r#"[[2,null,6],3,false]"#),
    (r#"(() => { const a = [1, 2, 3]; const r = a.map((x, i) => { if (i === 0) { a.pop(); a[5] = 9 } return x }); return [r, r.length, 2 in r, a.length] })()"#, r#"[[1,2,null],3,false,6]"#),
    (r#"(() => { class A extends Array {} const r = new A(1, 2, 3).map((x) => x); return [r instanceof A, r] })()"#, r#"[true,[1,2,3]]"#),
    (r#"(() => { Object.defineProperty(Array.prototype, 1, { get() { return 'proto' }, configurable: true }); try { return [[1, , 3].map((x) => x), [1, , 3].filter(() => true), [1, , 3].reduce((s, x) => s + x, '')] } finally { delete Array.prototype[1]; Array.prototype.length = 0 } })()"#, r#"[[1,"proto",3],[1,"proto",3],"1proto3"]"#),
    (r#"(() => { const r = [5, 6, 7, , 8].filter((x) => x > 5); return [r.length, r] })()"#, r#"[3,[6,7,8]]"#),
    (r#"(() => { class F extends Array { static get [Symbol.species]() { return function () { return Object.freeze([]) } } } try { F.from([1]).filter(() => true); return 'no error' } catch (e) { return e.name } })()"#, r#""TypeError""#),
    (r#"(() => { class G extends Array { static get [Symbol.species]() { return function () { const a = []; Object.defineProperty(a, 'length', { writable: false }); return a } } } try { G.from([1]).map((x) => x); return 'no error' } catch (e) { return e.name } })()"#, r#""TypeError""#),
    (r#"(() => { const a = [1, 2, 3, 4]; const seen = []; a.forEach((x, i) => { seen.push(x); if (i === 0) a.length = 2 }); return seen })()"#, r#"[1,2]"#),
    (r#"(() => { const a = [1, 2, 3]; Object.defineProperty(a, 1, { get() { return 10 } }); return [a.reduce((s, x) => s + x, 0), a.some((x) => x === 10), a.every((x) => x < 11)] })()"#, r#"[14,true,true]"#),
    (r#"[Array.prototype.some.call(new Uint8Array([0, 2]), (x) => x > 1), Array.prototype.map.call({ length: 2, 0: 'a', 1: 'b' }, (x) => x + x), Array.prototype.filter.call('abc', (c) => c !== 'b')]"#, r#"[true,["aa","bb"],["a","c"]]"#),
    (r#"(() => { const log = []; const p = new Proxy([1, 2], { get(t, k, r) { log.push(String(k)); return Reflect.get(t, k, r) }, has(t, k) { log.push('has ' + String(k)); return Reflect.has(t, k) } }); const r = Array.prototype.map.call(p, (x) => x); return [log, r] })()"#, r#"[["length","constructor","has 0","0","has 1","1"],[1,2]]"#),
    (r#"(() => { const a = [1, 'a', { b: 1 }, 2.5, null, -0, undefined, true]; const m = a.map((x) => x); return [m, Object.is(m[5], -0), m.length, a.filter((x) => x !== null).length] })()"#, r#"[[1,"a",{"b":1},2.5,null,0,null,true],true,8,7]"#),
    (r#"(() => { const a = [3, 4]; const r = a.map(function (x, i, arr) { return [this.k, x, i, arr === a] }, { k: 'T' }); return r })()"#, r#"[["T",3,0,true],["T",4,1,true]]"#),
    // Array.prototype.push appending in place (patch 40): setters and read-only elements on
    // either prototype, a proxy among them, frozen, non-extensible and read-only-length
    // arrays, holes, sparse storage, element types changing, subclasses and array-likes.
    (r#"(() => { const a = [1, 2]; const n = a.push(3, 'x', { y: 1 }); return [n, a] })()"#, r#"[5,[1,2,3,"x",{"y":1}]]"#),
    (r#"(() => { const seen = []; Object.defineProperty(Array.prototype, 2, { set(v) { seen.push(v) }, configurable: true }); try { const a = [0, 1]; const n = a.push('v'); return [n, a.length, a.hasOwnProperty(2), seen] } finally { delete Array.prototype[2]; Array.prototype.length = 0 } })()"#, r#"[3,3,false,["v"]]"#),
    (r#"(() => { const seen = []; Object.defineProperty(Object.prototype, 1, { set(v) { seen.push(v) }, configurable: true }); try { const a = [0]; a.push('v', 'w'); return [a.length, a.hasOwnProperty(1), a[2], seen] } finally { delete Object.prototype[1] } })()"#, r#"[3,false,"w",["v"]]"#),
    (r#"(() => { Object.defineProperty(Array.prototype, 0, { value: 'p', writable: false, configurable: true }); try { const a = []; try { a.push(1) } catch (e) { return [e.name, a.length, a.hasOwnProperty(0)] } return 'no error' } finally { delete Array.prototype[0]; Array.prototype.length = 0 } })()"#, r#"["TypeError",0,false]"#),
    (r#"(() => { const a = Object.freeze([1]); try { a.push(2) } catch (e) { return [e.name, a.length] } return 'no error' })()"#, r#"["TypeError",1]"#),
    (r#"(() => { const a = [1]; Object.preventExtensions(a); try { a.push(2) } catch (e) { return [e.name, a.length, 1 in a] } return 'no error' })()"#, r#"["TypeError",1,false]"#),
    (r#"(() => { const a = [1]; Object.defineProperty(a, 'length', { writable: false }); try { a.push(2) } catch (e) { return [e.name, a.length, 1 in a] } return 'no error' })()"#, r#"["TypeError",1,false]"#),
    (r#"(() => { let log = ''; const saved = Object.getPrototypeOf(Array.prototype); Object.setPrototypeOf(Array.prototype, new Proxy({}, { set(t, k, v, r) { log += k; return Reflect.set(t, k, v, r) } })); try { const a = [7]; a.push(8); return [a, log] } finally { Object.setPrototypeOf(Array.prototype, saved) } })()"#, r#"[[7,8],"1"]"#),
    (r#"(() => { const a = []; a[5] = 1; a.push(2); return [a.length, a[6], 5 in a, 0 in a] })()"#, r#"[7,2,true,false]"#),
    (r#"(() => { const a = [1, 2]; a.push(1.5); a.push('s'); a.push(3); a.push(-0); return [a, Object.is(a[5], -0)] })()"#, r#"[[1,2,1.5,"s",3,0],true]"#),
    (r#"(() => { class A extends Array {} const a = new A(); a.push(1, 2); return [a.length, a instanceof A, Array.isArray(a)] })()"#, r#"[2,true,true]"#),
    (r#"(() => { const a = [1]; a.foo = 1; a.push(2); return [a.length, a[1]] })()"#, r#"[2,2]"#),
    (r#"(() => { const a = [1, 2]; return [a.push(), a.length, [].push()] })()"#, r#"[2,2,0]"#),
    (r#"(() => { Array.prototype.push.call(Array.prototype, 'z'); try { const a = []; a.push('q'); return [a.length, a[0], [].length, Array.prototype.length] } finally { Array.prototype.length = 0; delete Array.prototype[0] } })()"#, r#"[1,"q",0,1]"#),
    (r#"(() => { const a = [1]; a.length = 3; a.push(4); return [a.length, 1 in a, a[3]] })()"#, r#"[4,false,4]"#),
    (r#"(() => { const o = { length: 1, 0: 'a' }; const n = Array.prototype.push.call(o, 'b'); return [n, o] })()"#, r#"[2,{"0":"a","1":"b","length":2}]"#),
];

/// `this` in sloppy functions called with a nullish receiver (patch 27 reads the global
/// object only when `This` asks for it), with V8's answers. Strict functions, functions with
/// a function scope (an arrow that reads `this`, a closure), generators, `super` and callbacks
/// take each path.
const CALL_CASES: &[(&str, &str)] = &[
    (r#"(() => { function f() { return this === globalThis } return [f(), f.call(undefined), f.call(null), f.apply(null, []), Reflect.apply(f, undefined, [])] })()"#, r#"[true,true,true,true,true]"#),
    (r#"(() => { function f() { return typeof this } function g() { 'use strict'; return typeof this } return [f.call(5), g.call(5), g(), f.call('s'), f.call(1n)] })()"#, r#"["object","number","undefined","object","object"]"#),
    (r#"(() => { function f() { return (() => this)() === globalThis } return [f(), f.call(7) instanceof Number] })()"#, r#"[true,false]"#),
    (r#"(() => { function f() { let x = 1; function g() { return x++ } return [this === globalThis, g(), g()] } return f() })()"#, r#"[true,1,2]"#),
    (r#"(() => { function* g() { yield this === globalThis; yield typeof this } const it = g(); return [it.next().value, it.next().value] })()"#, r#"[true,"object"]"#),
    (r#"[[1, 2].map(function () { return this === globalThis }), [1].map(function () { return this }, 7)[0] instanceof Number]"#, r#"[[true,true],true]"#),
    (r#"(function () { function f() { return this === globalThis } const self = this; return [f(), (() => this === self)(), this === globalThis] }).call({})"#, r#"[true,true,false]"#),
    (r#"(() => { function f() { const a = this; const b = this; return a === b && a === globalThis } return f() })()"#, r#"true"#),
    (r#"(() => { function f() { return this.marker } globalThis.marker = 'm'; try { return f() } finally { delete globalThis.marker } })()"#, r#""m""#),
    (r#"(() => { function f() { return [this === globalThis, arguments.length, typeof arguments[1]] } return f(1, 'x') })()"#, r#"[true,2,"string"]"#),
    (r#"(() => { const o = { m() { return this === globalThis } }; const m = o.m; return [m(), o.m()] })()"#, r#"[true,false]"#),
    (r#"(() => { function f(n) { return n === 0 ? this : f(n - 1) } return f(50) === globalThis })()"#, r#"true"#),
    (r#"[2, 3, 1].sort(function (a, b) { return this === globalThis ? a - b : 0 })"#, r#"[1,2,3]"#),
    (r#"(() => { function f() { return [new.target === undefined, this === globalThis] } return f() })()"#, r#"[true,true]"#),
    (r#"(() => { const o = { __proto__: { get who() { return this === globalThis } }, m() { return super.who } }; const m = o.m; return [m(), o.m()] })()"#, r#"[true,false]"#),
    (r#"(() => { function f() { return this } const g = f.bind(undefined), h = f.bind('b'); return [g() === globalThis, typeof h(), new f() instanceof f] })()"#, r#"[true,"object",true]"#),
    (r#"(() => { function f() { return this === globalThis } try { f.call(undefined, f()) ; throw new Error('x') } catch (e) { return [f(), e.message] } })()"#, r#"[true,"x"]"#),
];

/// Property reads through the inline cache (patch 29 finds a hit by comparing pointers and
/// reads a cached data property without a new reference), with V8's answers: own and
/// prototype slots, shapes past the cache's four entries, prototypes and properties that
/// change after a read warmed the site, getters and setters, primitives, proxies, deeper
/// chains, writes, and shapes that die (and are collected) between reads at one site.
#[allow(dead_code)]
const INLINE_CACHE_CASES: &[(&str, &str)] = &[
    (r#"(() => { const read = (o) => o.x; const r = []; for (const o of [{ x: 1 }, { x: 2, y: 0 }, { y: 0, x: 3 }, { a: 0, b: 0, x: 4 }, { x: 5 }, { y: 0, x: 6 }]) r.push(read(o)); return r })()"#, r#"[1,2,3,4,5,6]"#),
    (r#"(() => { const read = (o) => o.x; const shapes = []; for (let i = 0; i < 8; i++) { const o = {}; for (let j = 0; j < i; j++) o['p' + j] = j; o.x = i; shapes.push(o) } const r = []; for (let k = 0; k < 3; k++) for (const o of shapes) r.push(read(o)); return r.join() })()"#, r#""0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7""#),
    (r#"(() => { const P = { v: 'p' }; const a = Object.create(P); const read = (o) => o.v; const r = [read(a), read(a)]; P.v = 'q'; r.push(read(a)); a.v = 'own'; r.push(read(a)); delete a.v; r.push(read(a)); delete P.v; r.push(read(a)); return r })()"#, r#"["p","p","q","own","q",null]"#),
    (r#"(() => { const P1 = { v: 1 }, P2 = { w: 0, v: 2 }; const o = Object.create(P1); const read = (x) => x.v; const r = [read(o), read(o)]; Object.setPrototypeOf(o, P2); r.push(read(o), read(o)); Object.setPrototypeOf(o, null); r.push(read(o)); return r })()"#, r#"[1,1,2,2,null]"#),
    (r#"(() => { class A { m() { return 'A' } } class B extends A { m() { return 'B' } } class C extends A {} const call = (o) => o.m(); const r = [call(new A), call(new B), call(new C), call(new A)]; C.prototype.m = () => 'C'; r.push(call(new C)); return r })()"#, r#"["A","B","A","A","C"]"#),
    (r#"(() => { const P = { get g() { return this.k }, set s(v) {} }; const a = Object.create(P); a.k = 1; const b = Object.create(P); b.k = 2; const g = (o) => o.g, s = (o) => o.s; const r = [g(a), g(b), g(a), s(a), s(b)]; Object.defineProperty(P, 'g', { value: 'data', configurable: true }); r.push(g(a), g(b)); return r })()"#, r#"[1,2,1,null,null,"data","data"]"#),
    (r#"(() => { let n = 0; const o = { get g() { return ++n } }; const read = (x) => x.g; const r = [read(o), read(o), read(o)]; Object.defineProperty(o, 'g', { value: 'now data' }); r.push(read(o), read(o)); return r })()"#, r#"[1,2,3,"now data","now data"]"#),
    (r#"(() => { const read = (x) => x.foo; String.prototype.foo = 'sp'; Number.prototype.foo = 'np'; try { const r = [read('a'), read(1), read('b'), read(true), read({ foo: 'o' })]; try { read(null) } catch (e) { r.push(e instanceof TypeError) } try { read(undefined) } catch (e) { r.push(e instanceof TypeError) } return r } finally { delete String.prototype.foo; delete Number.prototype.foo } })()"#, r#"["sp","np","sp",null,"o",true,true]"#),
    (r#"(() => { const len = (x) => x.length; return [len('abc'), len([1, 2]), len({ length: 'own' }), len(function (a, b) {}), len('de'), len([])] })()"#, r#"[3,2,"own",2,2,0]"#),
    (r#"(() => { const read = (o) => o.x; let sum = 0, want = 0; for (let i = 0; i < 400; i++) { const o = {}; o['a' + i] = 0; if (i % 2) o['b' + i] = 0; if (i % 3) o['c' + i] = 0; o.x = i; sum += read(o); want += i; const junk = []; for (let j = 0; j < 200; j++) junk.push({ j, k: 'k' + j }) } return [sum === want, sum] })()"#, r#"[true,79800]"#),
    (r#"(() => { const o = { x: 1, y: 2 }; const read = (v) => v.y; const r = [read(o)]; delete o.x; r.push(read(o)); o.x = 3; r.push(read(o)); Object.freeze(o); r.push(read(o)); return r })()"#, r#"[2,2,2,2]"#),
    (r#"(() => { const read = (o) => o.v; const p = new Proxy({ v: 'target' }, { get: (t, k) => k === 'v' ? 'trap' : t[k] }); const plain = { v: 'plain' }; return [read(plain), read(p), read(plain), read(p)] })()"#, r#"["plain","trap","plain","trap"]"#),
    (r#"(() => { const read = (o) => o.v; const base = { v: 'base' }; const mid = Object.create(base); const leaf = Object.create(mid); const r = [read(leaf), read(leaf)]; mid.v = 'mid'; r.push(read(leaf)); base.v = 'base2'; r.push(read(leaf)); delete mid.v; r.push(read(leaf)); return r })()"#, r#"["base","base","mid","mid","base2"]"#),
    (r#"(() => { const write = (o, v) => { o.x = v }; const read = (o) => o.x; const P = { x: 'p' }; const a = Object.create(P); write(a, 1); const b = { x: 0 }; write(b, 2); write(b, 3); return [read(a), read(b), P.x, Object.keys(a)] })()"#, r#"[1,3,"p",["x"]]"#),
    // Entries that must go stale (patch 30): a prototype whose layout changed (these
    // panicked in Boa 0.22 with an index out of bounds), a unique-shaped receiver that took
    // an own property, and unique-shaped objects frozen or made read-only after a cached write.
    (r#"(() => { const P = { u: 1, v: 2 }; const a = Object.create(P); const read = (o) => o.v; const r = [read(a), read(a)]; delete P.u; r.push(read(a)); return r })()"#, r#"[2,2,2]"#),
    (r#"(() => { const P = { v: 'p' }; const a = Object.create(P); const read = (o) => o.v; const r = [read(a), read(a)]; delete P.v; r.push(read(a)); P.w = 'w'; r.push(read(a)); return r })()"#, r#"["p","p",null,null]"#),
    (r#"(() => { const P = { v: 'p' }; const o = Object.create(P); for (let i = 0; i < 1100; i++) o['k' + i] = i; const read = (x) => x.v; const r = [read(o), read(o)]; o.v = 'own'; r.push(read(o)); return r })()"#, r#"["p","p","own"]"#),
    (r#"(() => { const read = (o) => o.toString; const r = [read(globalThis) === Object.prototype.toString, read(globalThis) === Object.prototype.toString]; globalThis.toString = 'own'; r.push(read(globalThis)); delete globalThis.toString; r.push(read(globalThis) === Object.prototype.toString); return r })()"#, r#"[true,true,"own",true]"#),
    (r#"(() => { const o = {}; for (let i = 0; i < 1100; i++) o['k' + i] = i; const w = (x, v) => { x.k5 = v }; w(o, 'a'); w(o, 'b'); Object.freeze(o); w(o, 'c'); const s = (x, v) => { 'use strict'; x.k6 = v }; let threw = false; try { s(o, 1) } catch (e) { threw = e instanceof TypeError } return [o.k5, o.k6, threw, Object.isFrozen(o)] })()"#, r#"["b",6,true,true]"#),
    (r#"(() => { const o = {}; for (let i = 0; i < 1100; i++) o['k' + i] = i; const w = (x, v) => { x.k5 = v }; w(o, 'a'); w(o, 'b'); Object.defineProperty(o, 'k5', { writable: false }); w(o, 'c'); return o.k5 })()"#, r#""b""#),
    (r#"(() => { globalThis.gx = 1; const w = (v) => { globalThis.gx = v }; w(2); w(3); Object.defineProperty(globalThis, 'gx', { writable: false }); w(4); const r = globalThis.gx; delete globalThis.gx; return r })()"#, r#"3"#),
    (r#"(() => { const P = { get v() { return 'getter' } }; const a = Object.create(P); const read = (o) => o.v; const r = [read(a), read(a)]; Object.defineProperty(P, 'v', { value: 'data' }); r.push(read(a)); return r })()"#, r#"["getter","getter","data"]"#),
    (r#"(() => { const P = { v: 'data', w: 'w' }; const a = Object.create(P); const read = (o) => o.w; const r = [read(a), read(a)]; Object.defineProperty(P, 'v', { get() { return 'g' } }); r.push(read(a)); return r })()"#, r#"["w","w","w"]"#),
    (r#"(() => { const P = {}; for (let i = 0; i < 1100; i++) P['k' + i] = i; P.v = 'p'; const a = Object.create(P); const read = (o) => o.v; const r = [read(a), read(a)]; delete P.k0; r.push(read(a)); P.v = 'q'; r.push(read(a)); return r })()"#, r#"["p","p","p","q"]"#),
    (r#"(() => { const P1 = { v: 1 }, P2 = { v: 2 }; const o = {}; for (let i = 0; i < 1100; i++) o['k' + i] = i; Object.setPrototypeOf(o, P1); const read = (x) => x.v; const r = [read(o), read(o)]; Object.setPrototypeOf(o, P2); r.push(read(o)); return r })()"#, r#"[1,1,2]"#),
    (r#"(() => { const P = { v: 'p' }; const o = Object.create(P); for (let i = 0; i < 1100; i++) o['k' + i] = i; const has = (x) => 'v' in x; const r = [has(o), has(o)]; Object.setPrototypeOf(P, null); delete P.v; r.push(has(o)); return r })()"#, r#"[true,true,false]"#),
    (r#"(() => { class A { m() { return 1 } } const a = new A; const c = (x) => x.m(); const r = [c(a), c(a)]; A.prototype.m = function () { return 2 }; r.push(c(a)); delete A.prototype.m; try { c(a) } catch (e) { r.push(e.name) } return r })()"#, r#"[1,1,2,"TypeError"]"#),
    // Writes and global names through the same caches: adds, frozen and non-extensible
    // objects, setters on a prototype that is then changed, and deleted globals.
    (r#"(() => { const w = (o, v) => { o.x = v }; const a = {}; w(a, 1); const b = {}; Object.preventExtensions(b); w(b, 2); const c = {}; w(c, 3); return [a.x, b.x, c.x, Object.keys(b).length] })()"#, r#"[1,null,3,0]"#),
    (r#"(() => { const w = (o, v) => { o.x = v }; const a = { x: 0 }; w(a, 1); w(a, 2); Object.freeze(a); w(a, 3); const s = (o) => { 'use strict'; o.x = 4 }; let e = ''; try { s(a) } catch (err) { e = err.name } return [a.x, e] })()"#, r#"[2,"TypeError"]"#),
    (r#"(() => { const w = (o, v) => { o.x = v }; const P = { set x(v) { this.log = v } }; const a = Object.create(P); w(a, 1); w(a, 2); delete P.x; w(a, 3); return [a.log, a.x, Object.keys(a)] })()"#, r#"[2,3,["log","x"]]"#),
    (r#"(() => { const w = (o, v) => { o.x = v }; const P = { u: 0, set x(v) { this.log = v } }; const a = Object.create(P); w(a, 1); w(a, 2); Object.defineProperty(P, 'x', { value: 'ro', writable: false }); w(a, 3); delete P.u; w(a, 4); return [a.log, a.x, Object.keys(a)] })()"#, r#"[2,"ro",["log"]]"#),
    (r#"(() => { globalThis.gy = 1; function set(v) { gy = v } set(2); set(3); Object.defineProperty(globalThis, 'gy', { writable: false }); set(4); const r = gy; delete globalThis.gy; return r })()"#, r#"3"#),
    (r#"(() => { globalThis.gz = 1; function get() { return gz } const r = [get(), get()]; delete globalThis.gz; try { get() } catch (e) { r.push(e.name) } globalThis.gz = 'again'; r.push(get()); return r })()"#, r#"[1,1,"ReferenceError","again"]"#),
    (r#"(() => { const P = { m() { return 'P' } }; const o = Object.create(P); const c = (x) => x.m(); const r = [c(o), c(o)]; Object.setPrototypeOf(P, { m() { return 'PP' } }); delete P.m; r.push(c(o)); return r })()"#, r#"["P","P","PP"]"#),
    (r#"(() => { const read = (o) => o.v; const P = { v: 1 }; const a = Object.create(P), b = Object.create(P); const r = [read(a), read(b)]; Object.defineProperty(P, 'v', { get() { return 'g' + (this === a) } }); r.push(read(a), read(b)); Object.defineProperty(P, 'v', { value: 9 }); r.push(read(a)); return r })()"#, r#"[1,1,"gtrue","gfalse",9]"#),
];

/// The opcodes that patch 32 dispatches inline, on their slow paths too (conversions with side
/// effects, BigInts, throws caught in the same frame, getters and setters), with V8's answers.
/// Patch 33 splits each binary operator into an inlined numeric path and a called slow path:
/// the third case from the end crosses between them (int32 overflow, a destination that is
/// an operand, `**`, `instanceof` with `Symbol.hasInstance`). Patch 34 reads cached globals
/// without a reference to the global object and moves callback arguments onto the stack: the
/// last two cases are a global getter and every builtin that calls back that way.
#[allow(dead_code)]
const DISPATCH_CASES: &[(&str, &str)] = &[
    (r#"(() => { const log = []; const v = (n) => ({ valueOf() { log.push(n); return n } }); return [v(1) + v(2), v(5) - v(3), v(2) * v(4), v(9) / v(3), v(7) % v(4), v(6) | v(1), v(6) & v(3), v(6) ^ v(3), v(1) << v(4), v(-16) >> v(2), v(-16) >>> v(28), log.join()] })()"#, r#"[3,2,8,3,3,7,2,5,16,-4,15,"1,2,5,3,2,4,9,3,7,4,6,1,6,3,6,3,1,4,-16,2,-16,28"]"#),
    (r#"[1 + '2', '3' - 1, 2n * 3n, 7n / 2n, -7n % 2n, 5n | 2n, 1n << 3n, 'a' < 'b', 2n < 3, null == undefined, NaN != NaN, 0 === -0, typeof 1n, typeof null, typeof {}, typeof (() => 0), !'', !0n].map(String)"#, r#"["12","2","6","3","-1","7","8","true","true","true","true","true","bigint","object","object","function","true","true"]"#),
    (r#"(() => { let a = '5', b = 5n, c = { valueOf: () => 1 }, d, e = 2 ** 53; a++; b--; c++; d++; e++; return [a, String(b), c, d, e] })()"#, r#"[6,"4",2,null,9007199254740992]"#),
    (r#"(() => { const r = []; const bad = { valueOf() { throw new RangeError('v') } }; for (const f of [() => bad + 1, () => bad - 1, () => bad * 1, () => bad / 1, () => bad % 1, () => bad < 1, () => 1 >= bad, () => bad | 0, () => bad ^ 0, () => bad >>> 0, () => { let x = bad; x++ }, () => 1n + 1, () => 1n < Symbol(), () => null.x, () => undefined[0], () => { 'use strict'; undefinedName = 1 }, () => { 'use strict'; const o = Object.freeze({ a: 1 }); o.a = 2 }, () => { 'use strict'; const o = Object.freeze([]); o[0] = 1 }, () => ({}).m(), () => { const f = () => { throw new EvalError('inner') }; return f() }]) { try { f(); r.push('no throw') } catch (e) { r.push(e.constructor.name) } finally { r.push('f') } } return r.join() })()"#, r#""RangeError,f,RangeError,f,RangeError,f,RangeError,f,RangeError,f,RangeError,f,RangeError,f,RangeError,f,RangeError,f,RangeError,f,RangeError,f,TypeError,f,TypeError,f,TypeError,f,TypeError,f,ReferenceError,f,TypeError,f,TypeError,f,TypeError,f,EvalError,f""#),
    (r#"(() => { const log = []; const o = { get a() { log.push('get a'); return 1 }, set a(v) { log.push('set a ' + v) } }; const k = 'a'; o.a; o[k]; o.a = 2; o[k] = 3; const arr = [1, , 3]; arr[5] = 6; const lit = { a: 1, a: 2, ['b']: 3, __proto__: { c: 4 } }; return [log, arr.length, 1 in arr, [...'ab', ...[1]], lit.a, lit.b, lit.c, Object.keys(lit), 'abc'.length, [1, 2, 3].length, { length: 7 }.length] })()"#, r#"[["get a","get a","set a 2","set a 3"],6,false,["a","b",1],2,3,4,["a","b"],3,3,7]"#),
    (r#"(() => { const r = []; for (const [a, b] of [[1, 2], [2, 1], [1, 1], [NaN, 1], [1, NaN], ['10', 9], ['a', 'b'], ['b', 'a'], [undefined, 0], [null, 0], [1n, 2], [2, 1n], [{}, '[object Object]'], [-0, 0]]) { let s = ''; if (a < b) s += 'lt'; if (a <= b) s += 'le'; if (a > b) s += 'gt'; if (a >= b) s += 'ge'; if (a == b) s += 'eq'; if (a != b) s += 'ne'; if (a === b) s += 'seq'; if (a !== b) s += 'sne'; while (a < b) { s += '!'; break } r.push(s) } return r })()"#, r#"["ltlenesne!","gtgenesne","legeeqseq","nesne","nesne","gtgenesne","ltlenesne!","gtgenesne","nesne","legenesne","ltlenesne!","gtgenesne","legeeqsne","legeeqseq"]"#),
    (r#"(function () { 'use strict'; function f() { return this } const o = { m() { return this === o } }; return [f() === undefined, o.m(), (function () { return typeof this }).call(5), (() => typeof this)(), (function () { return this }).call('s')] })()"#, r#"[true,true,"number","undefined","s"]"#),
    (r#"(() => { const f = () => { try { return 'try' } finally { return 'finally' } }; const g = () => { try { return 'try' } finally { } }; const h = () => { for (const x of [1, 2]) { try { if (x === 1) continue; return x } finally { } } }; const fib = (n) => n < 2 ? n : fib(n - 1) + fib(n - 2); const deep = (n) => n === 0 ? 'bottom' : deep(n - 1); return [f(), g(), h(), fib(20), deep(200)] })()"#, r#"["finally","try",2,6765,"bottom"]"#),
    (r#"(() => { const a = [-4 % 2, 0 * -1, -0 + 0, 1 / -Infinity, -1 % 1]; const r = a.map((x) => Object.is(x, -0)); let i = 0, n = 0; do { n += i } while (++i < 10); let j = 10; while (j-- > 0) n += j; for (let k = 0; k <= 3; k++) n *= 2; return [r, n, 7 % -3, -7 % 3, 2 ** 31 | 0, 2 ** 32 >>> 0, -1 >>> 0, 1 << 31, 5.5 | 0] })()"#, r#"[[true,true,false,true,true],1440,1,-1,-2147483648,0,4294967295,-2147483648,5]"#),
    (r#"(() => { let x; const u = x ?? 'dflt'; const n = null; const o = { p: { q: 1 } }; const r = [u, n?.a, o?.p?.q, o.z?.q, x === undefined, typeof undeclaredName, [1, 2, 3].indexOf(2)]; let s = ''; for (let i = 0; i < 5; i++) { if (i === 1) continue; if (i === 4) break; s += i } r.push(s); switch (3) { case 1: r.push('one'); break; case 3: r.push('three'); default: r.push('fell') } return r })()"#, r#"["dflt",null,1,null,true,"undefined",1,"023","three","fell"]"#),
    (r#"(() => { const log = []; const v = (n) => ({ valueOf() { log.push(n); return n } }); class A { static [Symbol.hasInstance](x) { log.push('has'); return x === 1 } } let a = v(7), b = 2; a = a - b; b = b ** v(3); const big = 2n ** 64n; return [a, b, v(2) ** v(3), 2 ** -1, (-8) ** (1 / 3), 1 instanceof A, [] instanceof Array, v(1) == 1, v(2) != v(2), '1' == 1, 0.1 + 0.2, 2 ** 31 + 2 ** 31, -(2 ** 31) - 1, 46341 * 46341, String(big), log.join()] })()"#, r#"[5,8,8,0.5,null,true,true,true,true,true,0.30000000000000004,4294967296,-2147483649,2147488281,"18446744073709551616","7,3,2,3,has,1"]"#),
    (r#"(() => { Object.defineProperty(globalThis, 'gg', { get() { return this === globalThis ? 'global this' : 'other' }, configurable: true }); function f() { return gg } const r = [f(), f()]; delete globalThis.gg; globalThis.gg = 'data'; r.push(f()); delete globalThis.gg; return r })()"#, r#"["global this","global this","data"]"#),
    (r#"(() => { const a = [3, 1, 2]; const log = []; a.forEach(function (v, i, o) { log.push([v, i, o === a, this.t]) }, { t: 'T' }); const m = a.map((v, i, o) => v * 10 + i + (o === a ? 0.5 : 0)); const f = a.filter((v, i) => v !== i + 1); const s = a.some((v, i, o) => o[i] === 2); const e = a.every((v) => v > 0); const r = a.reduce((acc, v, i, o) => acc + v * i + o.length, 'x'); const rr = a.reduceRight((acc, v, i) => acc.concat([v, i]), []); const sorted = [5, 1, 4, undefined, 3, , 2].sort((x, y) => { if (typeof x !== 'number' || typeof y !== 'number') throw 1; return y - x }); const rep = 'a-b_c'.replace(/[-_]/g, (m, pos, str) => '[' + m + pos + str.length + ']'); const named = '2026-12'.replace(/(?<y>\d+)-(?<m>\d+)/, (...args) => JSON.stringify(args)); let thrown; try { [1, 2].map(() => { throw new TypeError('cb') }) } catch (err) { thrown = err.message } return [log, m, f, s, e, r, rr, sorted, sorted.length, rep, named, thrown] })()"#, r#"[[[3,0,true,"T"],[1,1,true,"T"],[2,2,true,"T"]],[30.5,11.5,22.5],[3,1,2],true,true,"x031343",[2,2,1,1,3,0],[5,4,3,2,1,null,null],7,"a[-15]b[_35]c","[\"2026-12\",\"2026\",\"12\",0,\"2026-12\",{\"y\":\"2026\",\"m\":\"12\"}]","cb"]"#),
    // Patch 44: `&&`, `||` and `??` (and their assignments) dispatch inline in wasm.
    (r#"(() => { const log = []; const t = (v) => { log.push(String(v)); return v }; const vals = [0, -0, NaN, '', 0n, null, undefined, false, true, 1, -1, 'a', 1n, {}, [], Symbol.iterator]; const r = vals.map((v) => [v && 'and', v || 'or', v ?? 'nn'].map((x) => typeof x === 'symbol' ? 'sym' : Object.is(x, -0) ? '-0' : typeof x === 'bigint' ? x + 'n' : typeof x === 'object' && x !== null ? 'obj' : x)); const s = [t(0) && t('no'), t(1) || t('no'), t(null) ?? t('yes'), t('') ?? t('no'), t(2) && t(3) || t(4), (t(0) || t(null)) ?? t(5)]; let a = 0, b = 'b', c = null, d = 1; a ||= t('A'); b &&= t('B'); c ??= t('C'); d ??= t('no'); const o = { get g() { log.push('get'); return 0 } }; const g = o.g || o.g && o.g; return [r, s, a, b, c, d, g, log] })()"#, r#"[[[0,"or",0],["-0","or","-0"],[null,"or",null],["","or",""],["0n","or","0n"],[null,"or","nn"],[null,"or","nn"],[false,"or",false],["and",true,true],["and",1,1],["and",-1,-1],["and","a","a"],["and","1n","1n"],["and","obj","obj"],["and","obj","obj"],["and","sym","sym"]],[0,1,"yes","",3,5],"A","B","C",1,0,["0","1","null","yes","","2","3","0","null","5","A","B","C","get","get"]]"#),
    // Patch 45: a call runs in slices of the instruction budget (20,000 instructions), the
    // loop entered again for each; slices end inside callbacks, a getter, a generator, a
    // sort comparator and a try/catch/finally, and each run carries on where it stopped.
    (r#"(() => { const spin = (n) => { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s }; const a = Array.from({ length: 40 }, (_, i) => spin(3000 + i)); const o = { get g() { return spin(5000) } }; function* gen() { for (let i = 0; i < 5; i++) yield spin(4000 + i) } const sorted = [5, 3, 9, 1, 7].sort((x, y) => (spin(2000), x - y)); let fin = 0; try { for (;;) { fin += spin(3000); if (fin > 0) throw fin } } catch (e) { fin = e } finally { fin += spin(100) } const total = a.reduce((t, v) => t + v, 0); return [total, o.g, [...gen()], sorted, fin, spin(60000)] })()"#, r#"[21025395,482239,[985835,13832,41839,69853,97874],[1,3,5,7,9],524057,752203]"#),
];

/// Promise jobs, where patch 25 builds promises of the realm's own `%Promise%` directly and
/// patch 26 resumes an `await` without closures: job order, prototypes, thenables, species,
/// subclasses, a read `constructor`, an assigned `then` or `Promise.resolve`, the resolving
/// functions, and `await` in every kind of async code. Each case pushes to `log`; its
/// answer is `JSON.stringify(log)` once every job has run, with V8's answer beside it.
#[allow(dead_code)]
const PROMISE_CASES: &[(&str, &str)] = &[
    (r#"(async function () { await 0; log.push(this === globalThis) })(); (async function () { 'use strict'; await 0; log.push(this) })(); (async () => log.push(typeof this))()"#, r#"["object",true,null]"#),
    (r#"Promise.resolve(1).then(v => log.push('a' + v)); Promise.resolve().then(() => log.push('b')); (async () => { log.push('c'); await 0; log.push('d'); await null; log.push('e') })(); Promise.resolve().then(() => log.push('f')).then(() => log.push('g')); log.push('sync')"#, r#"["c","sync","a1","b","d","f","e","g"]"#),
    (r#"const p = Promise.resolve(5); log.push(Object.getPrototypeOf(p) === Promise.prototype, p.constructor === Promise, Object.getOwnPropertyNames(p).length); p.then(v => log.push(v))"#, r#"[true,true,0,5]"#),
    (r#"const q = Promise.resolve(1).then(x => x + 1); log.push(Object.getPrototypeOf(q) === Promise.prototype); q.then(v => log.push(v))"#, r#"[true,2]"#),
    (r#"let n = 0; class P extends Promise { constructor(ex) { n++; super(ex) } } const p = P.resolve(3); log.push(p instanceof P, n); p.then(v => log.push(v, n)).then(() => log.push('after', n))"#, r#"[true,1,3,3,"after",3]"#),
    (r#"Promise.resolve({ then(r) { log.push('then called'); r(7) } }).then(v => log.push(v)); log.push('sync')"#, r#"["sync","then called",7]"#),
    (r#"(async () => { log.push(await { then(r) { log.push('thenable'); r('t') } }) })(); log.push('sync')"#, r#"["sync","thenable","t"]"#),
    (r#"const p = Promise.resolve(1); Object.defineProperty(p, 'constructor', { get() { log.push('ctor read'); return Promise } }); (async () => { await p; log.push('awaited') })(); log.push('sync')"#, r#"["ctor read","sync","awaited"]"#),
    (r#"class S extends Promise { static get [Symbol.species]() { log.push('species'); return Promise } } const q = S.resolve(2).then(v => v * 2); log.push(q.constructor === Promise, q instanceof S); q.then(v => log.push(v))"#, r#"["species",true,false,4]"#),
    (r#"(async () => { try { await Promise.reject(new Error('no')) } catch (e) { log.push(e.message) } })(); Promise.reject(3).catch(v => log.push('caught ' + v))"#, r#"["no","caught 3"]"#),
    (r#"Promise.all([1, Promise.resolve(2), { then(r) { r(3) } }]).then(v => log.push(v))"#, r#"[[1,2,3]]"#),
    (r#"const orig = Promise.resolve; Promise.resolve = function (v) { log.push('resolve ' + v); return orig.call(this, v) }; Promise.all([1, 2]).then(v => log.push(v)); Promise.resolve = orig"#, r#"["resolve 1","resolve 2",[1,2]]"#),
    (r#"const then = Promise.prototype.then; Promise.prototype.then = function (a, b) { log.push('then'); return then.call(this, a, b) }; (async () => { await 1; await Promise.resolve(2); log.push('done'); Promise.prototype.then = then })()"#, r#"["done"]"#),
    (r#"const { promise, resolve } = Promise.withResolvers(); resolve(promise); promise.catch(e => log.push(e.name))"#, r#"["TypeError"]"#),
    (r#"new Promise((res, rej) => log.push(res.name, res.length, rej.name, rej.length, Object.getOwnPropertyNames(res).sort().join(), res === rej))"#, r#"["",1,"",1,"length,name",false]"#),
    (r#"const p = (async () => 1)(); log.push(Object.getPrototypeOf(p) === Promise.prototype); p.then(v => log.push(v)); (async () => { throw new TypeError('t') })().catch(e => log.push(e.name))"#, r#"[true,1,"TypeError"]"#),
    (r#"let r; const p = new Promise(x => r = x); p.then(v => log.push('first ' + v)); r(1); r(2); p.then(v => log.push('second ' + v)); Promise.resolve(p).then(v => log.push('same ' + (Promise.resolve(p) === p)))"#, r#"["first 1","second 1","same true"]"#),
    (r#"Promise.resolve(undefined).then(v => log.push(typeof v)); Promise.resolve(null).then(v => log.push(v)); Promise.resolve(1n).then(v => log.push(typeof v)); Promise.resolve(Symbol.iterator).then(v => log.push(v === Symbol.iterator))"#, r#"["undefined",null,"bigint",true]"#),
    (r#"Promise.race([new Promise(() => {}), Promise.resolve('r')]).then(v => log.push(v)); Promise.allSettled([Promise.reject(1), 2]).then(v => log.push(v)); Promise.any([Promise.reject(1), Promise.resolve(2)]).then(v => log.push(v))"#, r#"["r",[{"status":"rejected","reason":1},{"status":"fulfilled","value":2}],2]"#),
    (r#"Promise.resolve(1).finally(() => log.push('finally')).then(v => log.push(v)); Promise.try(() => 4).then(v => log.push(v))"#, r#"["finally",4,1]"#),
    (r#"(async function* g() { yield 1; yield await Promise.resolve(2) })().next().then(v => log.push(v)); (async () => { for await (const x of [Promise.resolve('a'), 'b']) log.push(x) })()"#, r#"[{"value":1,"done":false},"a","b"]"#),
    // `await` resumes its context without closures (patch 26): interleaving, rejection,
    // `finally`, `for await`, async generators and thenables.
    (r#"const a = async (t) => { for (let i = 0; i < 3; i++) { log.push(t + i); await null } }; a('x'); a('y'); log.push('s')"#, r#"["x0","y0","s","x1","y1","x2","y2"]"#),
    (r#"(async () => { await Promise.reject(new RangeError('r')) })().catch(e => log.push(e.name))"#, r#"["RangeError"]"#),
    (r#"(async () => { try { throw 1 } finally { await null; log.push('fin') } })().catch(v => log.push('rej ' + v))"#, r#"["fin","rej 1"]"#),
    (r#"(async () => { try { for await (const x of [Promise.reject('bad')]) log.push(x) } catch (e) { log.push('caught ' + e) } })()"#, r#"["caught bad"]"#),
    (r#"const g = (async function* () { try { yield 1; await null; yield 2 } finally { log.push('cleanup') } })(); g.next().then(r => { log.push(r.value); return g.return(9) }).then(r => log.push(r.value, r.done))"#, r#"[1,"cleanup",9,true]"#),
    (r#"(async () => { const v = await new Promise(r => r(Promise.resolve('nested'))); log.push(v); try { await { then(_, rej) { rej('thenable no') } } } catch (e) { log.push(e) } })()"#, r#"["nested","thenable no"]"#),
];

/// `using` as a plain name (patch boa_parser-03): Boa lexes it as a keyword and refused it in
/// expressions, `let using` and `using = ...`. With V8's answers, held as [`LOCALS_CASES`].
#[allow(dead_code)]
const USING_AS_A_NAME: &[(&str, &str)] = &[
    ("(function () { var using = 40; return using + 2 })()", "42"),
    ("(function () { let using = (x) => x * 2; return using(5) })()", "10"),
    ("(function () { function using(a) { return a } return using(3) })()", "3"),
    ("(function () { var using; using = 3; return using })()", "3"),
    ("({ using: 1 }).using", "1"),
    ("(function () { var using = 1, x; using\nx = 2; return [using, x] })()", "[1,2]"),
    ("(function () { var using = {}; return ['a' in using, using instanceof Object] })()", "[false,true]"),
    ("(function () { for (var using of [7]); return using })()", "7"),
];

/// `source` wrapped to complete with the JSON of its value, or `threw <name>`.
#[allow(dead_code)]
fn json_of(source: &str) -> String {
    format!("(() => {{ try {{ return JSON.stringify({source}) }} catch (e) {{ return 'threw ' + e.name }} }})()")
}

/// `JSON.parse` (ours without a reviver, Boa's with one): tests/engine_web.rs holds each to
/// V8's answer; tests/engine.rs to Boa's own, except [`BOA_JSON_BUGS`].
#[allow(dead_code)]
const JSON_CASES: &[&str] = &[
    r#"JSON.parse('{"a":1,"b":[true,false,null],"c":{"d":"e","f":[]},"g":{}}')"#,
    r#"JSON.parse(' \t\n\r[1, 0.5e1, 1E-2, -12.5e+3, 123456789012345678901234567890, 0.1, 1e-400] \n')"#,
    r#"[Object.is(JSON.parse('-0'), -0), Object.is(JSON.parse('[-0]')[0], -0), String(JSON.parse('1e400')), String(JSON.parse('-1e400'))]"#,
    r#"codes(JSON.parse('"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/\\b\\f\\r\\u0000\\uD800x\\udc00"'))"#,
    r#"codes(JSON.parse('"\u00e9\u4e2d\ud800 \udfff"'))"#,
    r#"(() => { const o = JSON.parse('{"__proto__":1,"a":{"__proto__":null}}'); return [Object.keys(o), Object.getPrototypeOf(o) === Object.prototype, o.__proto__, Object.getPrototypeOf(o.a) === Object.prototype, Object.hasOwn(o.a, '__proto__')] })()"#,
    r#"(() => { const o = JSON.parse('{"b":1,"2":2,"a":3,"1":4,"a":5,"4294967295":6,"-1":7}'); return [Object.keys(o), o.a, o[1], Object.getOwnPropertyDescriptor(o, 'b')] })()"#,
    r#"(() => { const a = JSON.parse('[1,[2,[3]],{"x":[]}]'); return [Array.isArray(a), Array.isArray(a[1][1]), a.length, Object.getPrototypeOf(a) === Array.prototype, Object.getOwnPropertyDescriptor(a, 'length')] })()"#,
    r#"(() => { let a = JSON.parse('['.repeat(20000) + ']'.repeat(20000)); let d = 0; while (Array.isArray(a) && a.length) { a = a[0]; d++ } return d })()"#,
    r#"(() => { let o = JSON.parse('{"a":'.repeat(5000) + '1' + '}'.repeat(5000)); let d = 0; while (typeof o === 'object') { o = o.a; d++ } return [d, o] })()"#,
    r#"['', ' ', '{', '}', '[', '[1,]', '[,1]', '{"a":1,}', "{'a':1}", '{a:1}', '01', '-01', '1.', '.5', '+1', '-', '1e', '1e+', 'tru', 'nul', 'falsey', 'NaN', 'Infinity', 'undefined', '"\\x"', '"\\u12"', '"\\u12G4"', '"a\nb"', '"\t"', '"abc', '[1] 2', '{"a" 1}', '{"a":1 "b":2}', '\u00a0 1', '\ufeff1', '1\u2028', '[1]]', '{}}', '"\\\'"', '[1,2'].map((t) => { try { JSON.parse(t); return 'ok' } catch (e) { return e.name } })"#,
    r#"[JSON.parse({ toString() { return '[1]' } }), JSON.parse(12), JSON.parse(null), JSON.parse(true), JSON.parse(new String('"s"'))]"#,
    r#"[undefined, Symbol('s'), {}, { toString() { throw new RangeError('x') } }].map((t) => { try { JSON.parse(t); return 'ok' } catch (e) { return e.name } })"#,
    r#"[JSON.parse('[1,2,{"a":3}]', (k, v) => typeof v === 'number' ? v * 2 : v), JSON.parse('[1]', {}), JSON.parse('[1]', null), JSON.parse('{"a":1,"b":2}', function (k, v) { return k === 'a' ? undefined : v })]"#,
    r#"(() => { const d = Object.getOwnPropertyDescriptor(JSON, 'parse'); const f = d.value; return [f.name, f.length, d.writable, d.enumerable, d.configurable, typeof f, Object.getOwnPropertyNames(f).sort(), Object.getPrototypeOf(f) === Function.prototype, 'prototype' in f, f.toString() === JSON.stringify.toString().replace('stringify', 'parse')] })()"#,
    r#"(() => { try { new JSON.parse('1'); return 'constructed' } catch (e) { return e.name } })()"#,
    r#"(() => { const s = JSON.stringify({ k: 'v'.repeat(300), n: [1.5, -2, 'é中😀'], z: { y: null } }); return JSON.stringify(JSON.parse(s)) === s })()"#,
    // Records that share one layout stay separate objects: changing one leaves the others.
    r#"(() => { const r = JSON.parse('[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6},{"a":7,"b":8,"c":9},{}]'); r[1].c = 'added'; delete r[0].a; Object.defineProperty(r[3], 'b', { value: 'fixed', writable: false }); const set = [Reflect.set(r[3], 'b', 'ignored')]; Object.freeze(r[2]); set.push(Reflect.set(r[2], 'a', 'x')); r[4].z = 1; return [set, r.map((o) => Object.keys(o).join()), r.map((o) => Object.values(o).join()), Object.getOwnPropertyDescriptor(r[2], 'a'), Object.getOwnPropertyDescriptor(r[1], 'a'), [Object.isFrozen(r[2]), Object.isFrozen(r[1])], JSON.parse('{}').z] })()"#,
    // More keys than a layout takes (Boa makes such an object unique) and than the key cache
    // holds; a record of 1,000 of them.
    r#"(() => { const keys = []; for (let i = 0; i < 1500; i++) keys.push('"k' + i + '":' + i); const o = JSON.parse('[{' + keys.join() + '},{' + keys.slice(0, 1000).join() + '}]'); o[1].k5 = 'five'; return [Object.keys(o[0]).length, Object.keys(o[1]).length, o[0].k0, o[0].k5, o[0].k1499, o[1].k5, o[1].k999, Object.keys(o[0]).slice(-2), Object.keys(o[1]).slice(-2), JSON.stringify(o[0]).length] })()"#,
    // More distinct key lists than the layout cache holds.
    r#"(() => { const parts = []; for (let i = 0; i < 300; i++) parts.push('{"x' + i + '":' + i + ',"y":' + (i * 2) + '}'); const a = JSON.parse('[' + parts.join() + ']'); let sum = 0; for (let i = 0; i < 300; i++) sum += a[i]['x' + i] + a[i].y; return [a.length, sum, Object.keys(a[299]), Object.keys(a[0])] })()"#,
    // An escaped key is the same key as its plain spelling: a repeat keeps its first place.
    r#"JSON.parse('[{"a":1,"b":2},{"\u0061":3,"b":4},{"a":5,"\u0061":6,"b":7},{"b":8,"a":9,"b":10},{"__proto__":1,"b":2},{"1":1,"b":2,"0":0}]').map((o) => JSON.stringify(o))"#,
];

/// `JSON.stringify` (patch 13 writes it into one buffer): every value kind, every escape,
/// both string widths, the gap, replacers, `toJSON`, getters and proxies in the order
/// they run, cycles and errors. Each case's answer is a string or a small array of them.
#[allow(dead_code)]
const JSON_STRINGIFY_CASES: &[&str] = &[
    r#"[JSON.stringify(1), JSON.stringify('s'), JSON.stringify(true), JSON.stringify(null), String(JSON.stringify(undefined)), String(JSON.stringify(() => 1)), String(JSON.stringify(Symbol('x')))]"#,
    r#"JSON.stringify([0, -0, 1, -1, 0.1, -5.5, 1e21, 1e-7, 123456789012345680000, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 9007199254740991, -9007199254740991, 4294967296, 1.5e300, 5e-324, NaN, Infinity, -Infinity, 1 / 3, 100, 1e20, 1e15 + 0.5])"#,
    r#"codes(JSON.stringify('\b\t\n\f\r"\\/\u0000\u0001\u001f\u007f\u00e9\u00ff'))"#,
    r#"codes(JSON.stringify('\u4e2d\u2028\u2029\ud83d\ude00 \ud800 \udc00 \ude00\ud83d \udbff\udfff x\ud800'))"#,
    r#"codes(JSON.stringify({ 'a"b': 1, '\n': 2, '\u00e9': '\u00e9', '\u4e2d': ['\u4e2d', '\u00e9'], '\ud800': '\udc00' }))"#,
    r#"JSON.stringify({ a: undefined, b: () => 1, c: Symbol('s'), d: 1, [Symbol('k')]: 2, e: [undefined, () => 1, Symbol('s'), null] })"#,
    r#"(() => { const a = [1, , 3]; a.extra = 4; const o = { 2: 'two', b: 'b', 1: 'one', a: 'a' }; Object.defineProperty(o, 'hidden', { value: 1, enumerable: false }); return JSON.stringify([a, o, [], {}, [[]], [{}], { x: {} }]) })()"#,
    r#"(() => { const log = []; const o = { get a() { log.push('a'); delete this.b; this.z = 1; return 1 }, b: 2, get c() { log.push('c'); return undefined } }; return [JSON.stringify(o), log] })()"#,
    r#"(() => { const log = []; const o = { x: { toJSON(k) { log.push('toJSON:' + k); return [k, this === o.x] } }, y: new Date(0), n: { toJSON: 5 } }; return [JSON.stringify(o), log] })()"#,
    r#"(() => { Object.prototype.toJSON = function (k) { return 'P:' + k }; try { return [JSON.stringify({ a: {} }), JSON.stringify([[]])] } finally { delete Object.prototype.toJSON } })()"#,
    r#"(() => { const out = []; try { JSON.stringify({ n: 1n }) } catch (e) { out.push(e.name) } BigInt.prototype.toJSON = function () { return this.toString() + 'n' }; try { out.push(JSON.stringify({ n: 1n, m: Object(2n) })) } finally { delete BigInt.prototype.toJSON } return out })()"#,
    r#"JSON.stringify([new Number(3), new String('s\u00e9'), new Boolean(false), Object(Symbol('x')), new Number(NaN), { v: new String('\u4e2d') }])"#,
    r#"(() => { const out = []; const o = {}; o.self = o; try { JSON.stringify(o) } catch (e) { out.push(e.name) } const a = []; a.push([a]); try { JSON.stringify(a) } catch (e) { out.push(e.name) } const shared = { s: 1 }; out.push(JSON.stringify([shared, { shared }, shared])); return out })()"#,
    r#"(() => { const log = []; const p = new Proxy({ a: 1, b: 2 }, { ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t) }, getOwnPropertyDescriptor(t, k) { log.push('gopd:' + k); return Reflect.getOwnPropertyDescriptor(t, k) }, get(t, k) { log.push('get:' + String(k)); return Reflect.get(t, k) } }); const ap = new Proxy([1, [2]], {}); return [JSON.stringify({ p, ap }), log] })()"#,
    r#"(() => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); try { return JSON.stringify({ proxy }) } catch (e) { return e.name } })()"#,
    r#"(() => { const log = []; const r = function (k, v) { log.push([k, typeof v, Array.isArray(this) ? 'array' : typeof this]); return typeof v === 'number' ? v * 10 : k === 'drop' ? undefined : v }; return [JSON.stringify({ a: 1, drop: 2, b: [3, { c: 4 }] }, r), log] })()"#,
    r#"[JSON.stringify({ a: 1, b: 2, c: { a: 3, d: 4 }, 1: 5 }, ['a', 'c', 1, 'a', new Number(1), new String('c'), {}, true]), JSON.stringify([{ a: 1, b: 2 }], ['b']), JSON.stringify({ a: 1 }, 'ab'), JSON.stringify({ a: 1 }, 7)]"#,
    r#"[2, 20, -1, 0, 3.7, new Number(2), '\t', '--', 'abcdefghijklmnop', new String('.'), '', null, true, {}].map((g) => JSON.stringify({ a: [1, { b: 2, u: undefined }, [], {}], e: {}, l: [[]], u: undefined, z: 'z' }, null, g))"#,
    r#"[JSON.stringify({ u: undefined }, null, 2), JSON.stringify({ a: 1, u: undefined }, null, 2), JSON.stringify({ u: undefined, a: 1 }, null, 2), JSON.stringify([undefined], null, 2), JSON.stringify({ f() {}, g: 1, h() {} }, null, '\u00e9'), codes(JSON.stringify([1, [2]], null, '\u4e2d'))]"#,
    r#"(() => { const out = []; for (const v of [{ get a() { throw new RangeError('get') } }, { toJSON() { throw new SyntaxError('toJSON') } }, [1, { toJSON() { throw new EvalError('deep') } }]]) { try { out.push(JSON.stringify(v)) } catch (e) { out.push(e.name) } } return out })()"#,
    r#"(() => { let o = 1; for (let i = 0; i < 300; i++) o = i % 2 ? { a: o } : [o]; const s = JSON.stringify(o); return [s.length, s.slice(0, 12), JSON.stringify(JSON.parse(s)) === s] })()"#,
    r#"(() => { const big = { items: [] }; for (let i = 0; i < 500; i++) big.items.push({ id: i, s: 'x\u00e9' + i, w: i % 50 === 0 ? '\u4e2d' + i : 'n', f: i / 8, b: i % 3 === 0, n: null }); const s = JSON.stringify(big); return [s.length, s.slice(0, 40), s.slice(-40), JSON.stringify(JSON.parse(s)) === s] })()"#,
    r#"(() => { try { return [JSON.stringify({ r: JSON.rawJSON('12345678901234567890123'), s: [JSON.rawJSON('"\u00e9"'), JSON.rawJSON('null')] }), JSON.isRawJSON(JSON.rawJSON('1'))] } catch (e) { return e.name } })()"#,
    r#"(() => { const d = Object.getOwnPropertyDescriptor(JSON, 'stringify'); const f = d.value; return [f.name, f.length, d.writable, d.enumerable, d.configurable, 'prototype' in f] })()"#,
];

/// Where Boa's own `JSON.parse` is wrong and ours follows V8: its serde_json pre-check
/// refuses a number beyond the f64 range (`1e400` is Infinity) and an escaped lone surrogate;
/// a raw lone surrogate in the text (valid JSON) fails its UTF-8 conversion; deep nesting
/// overflows its script parser.
#[allow(dead_code)]
const BOA_JSON_BUGS: &[&str] = &[
    r#"(() => { let o = 1; for (let i = 0; i < 300; i++) o = i % 2 ? { a: o } : [o]; const s = JSON.stringify(o); return [s.length, s.slice(0, 12), JSON.stringify(JSON.parse(s)) === s] })()"#,
    r#"[Object.is(JSON.parse('-0'), -0), Object.is(JSON.parse('[-0]')[0], -0), String(JSON.parse('1e400')), String(JSON.parse('-1e400'))]"#,
    r#"codes(JSON.parse('"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/\\b\\f\\r\\u0000\\uD800x\\udc00"'))"#,
    r#"codes(JSON.parse('"\u00e9\u4e2d\ud800 \udfff"'))"#,
    r#"(() => { let a = JSON.parse('['.repeat(20000) + ']'.repeat(20000)); let d = 0; while (Array.isArray(a) && a.length) { a = a[0]; d++ } return d })()"#,
    r#"(() => { let o = JSON.parse('{"a":'.repeat(5000) + '1' + '}'.repeat(5000)); let d = 0; while (typeof o === 'object') { o = o.a; d++ } return [d, o] })()"#,
];

/// [`JSON_CASES`] as runnable sources, like [`sources`].
#[allow(dead_code)]
fn json_sources() -> Vec<(String, String)> {
    JSON_CASES
        .iter()
        .chain(JSON_STRINGIFY_CASES)
        .map(|case| {
            let source = format!(
                "(() => {{ {PRELUDE}\ntry {{ return JSON.stringify({case}, replacer) }} catch (e) {{ return 'threw ' + e.name }} }})()"
            );
            ((*case).to_owned(), source)
        })
        .collect()
}
