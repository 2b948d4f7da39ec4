// The package as users get it: `npm pack` the built pkg/, install the tarball into a small
// Vite app (tests/vite-app), `vite build` it, and run the bundle in real Chromium under a
// strict CSP, served from dist/ alone, so every worker, module and wasm file must have been
// emitted by the bundler (nothing falls back to pkg/).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { cp, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './harness.mjs';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const pkgDir = join(root, 'pkg');
const appSrc = join(root, 'tests', 'vite-app');
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self' 'unsafe-inline'";
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
};

/** Runs a command; resolves with { code, stdout, stderr } (never rejects on exit status). */
function sh(cmd, args, cwd) {
  return new Promise((ok) => {
    execFile(cmd, args, { cwd, maxBuffer: 64 << 20, env: { ...process.env, npm_config_update_notifier: 'false' } },
      (err, stdout, stderr) => ok({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

/** A static server for dist/ only, with the MIME types and CSP a real deployment would use. */
function serveDir(dir) {
  const server = createServer(async (req, res) => {
    let rel = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(dir, rel));
    if (file !== dir && !file.startsWith(dir + sep)) { res.writeHead(403).end(); return; }
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] || 'application/octet-stream',
        'content-security-policy': CSP,
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

let tmp;
let packed; // npm pack --json entry
let install; // npm install result
let build; // vite build result
let server;
let origin;
let browser;

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'isolated-realm-vite-'));

  const pack = await sh('npm', ['pack', '--json', '--pack-destination', tmp], pkgDir);
  assert.equal(pack.code, 0, `npm pack failed:\n${pack.stderr}`);
  [packed] = JSON.parse(pack.stdout);
  const tarball = join(tmp, packed.filename);

  // A copy of the app, so the tarball dependency is recorded only in the copy. Its vite comes
  // from tests/vite-app/node_modules (installed by scripts/setup.sh) when present, else from
  // the npm cache or registry, pinned by the committed package-lock.json.
  const app = join(tmp, 'app');
  await cp(appSrc, app, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      const rel = src.slice(appSrc.length + 1);
      return rel !== 'dist' && !rel.endsWith('.tgz') && rel !== join('node_modules', '.vite');
    },
  });
  install = await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);
  assert.equal(install.code, 0, `npm install of the tarball failed:\n${install.stderr}`);

  const vite = join(app, 'node_modules', '.bin', 'vite');
  assert.ok(existsSync(vite), 'the app has a local vite binary');
  build = await sh(vite, ['build', '--logLevel', 'warn'], app);
  assert.equal(build.code, 0, `vite build failed:\n${build.stdout}\n${build.stderr}`);

  server = await serveDir(join(app, 'dist'));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  if (server) await new Promise((ok) => server.close(ok));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('the tarball holds the worker, the wasm and the types, and installs cleanly', () => {
  const files = packed.files.map((f) => f.path);
  for (const f of ['index.js', 'index.d.ts', 'realm.js', 'realm.d.ts', 'client.js', 'errors.js',
    'worker.js', 'isolated_realm.js', 'isolated_realm_bg.wasm', 'isolated_realm_small_bg.wasm', 'package.json']) {
    assert.ok(files.includes(f), `${f} is in the tarball (has: ${files.join(', ')})`);
  }
  assert.ok(files.some((f) => f.startsWith('snippets/')), 'the wasm-bindgen snippets are in the tarball');
  assert.equal(packed.name, 'isolated-realm');
  assert.equal(install.code, 0);
  assert.doesNotMatch(install.stderr, /\bERR!|peer dep|EBADENGINE/i, install.stderr);
});

test('the Vite build emits the worker and the wasm as files of their own', async () => {
  const dist = join(tmp, 'app', 'dist');
  const out = await sh('find', ['.', '-type', 'f'], dist);
  const files = out.stdout.split('\n').filter(Boolean);
  assert.ok(files.some((f) => f.endsWith('.wasm')), `a .wasm asset was emitted: ${files.join(', ')}`);
  // Besides the page's entry chunk there must be a worker chunk; an inlined data: URL would be
  // refused by worker-src 'self', and a raw copy of worker.js could not resolve its imports.
  const js = files.filter((f) => f.endsWith('.js'));
  assert.ok(js.length >= 2, `a worker chunk was emitted besides the entry: ${files.join(', ')}`);
  for (const f of js) {
    const code = await readFile(join(dist, f), 'utf8');
    assert.doesNotMatch(code, /new URL\(\s*["']data:text\/javascript/, `${f} inlines a script as a data: URL`);
  }
});

test('the built app runs in Chromium: values cross, a runaway is stopped, nothing leaves the origin', async () => {
  const context = await browser.newContext();
  const requests = [];
  const failed = [];
  context.on('request', (r) => requests.push(r.url()));
  context.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  const page = await context.newPage();
  const errors = [];
  const workers = [];
  page.on('pageerror', (e) => errors.push(e));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
  page.on('worker', (w) => workers.push(w.url()));
  try {
    await page.goto(origin + '/');
    const state = await page
      .waitForFunction(() => document.getElementById('out')?.dataset.state, null, { timeout: 20_000 })
      .then((h) => h.jsonValue(), () => 'no result');
    const text = await page.textContent('#out');
    assert.equal(state, 'done', `the app reported: ${text}\npage errors: ${errors.map((e) => e.message).join('\n')}`);
    assert.deepEqual(JSON.parse(text), {
      two: 2,
      isMap: true,
      entries: [['k', 'v']],
      runaway: { threw: true, isSandboxError: true, code: 'SANDBOX_LIMIT_EXCEEDED', limit: 'timeoutMs' },
      after: 42,
    });
    assert.deepEqual(failed, [], 'every request succeeded');
    assert.deepEqual(errors.map((e) => e.message), []);
    assert.ok(workers.length >= 1, 'a worker was started');
    for (const w of workers) assert.ok(w.startsWith(origin + '/'), `worker script is same-origin: ${w}`);
    assert.ok(requests.some((u) => u.endsWith('.wasm')), `the wasm was fetched: ${requests.join('\n')}`);
    const foreign = requests.filter((u) => !u.startsWith(origin + '/'));
    assert.deepEqual(foreign, [], 'no request left the origin');
  } finally {
    await context.close();
  }
});
