// The benchmark's own static server, on 127.0.0.1 only, with the same strict CSP as
// scripts/serve.mjs (no 'unsafe-eval'; only 'wasm-unsafe-eval'). Mounts:
//   /pkg/  the repository's built package (pkg/)
//   /nm/   bench/node_modules (quickjs-emscripten), with bare import specifiers rewritten to
//          /nm/ URLs (module workers cannot use import maps)
//   /workloads.mjs  bench/www/workloads.src.js verbatim plus an export list (native V8 baseline)
//   /cards-gen/     the card runtime (src/cards/runtime.js, read at serve time) and the
//                   benchmark's card modules (bench/www/cards/) in the forms each engine needs:
//     runtime.js        the runtime's text verbatim (QuickJS and the sync Realm evaluate it)
//     runtime.mjs       the same text as a module: default export { api, ops }, plus one named
//                       export per card-API name (native V8 imports it: no eval under the CSP)
//     <name>.mjs        bench/www/cards/<name>.js with the card-API specifier pointed at
//                       runtime.mjs (native V8)
//     <name>.script.js  bench/www/cards/<name>.js as a classic script (the sync Realm has no
//                       module loader): the card-API import becomes a destructuring of
//                       globalThis.__cardRuntime.api, exports land in globalThis.__cardModules
//   /modgen/<name>.js  a generated module of about 140 KB whose bytes depend on <name> (the
//                   module-cache workload's realm)
//   /      bench/www/ (its cards/ folder is the card realm: the Compartment's principal)
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const here = resolve(fileURLToPath(new URL('.', import.meta.url)));
const root = resolve(here, '..');
const NM = join(here, 'node_modules');
const mounts = [['/pkg/', join(root, 'pkg')], ['/nm/', NM], ['/', join(here, 'www')]];
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json',
};
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src 'self'";

/** The workload source, and the same text as a module exporting its top-level functions. */
export function workloadSource() {
  return readFileSync(join(here, 'www', 'workloads.src.js'), 'utf8');
}
export function workloadModule() {
  const src = workloadSource();
  const names = [...src.matchAll(/^function (\w+)/gm)].map((m) => m[1]);
  return `${src}\nexport { ${names.join(', ')}, STATE, WORDS };\n`;
}

// --- cards ---------------------------------------------------------------------------------

export const CARD_API = 'https://cardstack.com/base/card-api';
const CARD_RUNTIME = join(root, 'src', 'cards', 'runtime.js');
const CARD_IMPORT = /^import\s*\{([^}]*)\}\s*from\s*(['"])([^'"]+)\2;?[ \t]*$/gm;

export function cardRuntimeSource() {
  return readFileSync(CARD_RUNTIME, 'utf8');
}
/** runtime.js is one expression evaluating to { api, ops }: a module that exports it. */
export function cardRuntimeModule() {
  const src = cardRuntimeSource();
  // The card-API names, from the runtime itself (evaluated here in a node:vm context).
  const names = Object.keys(vm.runInNewContext(src, {}, { filename: 'runtime.js' }).api);
  return `const runtime = ${src}\n;\nexport default runtime;\nexport const { ${names.join(', ')} } = runtime.api;\n`;
}
function cardModuleSource(name) {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`bad card module name ${name}`);
  return readFileSync(join(here, 'www', 'cards', `${name}.js`), 'utf8');
}
/** The card module for native V8: the card-API import points at runtime.mjs. */
export function cardModuleV8(name) {
  return cardModuleSource(name).replace(CARD_IMPORT, (all, list, q, spec) => {
    if (spec !== CARD_API) throw new Error(`card module ${name}: only the card API may be imported, not ${spec}`);
    return `import {${list}} from '/cards-gen/runtime.mjs';`;
  });
}
/** The card module as a classic script registering its exports under `url`. */
export function cardModuleScript(name, url) {
  const exported = [];
  const body = cardModuleSource(name)
    .replace(CARD_IMPORT, (all, list, q, spec) => {
      if (spec !== CARD_API) throw new Error(`card module ${name}: only the card API may be imported, not ${spec}`);
      return `const {${list.replace(/\bas\b/g, ':')}} = globalThis.__cardRuntime.api;`;
    })
    .replace(/^export\s+(class|function|const|let)\s+([A-Za-z_$][\w$]*)/gm, (all, kw, id) => {
      exported.push(id);
      return `${kw} ${id}`;
    });
  if (/^\s*(import|export)\b/m.test(body)) throw new Error(`card module ${name}: an import or export the script form does not handle`);
  return `(globalThis.__cardModules || (globalThis.__cardModules = {}))[${JSON.stringify(url)}] = (function () {\n'use strict';\n${body}\nreturn { ${exported.join(', ')} };\n})();\nundefined;\n`;
}
function cardGen(path, host) {
  if (path === 'runtime.js') return cardRuntimeSource();
  if (path === 'runtime.mjs') return cardRuntimeModule();
  let m = /^([a-z][a-z0-9-]*)\.mjs$/.exec(path);
  if (m) return cardModuleV8(m[1]);
  m = /^([a-z][a-z0-9-]*)\.script\.js$/.exec(path);
  if (m) return cardModuleScript(m[1], `http://${host}/cards/${m[1]}.js`);
  return null;
}

// Resolves a bare specifier ('pkg', '@scope/pkg/sub') to a /nm/ URL via package.json exports.
function pick(target) {
  if (typeof target === 'string') return target;
  if (target && typeof target === 'object') {
    for (const cond of ['browser', 'import', 'default']) {
      if (cond in target) {
        const hit = pick(target[cond]);
        if (hit) return hit;
      }
    }
  }
  return null;
}
function resolveBare(spec) {
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const sub = '.' + spec.slice(name.length);
  const manifest = JSON.parse(readFileSync(join(NM, name, 'package.json'), 'utf8'));
  let target = null;
  if (manifest.exports) {
    const entry = typeof manifest.exports === 'string' || sub !== '.' || !('.' in manifest.exports)
      ? (sub === '.' && typeof manifest.exports === 'string' ? manifest.exports : manifest.exports[sub])
      : manifest.exports['.'];
    target = pick(entry);
  }
  if (!target && sub === '.') target = manifest.browser || manifest.module || manifest.main;
  if (!target) throw new Error(`cannot resolve ${spec}`);
  return `/nm/${name}/${target.replace(/^\.\//, '')}`;
}
function rewriteImports(code) {
  const bare = (s) => !s.startsWith('.') && !s.startsWith('/') && !s.includes(':');
  return code
    .replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)(["'])([^"'\n]+)\2/g, (all, lead, q, spec) =>
      bare(spec) ? `${lead}${q}${resolveBare(spec)}${q}` : all);
}

// --- module cache ---------------------------------------------------------------------------

/** A card-like module of about 140 KB: 400 classes and functions. Its name is in the first
 * line, so every name has its own bytes (a cold parse). */
export function generatedModule(name) {
  const parts = [`// generated module ${name}\n`];
  for (let i = 0; i < 400; i++) {
    parts.push(`export class C${i} { constructor(a) { this.a = a; this.t = \`item \${a} of ${i}\`; } render(x) { return { tag: 'div', attrs: { class: 'c${i}', title: this.t }, children: [x.map((y) => y * ${i}), 'text ${i}'] }; } }\n`);
    parts.push(`export function f${i}(o) { const { a, b = ${i}, ...rest } = o; if (a > b) { for (let k = 0; k < a; k++) rest[k] = k * b; } return [a, b, rest]; }\n`);
  }
  return parts.join('');
}

// `cacheWasm`: .wasm files are served cacheable (a max-age and a validator), as a host should
// serve them, so the browser can keep the engines' compiled code across visits.
export function serve(port = 0, { cacheWasm = false } = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const headers = { 'content-security-policy': CSP, 'cache-control': 'no-store' };
    if (url.pathname === '/workloads.mjs') {
      res.writeHead(200, { ...headers, 'content-type': types['.js'] }).end(workloadModule());
      return;
    }
    if (/^\/modgen\/[\w-]+\.js$/.test(url.pathname)) {
      res.writeHead(200, { ...headers, 'content-type': types['.js'] }).end(generatedModule(url.pathname.slice(8, -3)));
      return;
    }
    if (url.pathname.startsWith('/cards-gen/')) {
      let body = null;
      try {
        body = cardGen(url.pathname.slice('/cards-gen/'.length), req.headers.host);
      } catch (e) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e.message));
        return;
      }
      if (body === null) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      else res.writeHead(200, { ...headers, 'content-type': types['.js'] }).end(body);
      return;
    }
    const [prefix, dir] = mounts.find(([p]) => url.pathname.startsWith(p));
    let rel = decodeURIComponent(url.pathname.slice(prefix.length));
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(dir, rel));
    if (!file.startsWith(dir)) { res.writeHead(403).end(); return; }
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new Error('not a file');
      let body = await readFile(file);
      const ext = extname(file);
      if (cacheWasm && ext === '.wasm') {
        headers['cache-control'] = 'public, max-age=3600';
        headers.etag = `"${info.size}-${Math.floor(info.mtimeMs)}"`;
      }
      if (prefix === '/nm/' && (ext === '.mjs' || ext === '.js')) body = rewriteImports(body.toString('utf8'));
      res.writeHead(200, { ...headers, 'content-type': types[ext] || 'application/octet-stream' });
      res.end(body);
    } catch (e) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await serve(Number(process.env.PORT || 8090));
  console.log(`bench server: http://127.0.0.1:${server.address().port}/`);
}
