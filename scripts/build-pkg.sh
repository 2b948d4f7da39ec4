#!/usr/bin/env bash
# Builds the npm package into pkg/: the release wasm, wasm-bindgen's web glue (with the
# reset hook our crash containment uses), and the hand-written shims from pkg-template/
# (the main-thread ones minified, with source maps).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target_dir=${CARGO_TARGET_DIR:-target}
# The build tools (tools/package.json): terser, esbuild, binaryen. esbuild's launcher needs
# its platform package (an optional dependency): ask it to run.
if [ ! -d tools/node_modules/terser ] || ! tools/node_modules/.bin/esbuild --version >/dev/null 2>&1 \
  || ! tools/node_modules/.bin/wasm-opt --version >/dev/null 2>&1 \
  || [ tools/package-lock.json -nt tools/node_modules/.package-lock.json ]; then
  echo "[build-pkg] installing the build tools (terser, esbuild, binaryen)"
  (cd tools && npm ci --no-audit --no-fund --silent)
fi
# The registry's sources are named by their path inside it, not this machine's (panic
# locations are strings in the wasm): the package is the same whoever builds it, and the
# small wasm 350 bytes smaller gzipped. Joined with .cargo/config.toml's flags.
remap=
for src in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  remap="$remap --remap-path-prefix=$src="
done
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="${remap# }"
cargo build --release --target wasm32-unknown-unknown --features speed
# The same crate optimised for size (Cargo.toml's release-small profile), shipped beside it.
# `speed` too: 4 KB more gzipped, still under 1.5 MB, and guest code 5-16 % faster (README,
# "Build profile").
cargo build --profile release-small --target wasm32-unknown-unknown --features speed
rm -rf pkg && mkdir -p pkg
wasm-bindgen --target web --experimental-reset-state-function --out-dir pkg \
  "$target_dir/wasm32-unknown-unknown/release/isolated_realm.wasm"
small=$(mktemp -d)
trap 'rm -rf "$small"' EXIT
wasm-bindgen --target web --experimental-reset-state-function --out-dir "$small" \
  "$target_dir/wasm32-unknown-unknown/release-small/isolated_realm.wasm"
# One glue file serves both wasm files: they must import and export exactly the same.
if ! cmp -s "$small/isolated_realm.js" pkg/isolated_realm.js; then
  echo "[build-pkg] the release-small wasm needs different JS glue from the release one" >&2
  diff "$small/isolated_realm.js" pkg/isolated_realm.js | head -20 >&2
  exit 1
fi
cp "$small/isolated_realm_bg.wasm" pkg/isolated_realm_small_bg.wasm
# binaryen's -O3 over the default build: guest code up to 9 % faster in Chromium (README,
# "Build profile"). A function with one caller is inlined only up to 100 instructions: with
# no cap, fib ran 6 % faster but a fresh tab's first compartment started 25-38 ms later (V8
# compiles each function whole on its first call). Not over the small build: it grows that
# gzipped, past the 1.5 MB target. It takes about a minute, so its output is kept by its
# input's hash.
opt_flags="-O3 --one-caller-inline-max-function-size=100 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals --enable-multivalue --enable-reference-types"
opt_key=$( (sha256sum pkg/isolated_realm_bg.wasm; echo "$opt_flags"; cat tools/node_modules/binaryen/package.json) | sha256sum | cut -c1-32)
opt_cache="$target_dir/wasm-opt/$opt_key.wasm"
if [ ! -f "$opt_cache" ]; then
  mkdir -p "$target_dir/wasm-opt"
  rm -f "$target_dir"/wasm-opt/*.wasm "$target_dir"/wasm-opt/*.tmp
  # shellcheck disable=SC2086 # the flags are words
  tools/node_modules/.bin/wasm-opt $opt_flags pkg/isolated_realm_bg.wasm -o "$opt_cache.tmp"
  mv "$opt_cache.tmp" "$opt_cache"
fi
cp "$opt_cache" pkg/isolated_realm_bg.wasm
cp pkg-template/*.js pkg-template/*.d.ts pkg-template/package.json README.md pkg/
rm -f pkg/isolated_realm.d.ts pkg/isolated_realm_bg.wasm.d.ts
# The compartment worker is one script: a module worker fetches each import only once it
# has parsed the file that names it, so worker.js -> glue -> snippets was three round trips
# in a row on every cold start (about 20 ms of a fresh tab's 145 ms in Chromium here).
# Not minified: it is not main-thread JS, and its stack traces stay readable.
tools/node_modules/.bin/esbuild pkg/worker.js --bundle --format=esm --log-level=warning \
  --allow-overwrite --outfile=pkg/worker.js --metafile="$small/worker-meta.json"
# esbuild's own account of what the output still imports must be empty, and nothing may be
# fetched relative to the bundle's URL.
node -e '
  const meta = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const left = Object.values(meta.outputs).flatMap((o) => o.imports.map((i) => i.path));
  const src = require("fs").readFileSync("pkg/worker.js", "utf8");
  if (left.length || /\bimport\.meta\b|\bimportScripts\b|\bimport\s*\(/.test(src)) {
    console.error(`[build-pkg] pkg/worker.js still loads code after bundling: ${left.join(", ") || "import.meta, importScripts or import()"}`);
    process.exit(1);
  }' "$small/worker-meta.json"
# The page loads these: shipped minified, each with a source map that carries the original
# source (a browser fetches it only with its devtools open). Class and function names stay,
# so errors and stack traces read the same.
for f in index.js client.js errors.js cards.js; do
  # `Worker` keeps its name: bundlers recognise `new Worker(new URL(...))` literally.
  tools/node_modules/.bin/terser "pkg-template/$f" --module --compress --mangle "reserved=[Worker]" \
    --keep-classnames --keep-fnames \
    --source-map "includeSources,url='$f.map'" -o "pkg/$f"
done
printf '[build-pkg] wasm %s bytes (%s gzipped); small wasm %s bytes (%s gzipped); main-thread JS %s bytes gzipped\n' \
  "$(stat -c %s pkg/isolated_realm_bg.wasm)" "$(gzip -9c pkg/isolated_realm_bg.wasm | wc -c)" \
  "$(stat -c %s pkg/isolated_realm_small_bg.wasm)" "$(gzip -9c pkg/isolated_realm_small_bg.wasm | wc -c)" \
  "$(cat pkg/index.js pkg/client.js pkg/errors.js | gzip -9c | wc -c)"
