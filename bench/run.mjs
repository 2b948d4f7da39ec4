#!/usr/bin/env node
// isolated-realm benchmark: one command, one run, every engine.
//
//   npm ci --prefix bench      # once: playwright-core and quickjs-emscripten
//   node bench/run.mjs         # ~5-6 minutes on 2 cores
//   BENCH_ONLY=cards node bench/run.mjs   # only the cards section (results/only-cards.*)
//
// Measures the same workloads (same source text, results checked to agree) in
//   - isolated-realm: the sync Realm in a dedicated worker, and a Compartment from the page
//   - quickjs-emscripten (release-sync) in a dedicated worker
//   - native V8 in a dedicated worker (the same source, imported as a module)
// in Debian's headless Chromium under the project's strict CSP, and writes
// bench/results/latest.json and bench/results/latest.md. See bench/README.md.
import { existsSync, readFileSync, readdirSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants as zc } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const here = resolve(fileURLToPath(new URL('.', import.meta.url)));
const root = resolve(here, '..');
const PKG = join(root, 'pkg');
const CHROMIUM = '/usr/bin/chromium';
// A workload call that takes longer than this in one engine is stopped and reported "> cap".
const CAP_MS = Number(process.env.BENCH_CAP_MS) || 30_000;
// Sections: 'main' (everything but cards), 'cards' and 'modules' (the module parse cache).
// BENCH_ONLY=cards (comma-separated
// list) runs only those, for development, and writes results/only-<sections>.{json,md}
// instead of results/latest.*.
const SECTIONS = ['main', 'cards', 'modules'];
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((x) => x.trim()).filter(Boolean) : null;
const want = (section) => !ONLY || ONLY.includes(section);
// BENCH_WASM=small measures the package's size-optimised build (SMALL_WASM_URL) in place of
// the default one, and writes results/latest-small.* (or only-<sections>-small.*).
const BUILD = process.env.BENCH_WASM ?? 'fast';
// Fresh tabs per engine for each throughput row, their samples pooled: V8's tiering differs
// from tab to tab (QuickJS's fib(27): 24 ms on some fresh tabs, 31 ms on others).
const TABS = Number(process.env.BENCH_TABS) || 2;
const WASM_FILE = { fast: 'isolated_realm_bg.wasm', small: 'isolated_realm_small_bg.wasm' }[BUILD];
const CHROMIUM_ARGS = [
  '--no-sandbox', '--headless', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--no-first-run',
  '--disable-sync',
];
// Frames as fast as the page can make them, for the unpaced frame-gap rows.
const UNPACED_ARGS = ['--disable-gpu-vsync', '--disable-frame-rate-limit'];

// --- preflight ------------------------------------------------------------------------------

function die(message) {
  console.error(`bench: ${message}`);
  process.exit(1);
}
if (!WASM_FILE) die(`BENCH_WASM must be fast or small, not ${BUILD}`);
const pkgFiles = ['index.js', 'client.js', 'errors.js', 'realm.js', 'worker.js', 'isolated_realm.js', WASM_FILE];
const missingPkg = pkgFiles.filter((f) => !existsSync(join(PKG, f)));
if (missingPkg.length) {
  die(`the package is not built: ${missingPkg.map((f) => `pkg/${f}`).join(', ')} missing.\n` +
    '       Build it first from the repository root: ./scripts/build-pkg.sh');
}
const deps = ['playwright-core', 'quickjs-emscripten', 'quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync'];
const missingDeps = deps.filter((d) => !existsSync(join(here, 'node_modules', d, 'package.json')));
if (missingDeps.length) {
  die(`bench dependencies are not installed (${missingDeps.join(', ')}).\n` +
    '       Install them from the repository root: npm ci --prefix bench');
}
// What was measured (pkg/ may be rebuilt by others later).
const WASM_SHA256 = createHash('sha256').update(readFileSync(join(PKG, WASM_FILE))).digest('hex');
if (ONLY && (!ONLY.length || ONLY.some((x) => !SECTIONS.includes(x)))) die(`BENCH_ONLY must name sections among ${SECTIONS.join(', ')}, not ${process.env.BENCH_ONLY}`);
if (!existsSync(CHROMIUM)) die(`${CHROMIUM} not found: install Debian's chromium (apt-get install chromium)`);

const { chromium } = await import('playwright-core');
const { serve } = await import('./server.mjs');

// --- helpers --------------------------------------------------------------------------------

const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
const t0 = Date.now();
const loadAtStart = os.loadavg();

// Other work on the machine skews every figure. On Linux, sample /proc once a second and
// add up the CPU time of processes outside this run's own tree (node, Chromium and its
// children): that is the competition this run had.
function cpuMonitor() {
  const HZ = 100; // USER_HZ: /proc reports clock ticks of 1/100 s on Linux
  const last = new Map();
  let mine = 0;
  let foreign = 0;
  let ok = true;
  const read = () => {
    const procs = new Map();
    let names;
    try {
      names = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
    } catch {
      ok = false;
      return null;
    }
    for (const n of names) {
      try {
        const text = readFileSync(`/proc/${n}/stat`, 'utf8');
        const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
        procs.set(Number(n), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
      } catch { /* gone */ }
    }
    return procs;
  };
  const ours = (procs, pid) => {
    for (let p = pid, i = 0; p > 1 && i < 64; i++) {
      if (p === process.pid) return true;
      p = procs.get(p)?.ppid ?? 0;
    }
    return false;
  };
  const sample = (baseline) => {
    const procs = read();
    if (!procs) return;
    for (const [pid, { ticks }] of procs) {
      const before = last.get(pid) ?? (baseline ? ticks : 0);
      last.set(pid, ticks);
      const d = Math.max(0, ticks - before);
      if (ours(procs, pid)) mine += d;
      else foreign += d;
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 1000);
  return {
    stop() {
      clearInterval(timer);
      sample(false);
      return ok ? { ownCpuS: +(mine / HZ).toFixed(1), otherCpuS: +(foreign / HZ).toFixed(1) } : null;
    },
  };
}
const cpu = cpuMonitor();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s]`, ...a);

// performance.now() ticks in 100 µs steps here (no cross-origin isolation): 0 means "below it".
const TICK_MS = 0.1;
function fmtMs(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms === 0) return `< ${TICK_MS} ms`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(3)} ms`;
}
function fmtRatio(a, b) {
  if (a == null || b == null || a === 0) return '—';
  if (b === 0) return `> ${fmtRatio(a, TICK_MS)}`;
  const r = a / b;
  return r >= 100 ? `${r.toFixed(0)}×` : r >= 10 ? `${r.toFixed(1)}×` : `${r.toFixed(2)}×`;
}
const fmtBytes = (n) => `${n.toLocaleString('en-US')} B (${(n / 1e6).toFixed(2)} MB)`;

// --- sizes (node:zlib) ----------------------------------------------------------------------

function sizes() {
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const gz6 = (b) => gzipSync(b).length;
  const br = (b) => brotliCompressSync(b, { params: { [zc.BROTLI_PARAM_QUALITY]: 11, [zc.BROTLI_PARAM_SIZE_HINT]: b.length } }).length;
  const wasm = (path) => {
    const b = readFileSync(path);
    return { raw: b.length, gzip: gz6(b), gzip9: gz(b), brotli: br(b) };
  };
  const mainFiles = ['index.js', 'client.js', 'errors.js'];
  const js = mainFiles.map((f) => {
    const b = readFileSync(join(PKG, f));
    return { file: f, raw: b.length, gzip: gz6(b) };
  });
  const all = Buffer.concat(mainFiles.map((f) => readFileSync(join(PKG, f))));
  return {
    realmWasm: wasm(join(PKG, WASM_FILE)),
    quickjsWasm: wasm(join(here, 'node_modules', '@jitl', 'quickjs-wasmfile-release-sync', 'dist', 'emscripten-module.wasm')),
    mainThreadJs: {
      files: js,
      raw: js.reduce((a, f) => a + f.raw, 0),
      gzip: js.reduce((a, f) => a + f.gzip, 0),
      gzipConcatenated: gz6(all),
    },
  };
}

// --- the run --------------------------------------------------------------------------------

const ENGINES = ['realm', 'compartment', 'quickjs', 'v8'];
// Fresh tabs per engine for the cold starts: a multiple of the engines, so that each starts
// first equally often.
const COLD_TABS = 8;
const rotated = (xs, n) => [...xs.slice(n % xs.length), ...xs.slice(0, n % xs.length)];
const LABEL = {
  realm: 'isolated-realm Realm (worker)',
  compartment: 'isolated-realm Compartment (page)',
  quickjs: 'quickjs-emscripten (worker)',
  v8: 'V8 native (worker)',
};
const WORKLOADS = [
  ['fib', 'fib(27)'],
  ['card', 'card render: 200 fields ×100 to HTML'],
  ['churn', 'object churn: 200k objects, sort, reduce'],
  ['json', 'JSON parse + stringify 1 MB ×5'],
  ['text', 'regex + string ops on 200 KB (ASCII text)'],
  // For information, not in the targets: the same operations on text with non-Latin-1 words.
  ['text_utf16', 'regex + string ops on 200 KB (mixed-script text)', { info: true }],
  ['sort_default', 'default sort (no comparator) of 100k numbers', { info: true }],
];
const TARGET_WORKLOADS = WORKLOADS.filter(([, , o]) => !o?.info);
// Cards: engines (table column order) and batch sizes.
const CARD_ENGINES = ['compartment', 'realm', 'quickjs', 'v8'];
const CARD_SIZES = [100, 200];
const CARD_DISPATCHES = 50;

const server = await serve(0);
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const context = await browser.newContext();
const pageErrors = [];
const external = [];
/** Records every request of `ctx` that leaves `at`: the report lists them. */
const watch = (ctx, at = origin) => ctx.on('request', (r) => { if (!r.url().startsWith(at)) external.push(r.url()); });
watch(context);

async function openPage(ctx = context, at = origin) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  await page.goto(`${at}/?cap=${CAP_MS}&wasm=${BUILD}`);
  await page.waitForFunction(() => globalThis.benchReady === true, null, { timeout: 30_000 });
  return page;
}

const raw = { sizes: sizes() };
let mismatches = [];

try {
  log(`Chromium ${browser.version()}, ${os.cpus().length} CPUs; server ${origin}`);

  if (want('main')) {
    // Cold start: per repetition and engine, a fresh tab (a new page in a new browser context:
    // nothing compiled or cached), then three more workers on that same tab (the compiled
    // module cached on the page and posted to the worker).
    raw.coldStart = {};
    for (const kind of ENGINES) raw.coldStart[kind] = { fresh: [], warm: [], values: [] };
    for (let rep = 0; rep < COLD_TABS; rep++) {
      // From a different engine each time: a tab opens while the last one's context (its
      // worker, its compiled wasm) is still being torn down, and no engine should always
      // follow the same one.
      for (const kind of rotated(ENGINES, rep)) {
        const ctx = await browser.newContext();
        watch(ctx);
        const page = await openPage(ctx);
        if (rep === 0 && kind === 'realm') raw.pageEval = await page.evaluate(() => bench.pageEval);
        const fresh = await page.evaluate((k) => bench.coldStart(k, false), kind);
        raw.coldStart[kind].fresh.push(fresh.ms);
        raw.coldStart[kind].values.push(fresh.value);
        for (let i = 0; i < 3; i++) {
          const warm = await page.evaluate((k) => bench.coldStart(k, true), kind);
          raw.coldStart[kind].warm.push(warm.ms);
          raw.coldStart[kind].values.push(warm.value);
        }
        await ctx.close();
      }
      log(`cold start, tab ${rep + 1}/${COLD_TABS}: ${ENGINES.map((k) => `${k} ${fmtMs(raw.coldStart[k].fresh[rep])}`).join(', ')}`);
    }

    // pool.warm() at idle on a fresh tab, then the first compartment: what a host that
    // prepares ahead gets.
    raw.coldStart.warmed = { warmMs: [], ms: [], values: [] };
    for (let rep = 0; rep < COLD_TABS; rep++) {
      const ctx = await browser.newContext();
      watch(ctx);
      const page = await openPage(ctx);
      const w = await page.evaluate(() => bench.warmedStart());
      raw.coldStart.warmed.warmMs.push(w.warmMs);
      raw.coldStart.warmed.ms.push(w.ms);
      raw.coldStart.warmed.values.push(w.value);
      await ctx.close();
    }
    log(`cold start after pool.warm(): ${raw.coldStart.warmed.ms.map(fmtMs).join(', ')} (warm-up ${raw.coldStart.warmed.warmMs.map(fmtMs).join(', ')})`);

    // Cold start on a return visit: one browser profile (a persistent context), a server
    // that serves the .wasm files cacheable, as a host should. A first visit primes it: four
    // workloads once in every engine, so there is optimised code to keep, then 3 s idle (V8
    // writes a module's code cache some time after its last tier-up). Then COLD_TABS visits,
    // a new tab per engine: Chromium takes the wasm from its HTTP cache, and V8 whatever
    // code it cached with it.
    const cachingServer = await serve(0, { cacheWasm: true });
    const cachingOrigin = `http://127.0.0.1:${cachingServer.address().port}`;
    const profileDir = mkdtempSync(join(os.tmpdir(), 'isolated-realm-bench-'));
    const profile = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      watch(profile, cachingOrigin);
      const first = await openPage(profile, cachingOrigin);
      await first.evaluate(() => bench.prime(['fib', 'card', 'json', 'text']));
      await first.waitForTimeout(3000);
      await first.close();
      for (const kind of ENGINES) raw.coldStart[kind].returnVisit = [];
      for (let rep = 0; rep < COLD_TABS; rep++) {
        // The engines in turn, from a different one each visit: the Realm and the
        // Compartment read the same wasm URL, and neither should always go second.
        for (const kind of rotated(ENGINES, rep)) {
          const page = await openPage(profile, cachingOrigin);
          const r = await page.evaluate((k) => bench.coldStart(k, false), kind);
          raw.coldStart[kind].returnVisit.push(r.ms);
          raw.coldStart[kind].values.push(r.value);
          await page.close();
        }
        log(`cold start, return visit ${rep + 1}/${COLD_TABS}: ${ENGINES.map((k) => `${k} ${fmtMs(raw.coldStart[k].returnVisit[rep])}`).join(', ')}`);
      }
    } finally {
      await profile.close();
      cachingServer.close();
      rmSync(profileDir, { recursive: true, force: true });
    }

    // Every throughput row below runs each engine on a fresh tab of its own: its wasm
    // compiled anew, so the code V8 tiers up is shaped by that row's work in that engine
    // alone. On one shared tab, what ran before decided it (V8 shares a module's optimised
    // code between the workers it is posted to): QuickJS's fib(27) took 24 ms on a fresh tab
    // and 30 ms after the new-realm rows, even in new workers, and 45 ms in some full runs.
    // The Realm and the Compartment load the same wasm, so they too get a tab each.
    raw.init = {};
    const inFreshTab = async (what, kinds) => {
      const ctx = await browser.newContext();
      watch(ctx);
      try {
        const tab = await openPage(ctx);
        Object.assign(raw.init, await tab.evaluate((k) => bench.setupEngines(k), kinds));
        return await tab.evaluate(what.fn, what.arg);
      } finally {
        await ctx.close();
      }
    };
    /** Two results of one engine as one: their samples (every array) pooled, the first error kept. */
    const pool = (a, b) => {
      const out = { ...a };
      for (const [key, v] of Object.entries(b)) {
        if (Array.isArray(v) && Array.isArray(a[key])) out[key] = [...a[key], ...v];
        else if (['error', 'capped', 'note'].includes(key)) out[key] = a[key] || v;
      }
      return out;
    };
    /**
     * `what` run on TABS fresh tabs per engine of `kinds`, one engine to a tab; each engine's
     * results pooled over its tabs. The engines take turns, from a different one each round.
     */
    const perEngine = async (what, kinds = ENGINES) => {
      const out = {};
      for (let round = 0; round < TABS; round++) {
        const at = round % kinds.length;
        for (const kind of [...kinds.slice(at), ...kinds.slice(0, at)]) {
          for (const [key, r] of Object.entries(await inFreshTab(what, [kind]))) out[key] = out[key] ? pool(out[key], r) : r;
        }
      }
      // In ENGINES order, as the tables read them.
      const rank = (k) => (ENGINES.includes(k) ? ENGINES.indexOf(k) : ENGINES.length);
      return Object.fromEntries(Object.keys(out).sort((a, b) => rank(a) - rank(b)).map((k) => [k, out[k]]));
    };
    const REALM_KINDS = ['realm', 'compartment', 'quickjs'];

    raw.newRealm = await perEngine({ fn: () => bench.newRealm(10, 20, false) }, REALM_KINDS);
    log('engines ready:', JSON.stringify(raw.init));
    log(`new realm: ${REALM_KINDS.map((k) => `${k} ${fmtMs(median(raw.newRealm[k].samples))} (dispose ${fmtMs(median(raw.newRealm[k].dispose))})`).join(', ')}`);
    raw.newRealmEval = await perEngine({ fn: () => bench.newRealm(10, 20, true) }, REALM_KINDS);
    log(`new realm + first eval: ${REALM_KINDS.map((k) => `${k} ${fmtMs(median(raw.newRealmEval[k].samples))}`).join(', ')}`);

    raw.workloads = {};
    for (const [name] of WORKLOADS) {
      raw.workloads[name] = await perEngine({ fn: (n) => bench.workload(n), arg: name });
      log(`${name}: ${ENGINES.map((k) => `${k} ${raw.workloads[name][k].capped ? '> cap' : fmtMs(median(raw.workloads[name][k].samples))}`).join(', ')}`);
    }

    raw.calls = await perEngine({ fn: () => bench.smallCalls(10_000, 5) });
    log(`10k calls: ${ENGINES.map((k) => `${k} ${fmtMs(median(raw.calls[k].samples))}`).join(', ')}`);

    raw.boundary = {};
    for (const bytes of [1_000, 100_000]) {
      // The Realm's tab also times its baselines, in its worker (page.js, `boundary`).
      raw.boundary[bytes] = await perEngine({ fn: (b) => bench.boundary(b, 200, 5), arg: bytes });
      log(`boundary ${bytes / 1000} KB ×200: ${Object.keys(raw.boundary[bytes]).map((k) => `${k} ${fmtMs(median(raw.boundary[bytes][k].samples))}`).join(', ')}`);
    }

    // Stops, kills and frame gaps time the sandbox's machinery, not generated code: one tab.
    const page = await openPage();
    await page.evaluate(() => bench.setupEngines());

    raw.softStop = {};
    for (const kind of ['realm', 'compartment', 'quickjs']) {
      raw.softStop[kind] = [];
      for (let i = 0; i < 5; i++) raw.softStop[kind].push(await page.evaluate((k) => bench.softStop(k, 100), kind));
    }
    log(`soft stop (100 ms): ${Object.keys(raw.softStop).map((k) => `${k} ${fmtMs(median(raw.softStop[k].map((x) => x.ms)))}`).join(', ')}`);

    raw.hardKill = {};
    for (const kind of ['compartment', 'quickjs', 'v8']) {
      raw.hardKill[kind] = [];
      for (let i = 0; i < 3; i++) raw.hardKill[kind].push(await page.evaluate((k) => bench.hardKill(k, 100), kind));
    }
    log(`hard kill (100 ms): ${Object.keys(raw.hardKill).map((k) => `${k} ${fmtMs(median(raw.hardKill[k].map((x) => x.stopMs)))} + ${fmtMs(median(raw.hardKill[k].map((x) => x.nextMs)))}`).join(', ')}`);

    await page.evaluate(() => bench.disposeAll());
    await page.bringToFront();
    raw.frameGap = { idle: [], loop: [], regex: [] };
    for (let i = 0; i < 3; i++) {
      for (const what of ['idle', 'loop', 'regex']) raw.frameGap[what].push(await page.evaluate((w) => bench.frameGap(w), what));
    }
    log(`frame gap: ${Object.keys(raw.frameGap).map((k) => `${k} ${fmtMs(median(raw.frameGap[k].map((x) => x.maxGapMs)))}`).join(', ')}`);
    await page.close();

    // The same, in a browser whose frames are not paced to 60 Hz: a frame starts as soon as the
    // page's thread is free, so the largest gap is the longest the page could not paint. Paced,
    // headless Chromium's own jitter puts even the idle page's gap above 16 ms. Its own browser,
    // so the unpaced frames' load touches no other figure.
    const unpaced = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...UNPACED_ARGS] });
    try {
      const uctx = await unpaced.newContext();
      watch(uctx);
      const upage = await openPage(uctx);
      await upage.bringToFront();
      raw.frameGapUnpaced = { idle: [], loop: [], regex: [] };
      for (let i = 0; i < 3; i++) {
        for (const what of ['idle', 'loop', 'regex']) raw.frameGapUnpaced[what].push(await upage.evaluate((w) => bench.frameGap(w), what));
      }
      log(`frame gap, unpaced: ${Object.keys(raw.frameGapUnpaced).map((k) => `${k} ${fmtMs(median(raw.frameGapUnpaced[k].map((x) => x.maxGapMs)))}`).join(', ')}`);
    } finally {
      await unpaced.close();
    }
  }

  // Cards: the card runtime and one card module in each engine (bench/README.md, "Cards"),
  // each engine on a fresh tab of its own, for the reason the throughput rows are.
  // A failure here is reported under the cards table; it does not void the main section.
  if (want('cards')) {
    raw.cards = { sizes: CARD_SIZES, dispatches: CARD_DISPATCHES };
    try {
      for (const kind of CARD_ENGINES) {
        const ctx = await browser.newContext();
        watch(ctx);
        try {
          const page = await openPage(ctx);
          raw.pageEval ??= await page.evaluate(() => bench.pageEval);
          const r = await page.evaluate(([k, o]) => bench.cards(k, o), [kind, { sizes: CARD_SIZES, runs: 5, dispatches: CARD_DISPATCHES }]);
          raw.cards[kind] = r;
          if (r.error) log(`cards, ${kind}: FAILED: ${r.error}`);
          else {
            log(`cards, ${kind}: ${CARD_SIZES.map((n) => `renderMany(${n}) ${fmtMs(median(r.sizes[n].many))}, ${n} × render ${fmtMs(median(r.sizes[n].each))}, paint ${fmtMs(median(r.sizes[n].paint))}`).join('; ')}; dispatch ${fmtMs(median(r.dispatch.samples))}`);
          }
        } finally {
          await ctx.close();
        }
      }
    } catch (e) {
      raw.cards.fatal = String(e && e.stack || e);
      console.error('bench: the cards section failed:', e);
    }
  }

  // The module parse cache: a cold import (parse) against the same bytes imported by a
  // second compartment in the same worker (cache hit), per run.
  if (want('modules')) {
    const page = await openPage();
    raw.pageEval ??= await page.evaluate(() => bench.pageEval);
    raw.moduleCache = await page.evaluate(() => bench.moduleCache(7));
    const m = raw.moduleCache;
    if (m.error) log(`module cache: FAILED: ${m.error}`);
    else log(`module cache: miss ${fmtMs(median(m.miss))}, hit ${fmtMs(median(m.hit))}`);
    await page.close();
  }
} catch (e) {
  raw.fatal = String(e && e.stack || e);
  console.error('bench: the run failed:', e);
}

const chromiumVersion = browser.version();
await browser.close();
await new Promise((ok) => server.close(ok));

// --- analysis -------------------------------------------------------------------------------

function agree(label, valuesByEngine) {
  // valuesByEngine: { engine: [values...] }; every value of every engine must be equal.
  const flat = [];
  for (const [k, vs] of Object.entries(valuesByEngine)) for (const v of vs) flat.push([k, JSON.stringify(v)]);
  if (!flat.length) return 'no results';
  const distinct = [...new Set(flat.map(([, v]) => v))];
  if (distinct.length === 1) return 'yes';
  const byValue = distinct.map((v) => `${v} from ${[...new Set(flat.filter(([, x]) => x === v).map(([k]) => k))].join('+')}`);
  mismatches.push(`${label}: ${byValue.join(' / ')}`);
  return 'MISMATCH';
}

const rows = [];
const targets = [];
const R = raw;
function row(what, m, agreeText, note) {
  rows.push({ what, ...m, agree: agreeText, note });
}

if (!R.fatal && want('main')) {
  const cs = R.coldStart;
  const expect42 = (vs) => Object.fromEntries(Object.entries(vs).map(([k, v]) => [k, v]));
  const coldAgree = agree('cold start', { expected: [42], ...expect42(Object.fromEntries(ENGINES.map((k) => [k, cs[k].values]))) });
  row('cold start, fresh tab: new Worker → first eval', Object.fromEntries(ENGINES.map((k) => [k, median(cs[k].fresh)])), coldAgree, `median of ${COLD_TABS} tabs, the engines in a rotated order`);
  row('cold start, warm tab: 2nd worker, module compiled', Object.fromEntries(ENGINES.map((k) => [k, median(cs[k].warm)])), coldAgree, `median of ${COLD_TABS * 3} (3 per tab)`);
  row('cold start, return visit: wasm from the HTTP cache', Object.fromEntries(ENGINES.map((k) => [k, median(cs[k].returnVisit)])), coldAgree,
    `median of ${COLD_TABS} visits in one browser profile after a priming visit; the .wasm served cacheable (max-age, ETag)`);
  const cw = cs.warmed;
  const warmedAgree = agree('cold start after pool.warm()', { expected: [42], compartment: cw.values });
  row('cold start after pool.warm() at idle, fresh tab: create → first eval', { realm: null, compartment: median(cw.ms), quickjs: null, v8: null }, warmedAgree,
    `for information; median of ${COLD_TABS} tabs; the warm-up itself (compile, worker, a throwaway realm's run) took ${fmtMs(median(cw.warmMs))} before, off the timed path`);
  row('new realm in a warm module', {
    realm: median(R.newRealm.realm.samples), compartment: median(R.newRealm.compartment.samples),
    quickjs: median(R.newRealm.quickjs.samples), v8: null,
  }, '—', 'Realm: new Realm(); Compartment: Compartment.create on a live worker (round trip); QuickJS: newContext() (own runtime); median of 10 batches of 20 after 5 untimed');
  row('new realm + its first eval(\'40 + 2\')', {
    realm: median(R.newRealmEval.realm.samples), compartment: median(R.newRealmEval.compartment.samples),
    quickjs: median(R.newRealmEval.quickjs.samples), v8: null,
  }, '—', 'as above, plus one eval each');
  row('dispose a realm, after its batch of 20', {
    realm: median(R.newRealm.realm.dispose), compartment: median(R.newRealm.compartment.dispose),
    quickjs: median(R.newRealm.quickjs.dispose), v8: null,
  }, '—', 'Realm: dispose(), collecting once disposed realms are half the heap; Compartment: dispose() round trip; QuickJS: context.dispose(); per realm, median of 10 batches after 5 untimed');

  for (const [name, label, opts] of WORKLOADS) {
    const w = R.workloads[name];
    const vals = {};
    const setups = {};
    for (const k of ENGINES) {
      vals[k] = w[k].values;
      if (w[k].setup !== null && w[k].setup !== undefined) setups[k] = [w[k].setup];
      if (w[k].error && !w[k].capped) mismatches.push(`${name} in ${k} failed: ${w[k].error}`);
    }
    let a = agree(label, vals);
    if (Object.keys(setups).length) {
      const s = agree(`${label} (setup)`, setups);
      if (s !== 'yes') a = s;
    }
    const m = {};
    for (const k of ENGINES) m[k] = w[k].capped ? 'cap' : median(w[k].samples);
    const notes = ENGINES.filter((k) => w[k].note).map((k) => `${k}: ${w[k].note}`);
    row(label, m, a, [...(opts?.info ? ['for information, not in the targets'] : []), `n=${ENGINES.map((k) => w[k].samples.length).join('/')}`, ...notes].join('; '));
    if (!opts?.info) {
      row(`↳ its first run on a fresh tab`, Object.fromEntries(ENGINES.map((k) => [k, w[k].firstRun?.length ? median(w[k].firstRun) : null])), '—',
        `for information: the untimed run after setup, median of ${TABS} fresh tabs; it includes V8's tier-up of the engine's code (bench/README.md, "First runs")`);
    }
  }

  for (const bytes of [1000, 100000]) {
    const b = R.boundary[bytes];
    const vals = {};
    for (const k of Object.keys(b)) {
      vals[k] = b[k].values;
      if (b[k].error) mismatches.push(`boundary ${bytes} in ${k}: ${b[k].error}`);
    }
    const a = agree(`boundary ${bytes / 1000} KB`, vals);
    row(`boundary ${bytes / 1000} KB model in + out ×200`, Object.fromEntries(ENGINES.map((k) => [k, median(b[k].samples)])), a,
      'Realm/Compartment: call(\'identity\', model); QuickJS: JSON in, dump out; V8: structuredClone in + out');
  }

  const expectSum = 10_000 * 9_999 / 2 + 10_000;
  const ca = agree('10k small calls', { expected: [expectSum], ...Object.fromEntries(ENGINES.map((k) => [k, R.calls[k].values])) });
  for (const k of ENGINES) if (R.calls[k].error) mismatches.push(`10k calls in ${k}: ${R.calls[k].error}`);
  row("10k small calls: call('add', i, 1)", Object.fromEntries(ENGINES.map((k) => [k, median(R.calls[k].samples)])), ca, 'V8: add(i, 1) by name');

  const ss = R.softStop;
  const softOk = Object.values(ss).every((xs) => xs.every((x) => x.error));
  if (!softOk) mismatches.push(`soft stop: a runaway was not stopped: ${JSON.stringify(ss)}`);
  row('soft stop: while(true){}, timeoutMs 100, call → rejection', {
    realm: median(ss.realm.map((x) => x.ms)), compartment: median(ss.compartment.map((x) => x.ms)),
    quickjs: median(ss.quickjs.map((x) => x.ms)), v8: null,
  }, softOk ? 'stopped' : 'NOT STOPPED', 'median of 5; QuickJS: interrupt handler deadline; V8 has no soft stop');

  const hk = R.hardKill;
  const hardOk = Object.values(hk).every((xs) => xs.every((x) => x.value === 42));
  if (!hardOk) mismatches.push(`hard kill: the next call did not answer 42: ${JSON.stringify(hk)}`);
  row('hard kill: /^(a+)+$/ regex, timeoutMs 100, call → rejection', {
    realm: null, compartment: median(hk.compartment.map((x) => x.stopMs)),
    quickjs: median(hk.quickjs.map((x) => x.stopMs)), v8: median(hk.v8.map((x) => x.stopMs)),
  }, hardOk ? 'stopped' : 'FAILED', 'Compartment: its watchdog (grace 100 ms); QuickJS/V8: page kills the worker at 100 + 100 ms unless the engine stops itself');
  row('hard kill: rejection → next call\'s answer (respawn)', {
    realm: null, compartment: median(hk.compartment.map((x) => x.nextMs)),
    quickjs: median(hk.quickjs.map((x) => x.nextMs)), v8: median(hk.v8.map((x) => x.nextMs)),
  }, hardOk ? '42' : 'FAILED', 'median of 3');

  const fg = R.frameGap;
  const fgu = R.frameGapUnpaced;
  for (const [set, pacing] of [[fg, '60 Hz frames'], [fgu, 'unpaced frames']]) {
    for (const [what, label] of [['idle', 'idle page (baseline)'], ['loop', 'Compartment runaway while(true) 1 s'], ['regex', 'Compartment runaway regex + kill + respawn']]) {
      row(`largest frame gap, ${pacing}, ${label}`, { realm: null, compartment: median(set[what].map((x) => x.maxGapMs)), quickjs: null, v8: null }, '—',
        `median of 3 (max ${fmtMs(Math.max(...set[what].map((x) => x.maxGapMs)))}); ${median(set[what].map((x) => x.frames))} frames in ${fmtMs(median(set[what].map((x) => x.ms)))}`);
    }
  }

  // --- targets
  const interp = TARGET_WORKLOADS.map(([name, label]) => {
    const w = R.workloads[name];
    const ir = w.realm.capped ? Infinity : median(w.realm.samples);
    const q = w.quickjs.capped ? Infinity : median(w.quickjs.samples);
    return { name, label, ratio: ir / q };
  });
  const gm = geomean(interp.map((x) => x.ratio));
  const worst = interp.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const target = (what, measured, pass, how) => targets.push({ what, measured, pass, how });
  const info = WORKLOADS.filter(([, , o]) => o?.info).map(([name]) => {
    const w = R.workloads[name];
    return { name, ratio: (w.realm.capped ? Infinity : median(w.realm.samples)) / (w.quickjs.capped ? Infinity : median(w.quickjs.samples)) };
  });
  // The geomean again with the mixed-script text in the ASCII text's place (the other
  // informational rows are not interpreter targets).
  const utf16 = info.filter((x) => x.name === 'text_utf16');
  const gmAlt = utf16.length ? geomean([...interp.filter((x) => x.name !== 'text'), ...utf16].map((x) => x.ratio)) : null;
  target('interpreter workloads: geometric mean ≤ 1.0× quickjs-emscripten', `${gm.toFixed(2)}× (Realm in worker ÷ QuickJS in worker)`, gm <= 1.0,
    `geomean over ${interp.map((x) => `${x.name} ${x.ratio.toFixed(2)}×`).join(', ')}` +
    (gmAlt ? `; for information, with the mixed-script text instead of the ASCII one: ${gmAlt.toFixed(2)}×` : ''));
  target('interpreter workloads: none worse than 3× quickjs-emscripten', `worst ${worst.ratio.toFixed(2)}× (${worst.name}); ${interp.filter((x) => x.ratio > 3).length} of ${interp.length} over 3×`, worst.ratio <= 3, '');
  const cgm = geomean(TARGET_WORKLOADS.map(([name]) => median(R.workloads[name].compartment.samples) / median(R.workloads[name].quickjs.samples)));
  target('(same, through a Compartment from the page)', `${cgm.toFixed(2)}× geomean`, cgm <= 1.0, 'for information: includes the round trip');
  const b100 = R.boundary[100000];
  const bRealm = median(b100.realm.samples);
  const bSC = median(b100['realm-worker:structuredClone'].samples);
  target('boundary, 100 KB in + out ≤ 1.0× V8 structuredClone', `${(bRealm / bSC).toFixed(2)}× (${fmtMs(bRealm)} vs ${fmtMs(bSC)} for 200)`, bRealm <= bSC,
    'realm.call(\'identity\', m) vs structuredClone(identity(structuredClone(m))), both in the sync Realm\'s worker');
  const bComp = median(b100.compartment.samples);
  target('(same, through a Compartment from the page)', `${(bComp / bSC).toFixed(2)}× (${fmtMs(bComp)} for 200)`, bComp <= bSC, 'for information: two structured clones plus ours per crossing');
  const csF = median(cs.compartment.fresh) / median(cs.quickjs.fresh);
  target('cold start ≤ 1.0× quickjs-emscripten, fresh tab', `${csF.toFixed(2)}× (Compartment ${fmtMs(median(cs.compartment.fresh))} vs ${fmtMs(median(cs.quickjs.fresh))}; Realm worker ${fmtMs(median(cs.realm.fresh))})`, csF <= 1.0,
    'new Worker (in Compartment.create) → first eval result');
  const csW = median(cs.compartment.warm) / median(cs.quickjs.warm);
  target('cold start ≤ 1.0× quickjs-emscripten, warm tab', `${csW.toFixed(2)}× (Compartment ${fmtMs(median(cs.compartment.warm))} vs ${fmtMs(median(cs.quickjs.warm))}; Realm worker ${fmtMs(median(cs.realm.warm))})`, csW <= 1.0,
    'second worker on the same page, compiled module posted to it');
  const csR = median(cs.compartment.returnVisit) / median(cs.quickjs.returnVisit);
  target('(cold start, return visit)', `${csR.toFixed(2)}× (Compartment ${fmtMs(median(cs.compartment.returnVisit))} vs ${fmtMs(median(cs.quickjs.returnVisit))}; Realm worker ${fmtMs(median(cs.realm.returnVisit))})`, csR <= 1.0,
    'for information: the wasm from the HTTP cache, V8\'s code cache with it');
  const nr = median(R.newRealm.realm.samples);
  target('new realm in a warm module ≤ 0.5 ms', fmtMs(nr), nr <= 0.5, `new Realm() in the worker (Compartment.create round trip: ${fmtMs(median(R.newRealm.compartment.samples))}); its dispose ${fmtMs(median(R.newRealm.realm.dispose))}, where its memory is collected`);
  const softC = median(ss.compartment.map((x) => x.ms));
  const softR = median(ss.realm.map((x) => x.ms));
  target('soft stop within deadline + 10 ms (≤ 110 ms), Compartment', fmtMs(softC), softC <= 110, 'while(true){}, timeoutMs 100, from the call on the page to the rejection');
  target('soft stop within deadline + 10 ms (≤ 110 ms), Realm in worker', fmtMs(softR), softR <= 110, 'realm.eval in the worker');
  const hkStop = median(hk.compartment.map((x) => x.stopMs));
  const hkNext = median(hk.compartment.map((x) => x.nextMs));
  const hkTotal = median(hk.compartment.map((x) => x.stopMs - 100 + x.nextMs));
  target('hard kill plus respawn ≤ 150 ms', `${fmtMs(hkTotal)} past the deadline (call → rejection ${fmtMs(hkStop)}, then ${fmtMs(hkNext)} to the next answer)`, hkTotal <= 150,
    'regex via Compartment, timeoutMs 100, default graceMs 100; measured from the deadline (call + 100 ms) to the next call\'s answer');
  const gapOf = (set) => {
    const loop = median(set.loop.map((x) => x.maxGapMs));
    const regex = median(set.regex.map((x) => x.maxGapMs));
    return { loop, regex, worst: Math.max(loop, regex), idle: median(set.idle.map((x) => x.maxGapMs)) };
  };
  const gu = gapOf(fgu);
  const gp = gapOf(fg);
  target('largest frame gap during a runaway ≤ 16 ms', `${fmtMs(gu.worst)} unpaced (loop ${fmtMs(gu.loop)}, regex + kill ${fmtMs(gu.regex)}; idle page ${fmtMs(gu.idle)}); at 60 Hz ${fmtMs(gp.worst)}, idle page ${fmtMs(gp.idle)}`, gu.worst <= 16,
    'largest interval between requestAnimationFrame callbacks on the page, judged with unpaced frames (--disable-gpu-vsync --disable-frame-rate-limit), where the gap is the time the page could not paint; at 60 Hz headless Chromium\'s pacing alone exceeds 16 ms');
  const s = R.sizes;
  target('wasm ≤ 1.5 MB gzipped', `${fmtBytes(s.realmWasm.gzip)} (gzip -6; -9: ${s.realmWasm.gzip9.toLocaleString('en-US')} B)`, s.realmWasm.gzip <= 1_500_000,
    `1.5 MB = 1,500,000 bytes; raw ${fmtBytes(s.realmWasm.raw)}, brotli ${fmtBytes(s.realmWasm.brotli)}`);
  target('main-thread JS ≤ 10 KB gzipped', `${s.mainThreadJs.gzip.toLocaleString('en-US')} B`, s.mainThreadJs.gzip <= 10_000,
    `index.js + client.js + errors.js, each gzipped (-6), summed; raw ${s.mainThreadJs.raw.toLocaleString('en-US')} B`);
} else if (R.fatal) {
  mismatches.push(`the run did not finish: ${R.fatal.split('\n')[0]}`);
}

// Cards: rows of their own table. `unit`: 'ms' (per batch or call), 'us' (per card: the
// batch divided by N) or 'x' (a ratio within one engine, no cross-engine ratios).
const cardRows = [];
if (!R.fatal && want('cards') && R.cards.fatal) {
  mismatches.push(`the cards section did not finish: ${R.cards.fatal.split('\n')[0]}`);
} else if (!R.fatal && want('cards')) {
  const C = R.cards;
  const ok = (k) => C[k] && !C[k].error;
  for (const k of CARD_ENGINES) if (!ok(k)) mismatches.push(`cards in ${k} failed: ${C[k]?.error ?? 'not run'}`);
  const per = (k, pick) => (ok(k) ? pick(C[k]) : null);
  // `noRatio`: a row whose columns run the same code, so cross-engine ratios mean nothing.
  const cardRow = (what, unit, pick, agreeText, note, { noRatio = false } = {}) => {
    cardRows.push({ what, unit, ...Object.fromEntries(CARD_ENGINES.map((k) => [k, per(k, pick)])), agree: agreeText, note, ...(noRatio && { noRatio }) });
  };
  const agreeSize = {}, agreeShown = {};
  for (const n of CARD_SIZES) {
    // What the N mounted cards show (text and element counts), every repetition: one output.
    agreeShown[n] = agree(`cards: first paint of ${n}`, Object.fromEntries(CARD_ENGINES.filter(ok).map((k) => [k, C[k].sizes[n].shown])));
    // Every engine, both ways (renderMany and N single renders), every repetition: one output.
    agreeSize[n] = agree(`cards: ${n} embedded renders`, Object.fromEntries(CARD_ENGINES.filter(ok).map((k) => [k, C[k].sizes[n].values])));
  }
  const dispatchAgree = agree('cards: dispatch (last click: patch, changed, render)', Object.fromEntries(CARD_ENGINES.filter(ok).map((k) => [k, C[k].dispatch.values])));
  const nRuns = (n) => `n=${CARD_ENGINES.map((k) => (ok(k) ? C[k].sizes[n].many.length : 0)).join('/')}`;
  const kb = (n) => { const k = CARD_ENGINES.find(ok); return k ? `${(C[k].sizes[n].bytes / 1000).toFixed(0)} KB of render trees` : ''; };
  for (const n of CARD_SIZES) {
    cardRow(`renderMany(${n} × embedded): one round trip`, 'ms', (c) => median(c.sizes[n].many), agreeSize[n], `${nRuns(n)}; ${kb(n)}; page → worker → page, the trees cloned back`);
    cardRow('↳ per card', 'us', (c) => median(c.sizes[n].many) / n, agreeSize[n], '');
    cardRow(`${n} × render(id, 'embedded'): ${n} round trips`, 'ms', (c) => median(c.sizes[n].each), agreeSize[n], `${nRuns(n)}; sequential awaits (the per-card design)`);
    cardRow('↳ per card', 'us', (c) => median(c.sizes[n].each) / n, agreeSize[n], '');
    cardRow(`${n} round trips ÷ renderMany, N = ${n}`, 'x', (c) => median(c.sizes[n].each) / median(c.sizes[n].many), '—', 'per engine: what batching saves');
  }
  for (const n of CARD_SIZES) {
    cardRow(`first paint: ${n} cards on screen`, 'ms', (c) => median(c.sizes[n].paint), agreeShown[n],
      `${nRuns(n)}; renderMany(${n}), then mountCard (isolated-realm/cards) for each render, to the end of the frame that shows them (60 Hz frames: up to 16.7 ms of that is waiting for the frame)`);
    cardRow(`↳ of which mountCard × ${n}`, 'ms', (c) => median(c.sizes[n].mount), agreeShown[n], 'the host shim on the page, synchronous: the same code on the same trees for every engine, so no ratios (its spread is the page\'s JIT, tab to tab)', { noRatio: true });
  }
  const [n1, n2] = CARD_SIZES;
  cardRow(`scaling, renderMany: N = ${n2} ÷ N = ${n1}`, 'x', (c) => median(c.sizes[n2].many) / median(c.sizes[n1].many), '—', `${n2 / n1}.00× is linear (O(N))`);
  cardRow(`scaling, single renders: N = ${n2} ÷ N = ${n1}`, 'x', (c) => median(c.sizes[n2].each) / median(c.sizes[n1].each), '—', `${n2 / n1}.00× is linear`);
  for (const n of CARD_SIZES) {
    cardRow(`renderMany(${n}) inside the worker (no postMessage)`, 'ms', (c) => (c.sizes[n].manyInWorker.length ? median(c.sizes[n].manyInWorker) : null), agreeSize[n],
      'timed in the worker around the engine call: Realm: realm.call (result cloned out of wasm); QuickJS: call + context.dump (JSON); V8: the native call');
  }
  cardRow('dispatch: click → patch + new render, one round trip', 'ms', (c) => median(c.dispatch.samples), dispatchAgree,
    `median of ${CARD_DISPATCHES} sequential clicks on the like button of one card (likes + 1); Compartment: acknowledged by onModelPatch before it resolves`);
  const nCards = Math.max(...CARD_SIZES);
  cardRow(`setup: ${nCards} stored cards loaded in one batch`, 'ms', (c) => c.createMs, '—',
    `untimed in the rows above; Compartment: loadCards (an import round trip, then one for the cards); workers: all in one message`);
  cardRow('↳ per card', 'us', (c) => c.createMs / nCards, '—', '');
  cardRow(`↳ again on a warm engine, loadCards (Compartment only)`, 'ms', (c) => c.createWarmMs ?? null, '—',
    'after every row above and the row below', { noRatio: true });
  cardRow(`↳ again on a warm engine, one createCard each (Compartment only)`, 'ms', (c) => c.createEachMs ?? null, '—',
    'after every row above; sequential awaits, two round trips per card (import, create)', { noRatio: true });
}
if (pageErrors.length) mismatches.push(`page errors: ${[...new Set(pageErrors)].slice(0, 5).join(' | ')}`);
if (external.length) mismatches.push(`requests left the origin: ${external.slice(0, 5).join(', ')}`);

// --- output ---------------------------------------------------------------------------------

const cpus = os.cpus();
let commit = null;
try {
  commit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  // Whatever shapes the package or the measurement; the results themselves do not count.
  const paths = ['src', 'pkg-template', 'patches', 'Cargo.toml', 'Cargo.lock', 'scripts', 'tools/package.json',
    'tools/package-lock.json', 'bench', ':(exclude)bench/results'];
  const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--', ...paths], { encoding: 'utf8' })
    .split('\n').filter(Boolean);
  if (dirty.length) commit += ` (${[...new Set(dirty.map((l) => l.slice(3).split('/')[0]))].join(', ')} modified)`;
} catch { /* not a git checkout */ }
const readVersion = (p) => JSON.parse(readFileSync(join(here, 'node_modules', p, 'package.json'), 'utf8')).version;
const machine = {
  date: new Date().toISOString(),
  cpuCount: cpus.length,
  cpuModel: cpus[0]?.model,
  memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
  platform: `${os.type()} ${os.release()} ${os.arch()}`,
  node: process.version,
  chromium: chromiumVersion,
  chromiumFlags: CHROMIUM_ARGS,
  quickjsEmscripten: readVersion('quickjs-emscripten'),
  playwrightCore: readVersion('playwright-core'),
  commit,
  capMs: CAP_MS,
  wasmBuild: BUILD,
  wasmFile: WASM_FILE,
  wasmSha256: WASM_SHA256,
  pageCsp: raw.pageEval === 'EvalError' ? 'in force (eval refused on the page)' : `NOT in force? eval: ${raw.pageEval}`,
  durationS: +((Date.now() - t0) / 1000).toFixed(1),
  // Other processes compete for the same cores: the 1-minute load average before the run
  // (after it, the figure includes this run), and the CPU time used outside this run.
  loadAverage1m: { start: +loadAtStart[0].toFixed(2), end: +os.loadavg()[0].toFixed(2) },
  cpuTime: cpu.stop(),
};
const durationS = (Date.now() - t0) / 1000;
const otherShare = machine.cpuTime ? machine.cpuTime.otherCpuS / durationS : null; // in cores
const busy = otherShare !== null ? otherShare > 0.1 : machine.loadAverage1m.start > machine.cpuCount * 0.5;

const cell = (v) => (v === 'cap' ? `> cap (${fmtMs(CAP_MS)})` : fmtMs(v));
const ratio = (a, b) => (a === 'cap' || b === 'cap' ? '—' : fmtRatio(a, b));
const md = [];
md.push('# isolated-realm benchmark');
md.push('');
md.push(`${machine.date} · ${machine.cpuCount} × ${machine.cpuModel} · ${machine.memoryGiB} GiB · Chromium ${machine.chromium} (headless) · Node ${machine.node} · quickjs-emscripten ${machine.quickjsEmscripten} (release-sync) · commit ${machine.commit ?? 'unknown'}, ${BUILD === 'small' ? '**size-optimised build** (`isolated_realm_small_bg.wasm`)' : 'default build (`isolated_realm_bg.wasm`)'}, wasm sha256 ${machine.wasmSha256.slice(0, 12)} · run took ${machine.durationS} s · page CSP ${machine.pageCsp}`);
md.push('');
md.push(`Competing work: ${machine.cpuTime ? `other processes used ${machine.cpuTime.otherCpuS} CPU-seconds during the run (${(otherShare * 100).toFixed(0)} % of one core on average; this run used ${machine.cpuTime.ownCpuS})` : 'not measured'}; 1-minute load average ${machine.loadAverage1m.start} before the run, on ${machine.cpuCount} CPUs${busy ? ' — **the machine was busy with other work during this run: expect noisy, slower figures**' : ' — the machine was otherwise quiet'}.`);
md.push('');
md.push(`Medians, one run of \`${BUILD === 'small' ? 'BENCH_WASM=small ' : ''}${ONLY ? `BENCH_ONLY=${ONLY.join(',')} ` : ''}node bench/run.mjs\`. Ratios are isolated-realm ÷ baseline (lower is better; 1.00× = as fast). "agree" checks that every engine returned the same result.`);
if (want('main')) {
  md.push('');
  md.push('| workload | Realm (worker) | Compartment (page) | QuickJS (worker) | V8 (worker) | Realm ÷ V8 | Realm ÷ QuickJS | Comp. ÷ V8 | Comp. ÷ QuickJS | agree | notes |');
  md.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
  for (const r of rows) {
    md.push(`| ${r.what} | ${cell(r.realm)} | ${cell(r.compartment)} | ${cell(r.quickjs)} | ${cell(r.v8)} | ${ratio(r.realm, r.v8)} | ${ratio(r.realm, r.quickjs)} | ${ratio(r.compartment, r.v8)} | ${ratio(r.compartment, r.quickjs)} | ${r.agree} | ${r.note ?? ''} |`);
  }
}
if (!R.fatal && want('main')) {
  md.push('');
  md.push('Boundary baselines, in the same worker as the sync Realm (200 × in + out):');
  md.push('');
  md.push('| model | realm.call(\'identity\', m) | structuredClone in + out | JSON round trip in + out | Realm ÷ structuredClone | Realm ÷ JSON |');
  md.push('|---|---:|---:|---:|---:|---:|');
  for (const bytes of [1000, 100000]) {
    const b = R.boundary[bytes];
    const [x, sc, js] = [median(b.realm.samples), median(b['realm-worker:structuredClone'].samples), median(b['realm-worker:json'].samples)];
    md.push(`| ${bytes / 1000} KB (${b.realm.values.length ? R.boundary[bytes].realm.values[0].split('#')[0] : '?'} B JSON) | ${fmtMs(x)} | ${fmtMs(sc)} | ${fmtMs(js)} | ${fmtRatio(x, sc)} | ${fmtRatio(x, js)} |`);
  }
  const s = R.sizes;
  md.push('');
  md.push('Sizes (node:zlib; gzip level 6 unless noted, brotli quality 11):');
  md.push('');
  md.push('| what | raw | gzip | gzip -9 | brotli |');
  md.push('|---|---:|---:|---:|---:|');
  md.push(`| isolated-realm wasm | ${s.realmWasm.raw.toLocaleString('en-US')} | ${s.realmWasm.gzip.toLocaleString('en-US')} | ${s.realmWasm.gzip9.toLocaleString('en-US')} | ${s.realmWasm.brotli.toLocaleString('en-US')} |`);
  md.push(`| quickjs-emscripten release-sync wasm | ${s.quickjsWasm.raw.toLocaleString('en-US')} | ${s.quickjsWasm.gzip.toLocaleString('en-US')} | ${s.quickjsWasm.gzip9.toLocaleString('en-US')} | ${s.quickjsWasm.brotli.toLocaleString('en-US')} |`);
  md.push(`| main-thread JS (${s.mainThreadJs.files.map((f) => f.file).join(' + ')}) | ${s.mainThreadJs.raw.toLocaleString('en-US')} | ${s.mainThreadJs.gzip.toLocaleString('en-US')} (summed; ${s.mainThreadJs.gzipConcatenated.toLocaleString('en-US')} as one file) | | |`);
}
if (cardRows.length) {
  const cardCell = (v, unit) => (v === null || v === undefined ? '—'
    : unit === 'x' ? `${v.toFixed(2)}×`
      : unit === 'us' ? `${(v * 1000).toFixed(v * 1000 >= 100 ? 0 : 1)} µs`
        : fmtMs(v));
  md.push('');
  md.push('## Cards');
  md.push('');
  md.push(`The card runtime (\`src/cards/runtime.js\`, read by \`server.mjs\` at serve time) and one card module (\`www/cards/list.js\`: a listing card, 10 fields including a list and a compound field, an embedded template in the \`html\` tag with attributes and a like button) in each engine, ${Math.max(...CARD_SIZES)} instances. Compartment: \`createCard\` / \`renderMany\` / \`render\` / \`dispatch\` from the page, the module fetched by the broker from the realm \`/cards/\`. Realm, QuickJS and V8: the same runtime text in a dedicated worker, one request per call (Realm: the card module as a classic script, the sync Realm has no module loader; QuickJS: as a module, the card API from its module loader; V8: as a module, the card-API import pointed at the runtime wrapped as a module). Times on the page around the await unless noted; medians.`);
  md.push('');
  md.push('| cards | Compartment (page) | Realm (worker) | QuickJS (worker) | V8 (worker) | Comp. ÷ V8 | Comp. ÷ QuickJS | agree | notes |');
  md.push('|---|---:|---:|---:|---:|---:|---:|---|---|');
  for (const r of cardRows) {
    const rat = (a, b) => (r.unit === 'x' || r.noRatio ? '—' : fmtRatio(a, b));
    md.push(`| ${r.what} | ${CARD_ENGINES.map((k) => cardCell(r[k], r.unit)).join(' | ')} | ${rat(r.compartment, r.v8)} | ${rat(r.compartment, r.quickjs)} | ${r.agree} | ${r.note ?? ''} |`);
  }
}
if (raw.moduleCache) {
  const m = raw.moduleCache;
  md.push('');
  md.push('## Module parse cache');
  md.push('');
  md.push('Per run, a module never loaded before (a generated card-like module of about 140 KB: 400 classes and functions; `server.mjs` `/modgen/`) imported by one Compartment (the worker parses it), then by a second Compartment of the same principal, in the same worker (the parse is served by the worker\'s cache, keyed by the bytes\' SHA-256). Both timed on the page around `import`: the broker\'s fetch, then load, scope analysis, link and evaluate. Seven runs after one untimed run; medians.');
  md.push('');
  if (m.error) md.push(`**Failed:** ${m.error}`);
  else {
    const miss = median(m.miss);
    const hit = median(m.hit);
    const agreeText = m.exports.every(([a, b]) => a === b && a === m.exports[0][0]) ? 'yes' : '**NO**';
    if (agreeText !== 'yes') mismatches.push(`module cache: the two imports disagree: ${JSON.stringify(m.exports)}`);
    md.push('| import of a 140 KB module | median | runs |');
    md.push('|---|---:|---|');
    md.push(`| first compartment (parse) | ${fmtMs(miss)} | ${m.miss.map(fmtMs).join(', ')} |`);
    md.push(`| second compartment, same worker (cache hit) | ${fmtMs(hit)} | ${m.hit.map(fmtMs).join(', ')} |`);
    md.push(`| saving | ${fmtMs(miss - hit)} (${((1 - hit / miss) * 100).toFixed(0)} %) | same exports: ${agreeText} |`);
    md.push('');
    md.push(`Worker figures at the end (\`pool.workerStats()\`): ${m.stats.moduleCache.hits} hits, ${m.stats.moduleCache.misses} misses, ${m.stats.moduleCache.entries} entries holding ${m.stats.moduleCache.sourceBytes.toLocaleString('en-US')} source bytes, ${m.stats.moduleCache.evictions} evictions.`);
  }
}
if (want('main')) {
  md.push('');
  md.push('## Targets');
  md.push('');
  md.push('| target | measured | result | how |');
  md.push('|---|---|---|---|');
  for (const t of targets) md.push(`| ${t.what} | ${t.measured} | ${t.pass ? 'PASS' : '**FAIL**'} | ${t.how} |`);
}
md.push('');
md.push(`Results agree across engines: ${mismatches.length ? '**NO**' : 'yes'}`);
for (const m of mismatches) md.push(`- ${m}`);
md.push('');
const markdown = md.join('\n');

const outName = (ONLY ? `only-${ONLY.join('-')}` : 'latest') + (BUILD === 'small' ? '-small' : '');
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', `${outName}.md`), markdown);
writeFileSync(join(here, 'results', `${outName}.json`), JSON.stringify({ machine, only: ONLY, rows, targets, cards: { rows: cardRows, engines: CARD_ENGINES, sizes: CARD_SIZES }, mismatches, raw }, null, 2) + '\n');
console.log('');
console.log(markdown);
console.log(`wrote ${join('bench', 'results', `${outName}.json`)} and ${join('bench', 'results', `${outName}.md`)}`);
process.exitCode = mismatches.length ? 2 : 0;
