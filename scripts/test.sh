#!/usr/bin/env bash
# Every test tier: the core natively, the core and bindings as wasm in a page and in a
# dedicated worker, then the built package end to end in Debian's Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
target_dir=${CARGO_TARGET_DIR:-target}
disk_free() { df -h --output=avail . | tail -1 | tr -d ' '; }
# PRUNE_BUILDS=1 (set by .ci/run) drops each tier's build once it has passed, so the disk
# holds one tier's build at a time (about 0.8 GB instead of 2.5 GB). The tiers share only
# host build scripts and proc macros, which take seconds to rebuild.
prune() {
  [ "${PRUNE_BUILDS:-0}" = 1 ] || return 0
  for d in "$@"; do rm -rf "${target_dir:?}/$d"; done
  echo "== pruned $*; disk free: $(disk_free)"
}
echo "== disk free before the builds: $(disk_free)"
echo "== native (cargo test --features speed)"
# With the package wasm's Boa features (inlined frames, direct calls). `wasm-pack test`
# below runs the engine without them, so both sides of each feature run in one tier or another.
cargo test --features speed
prune debug
echo "== native, release: scaling of string and regex builtins (timing needs an optimised build)"
cargo test --release --test engine string_and_regex_operations_scale_linearly -- --include-ignored
prune release
echo "== wasm in headless Chrome: page and dedicated worker (wasm-pack test)"
# The runner gives each test file 20 s by default; the core suite in an unoptimised build
# takes about 17 s here and more on a slower machine, so allow it time.
# chromedriver leaves each session's Chromium profile, HTTP cache of the test wasm included,
# in TMPDIR: a dozen per run. Give it a directory of ours and remove it.
chrome_tmp=$(mktemp -d)
trap 'rm -rf "$chrome_tmp"' EXIT
TMPDIR="$chrome_tmp" WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-600}" CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome
rm -rf "$chrome_tmp"
prune debug wasm32-unknown-unknown/debug
echo "== package build"
./scripts/build-pkg.sh
echo "== end to end in Chromium (playwright-core)"
node --test --test-concurrency=1 tests/e2e/
echo "== disk free after: $(disk_free); $target_dir holds $(du -sh "$target_dir" | cut -f1)"
