// Where a workload's time goes, in Chromium: a CPU profile of one workload on a build of the
// package whose wasm keeps its function names, summarised as shares of the time by area
// (the JS glue's walk and build, our Rust, Boa's interpreter, its collector, the allocator...)
// and by function. The rule is "profile first": this is the profile.
//
//   node bench/profile.mjs [workload ...]      (default: boundary)
//
// Workloads: the benchmark's own (bench/www/workloads.src.js): fib, card, churn, json, text,
// calls (10k call('add', i, 1)), boundary (the 100 KB model in and out, x200), boundary-1k
// (the 1 KB model, x2000), worker-calls (10k call messages to the compartment worker's
// protocol host, `WorkerHost.handle`, as worker.js hands them over). The Realm and the host
// run on the page's main thread (the profiler attaches to the page), after three untimed runs.
//
// The named build goes to target/profile/ (its own cargo target directory: the first build
// takes minutes, later ones only what changed) with the same wasm-opt flags as the package.
// Its wasm-bindgen glue can differ from the shipped one (a wasm with a name section gets
// multi-value returns), so it ships with its own glue. PROFILE_SKIP_BUILD=1 reuses the last.
// PROFILE_WASM=small profiles the small build instead (its profile, no wasm-opt, as shipped),
// from target/profile-small/.
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { workloadModule, workloadSource } from './server.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const SMALL = process.env.PROFILE_WASM === 'small';
if (process.env.PROFILE_WASM && !SMALL) {
  console.error(`PROFILE_WASM must be small or unset, not ${process.env.PROFILE_WASM}`);
  process.exit(1);
}
const target = join(root, 'target', SMALL ? 'profile-small' : 'profile');
const cargoProfile = SMALL ? 'release-small' : 'release';
const named = join(target, 'pkg');
const WORKLOADS = ['boundary', 'boundary-1k', 'fib', 'card', 'churn', 'json', 'text', 'calls', 'worker-calls'];
const wanted = process.argv.slice(2);
for (const w of wanted) {
  if (!WORKLOADS.includes(w)) {
    console.error(`unknown workload '${w}': one of ${WORKLOADS.join(', ')}`);
    process.exit(1);
  }
}
if (!existsSync(join(root, 'pkg', 'realm.js')) || !existsSync(join(root, 'bench', 'node_modules', 'playwright-core'))) {
  console.error('build the package and install the bench first: ./scripts/build-pkg.sh && npm ci --prefix bench');
  process.exit(1);
}

function build() {
  // scripts/setup.sh installs cargo and wasm-bindgen under ~/.cargo/bin.
  const path = `${join(homedir(), '.cargo', 'bin')}:${process.env.PATH}`;
  const run = (cmd, args, env = {}) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, PATH: path, ...env } });
  run('cargo', ['build', '--profile', cargoProfile, '--target', 'wasm32-unknown-unknown', '--features', 'speed'],
    { CARGO_TARGET_DIR: target, [`CARGO_PROFILE_${cargoProfile.toUpperCase().replace('-', '_')}_STRIP`]: 'false' });
  const bindgen = join(target, 'bindgen');
  rmSync(bindgen, { recursive: true, force: true });
  run('wasm-bindgen', ['--target', 'web', '--experimental-reset-state-function', '--out-dir', bindgen,
    join(target, 'wasm32-unknown-unknown', cargoProfile, 'isolated_realm.wasm')]);
  rmSync(named, { recursive: true, force: true });
  cpSync(join(root, 'pkg'), named, { recursive: true });
  cpSync(join(bindgen, 'isolated_realm.js'), join(named, 'isolated_realm.js'));
  cpSync(join(bindgen, 'snippets'), join(named, 'snippets'), { recursive: true });
  // The package's flags (scripts/build-pkg.sh), keeping the name section; the small build
  // ships without wasm-opt.
  if (SMALL) {
    cpSync(join(bindgen, 'isolated_realm_bg.wasm'), join(named, 'isolated_realm_bg.wasm'));
    return;
  }
  run(join(root, 'tools', 'node_modules', '.bin', 'wasm-opt'), ['-O3', '--debuginfo',
    '--one-caller-inline-max-function-size=100', '--enable-bulk-memory', '--enable-nontrapping-float-to-int',
    '--enable-sign-ext', '--enable-mutable-globals', '--enable-multivalue', '--enable-reference-types',
    join(bindgen, 'isolated_realm_bg.wasm'), '-o', join(named, 'isolated_realm_bg.wasm')]);
}
if (process.env.PROFILE_SKIP_BUILD !== '1' || !existsSync(join(named, 'isolated_realm_bg.wasm'))) build();

const page = `<!doctype html><script type=module>
import * as R from '/pkg/realm.js';
import * as W from '/workloads.mjs';
import { WorkerHost } from '/pkg/isolated_realm.js';
await R.init();
// The compartment worker's host, fed what the client posts (structured clones of these).
const host = new WorkerHost();
let id = 0;
const answer = (msg) => {
  const replies = host.handle(structuredClone({ v: 1, id: ++id, realm: 1, ...msg }));
  if (replies.length !== 1 || replies[0].type !== 'result') throw new Error('worker host: ' + JSON.stringify(replies));
  return replies[0].value;
};
answer({ type: 'create', options: {} });
answer({ type: 'eval', source: await (await fetch('/workloads.js')).text() });
const realm = new R.Realm({ limits: { timeoutMs: 600000, instructions: Number.MAX_SAFE_INTEGER } });
realm.eval(await (await fetch('/workloads.js')).text());
for (const s of ['card', 'json', 'text']) realm.call('setup_' + s);
const big = W.makeModel(100000, 5), small = W.makeModel(1000, 5);
window.runIt = (what) => {
  const t = performance.now();
  if (what === 'boundary') for (let i = 0; i < 200; i++) realm.call('identity', big);
  else if (what === 'boundary-1k') for (let i = 0; i < 2000; i++) realm.call('identity', small);
  else if (what === 'calls') for (let i = 0; i < 10000; i++) realm.call('add', i, 1);
  else if (what === 'worker-calls') {
    const msgs = [];
    for (let i = 0; i < 10000; i++) msgs.push(structuredClone({ v: 1, id: ++id, type: 'call', name: 'add', args: [i, 1], realm: 1 }));
    const t0 = performance.now();
    for (const m of msgs) host.handle(m);
    return performance.now() - t0;
  }
  else realm.call('run_' + what);
  return performance.now() - t;
};
window.ready = true;
</script>`;
const src = workloadSource();
const types = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  const send = (body, type) => { res.writeHead(200, { 'content-type': type }); res.end(body); };
  if (path === '/') return send(page, 'text/html');
  if (path === '/workloads.js') return send(src, 'text/javascript');
  if (path === '/workloads.mjs') return send(workloadModule(), 'text/javascript');
  const file = path.startsWith('/pkg/') ? resolve(named, path.slice(5)) : '';
  if (file.startsWith(named + '/') && existsSync(file)) return send(readFileSync(file), types[extname(file)] || 'application/octet-stream');
  res.writeHead(404);
  res.end();
}).listen(0, '127.0.0.1');

// Areas, by the sampled function's own name; the JS glue by the entry point it runs under.
const AREAS = [
  ['JS glue: host value → tape (walk_value)', (f, chain) => chain.includes('walk_value')],
  ['JS glue: tape → host value (build_value)', (f, chain) => chain.includes('build_value')],
  ['Boa collector (boa_gc)', (f) => f.startsWith('boa_gc::') || /Trace for|run_finalizer|trace_non_roots/.test(f)],
  ['allocator (dlmalloc, alloc)', (f) => /dlmalloc|__rdl_|__rustc.*alloc|alloc::raw_vec|finish_grow/.test(f)],
  ['ours: boundary (isolated_realm::clone)', (f) => f.startsWith('isolated_realm::clone::')],
  ['ours: other (isolated_realm)', (f) => f.startsWith('isolated_realm::')],
  ['Boa interpreter: dispatch, calls, frames (boa_engine::vm)', (f) => f.startsWith('boa_engine::vm::') || f.includes('boa_engine::context::Context>::')
    || f.includes('::function::function_call') || f.includes('drop_in_place<boa_engine::vm::')],
  ['Boa builtins (boa_engine::builtins)', (f) => f.startsWith('boa_engine::builtins::') || f.includes('boa_engine::builtins::')],
  ['Boa objects and values (boa_engine other)', (f) => f.startsWith('boa_engine::') || f.startsWith('<boa_engine::')],
  ['Boa strings (boa_string)', (f) => f.includes('boa_string::')],
  ['regex (regress)', (f) => f.includes('regress::')],
  ['other wasm (std, core, deps)', (f) => f.includes('::') || /^wasm-function/.test(f)],
  ['(garbage collector): V8\'s', (f) => f === '(garbage collector)'],
  ['other JS and idle', () => true],
];

const require = createRequire(join(root, 'bench', 'package.json'));
const { chromium } = require('playwright-core');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--disable-sync'],
});
try {
  const tab = await (await browser.newContext()).newPage();
  tab.on('pageerror', (e) => console.error('page error:', e.stack || e.message));
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  await tab.waitForFunction(() => window.ready, null, { timeout: 120000 });
  const cdp = await tab.context().newCDPSession(tab);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  for (const what of wanted.length ? wanted : ['boundary']) {
    for (let i = 0; i < 3; i++) await tab.evaluate((w) => window.runIt(w), what);
    await cdp.send('Profiler.start');
    const times = [];
    for (let i = 0; i < 5; i++) times.push(await tab.evaluate((w) => window.runIt(w), what));
    const { profile } = await cdp.send('Profiler.stop');
    report(what, times, profile);
  }
} finally {
  await browser.close();
  server.close();
}

function report(what, times, profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const name = (n) => (n.callFrame.functionName || '(anonymous)').replace(/::h[0-9a-f]{16}(\[\d+\])?$/, '');
  const counts = new Map();
  for (const s of profile.samples) counts.set(s, (counts.get(s) || 0) + 1);
  const areas = new Map(AREAS.map(([a]) => [a, 0]));
  const self = new Map();
  let total = 0;
  for (const [id, c] of counts) {
    const chain = [];
    for (let x = id; x; x = parent.get(x)) chain.push(name(byId.get(x)));
    if (chain[0] === '(idle)' || chain[0] === '(program)') continue;
    total += c;
    const [area] = AREAS.find(([, test]) => test(chain[0], chain));
    areas.set(area, areas.get(area) + c);
    self.set(chain[0], (self.get(chain[0]) || 0) + c);
  }
  const pct = (c) => `${((100 * c) / total).toFixed(1)} %`;
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`\n## ${what}\n\n5 runs, ${sorted.map((t) => t.toFixed(1)).join(', ')} ms; ${total} samples (0.1 ms)\n`);
  console.log('| area | share |\n|---|---:|');
  for (const [a, c] of areas) if (c / total >= 0.001) console.log(`| ${a} | ${pct(c)} |`);
  console.log('\n| function (own time) | share |\n|---|---:|');
  const top = [...self].filter(([, c]) => c / total >= 0.001).sort((a, b) => b[1] - a[1]).slice(0, 25);
  for (const [f, c] of top) console.log(`| \`${f.slice(0, 110).replace(/\|/g, '\\|')}\` | ${pct(c)} |`);
}
