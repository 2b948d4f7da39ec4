// Static server for the demo and the end-to-end tests, on 127.0.0.1 only.
// Serves www/ at / and the built package (pkg/) at /pkg/. Every response carries a strict
// CSP without 'unsafe-eval': the engine needs only 'wasm-unsafe-eval'.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const mounts = [['/pkg/', join(root, 'pkg')], ['/tests/', join(root, 'tests', 'e2e', 'pages')], ['/', join(root, 'www')]];
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon',
};
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src 'self'";

/** `routes`: extra handlers by path prefix (the tests' fake realm server), tried first. */
export function serve(port = 0, routes = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const route = Object.keys(routes).find((p) => url.pathname.startsWith(p));
    if (route) {
      routes[route](req, res, url);
      return;
    }
    const [prefix, dir] = mounts.find(([p]) => url.pathname.startsWith(p));
    let rel = decodeURIComponent(url.pathname.slice(prefix.length));
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(dir, rel));
    if (!file.startsWith(dir)) { res.writeHead(403).end(); return; }
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': types[extname(file)] || 'application/octet-stream',
        'content-security-policy': CSP,
        'cache-control': 'no-store',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT || 8080);
  const server = await serve(port);
  console.log(`isolated-realm demo: http://127.0.0.1:${server.address().port}/`);
}
