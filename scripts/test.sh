#!/usr/bin/env bash
# Every test tier: the core natively, the core and bindings as wasm in a page and in a
# dedicated worker, then the built package end to end in Debian's Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
echo "== disk free before the builds: $(df -h --output=avail . | tail -1 | tr -d ' ')"
echo "== native (cargo test)"
cargo test
echo "== native, release: scaling of string and regex builtins (timing needs an optimised build)"
cargo test --release --test engine string_and_regex_operations_scale_linearly -- --include-ignored
echo "== wasm in headless Chrome: page and dedicated worker (wasm-pack test)"
# The runner gives each test file 20 s by default; the core suite in an unoptimised build
# takes about 17 s here and more on a slower machine, so allow it time.
# chromedriver leaves each session's Chromium profile, HTTP cache of the test wasm included,
# in TMPDIR: a dozen per run. Give it a directory of ours and remove it.
chrome_tmp=$(mktemp -d)
trap 'rm -rf "$chrome_tmp"' EXIT
TMPDIR="$chrome_tmp" WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-600}" CHROMEDRIVER=/usr/bin/chromedriver wasm-pack test --headless --chrome
rm -rf "$chrome_tmp"
echo "== package build"
./scripts/build-pkg.sh
echo "== end to end in Chromium (playwright-core)"
node --test --test-concurrency=1 tests/e2e/
echo "== disk free after: $(df -h --output=avail . | tail -1 | tr -d ' '); target/ holds $(du -sh target | cut -f1)"
