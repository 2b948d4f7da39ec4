#!/usr/bin/env bash
# Builds the npm package into pkg/: the release wasm, wasm-bindgen's web glue (with the
# reset hook our crash containment uses), and the hand-written shims from pkg-template/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target_dir=${CARGO_TARGET_DIR:-target}
cargo build --release --target wasm32-unknown-unknown
rm -rf pkg && mkdir -p pkg
wasm-bindgen --target web --experimental-reset-state-function --out-dir pkg \
  "$target_dir/wasm32-unknown-unknown/release/isolated_realm.wasm"
cp pkg-template/*.js pkg-template/*.d.ts pkg-template/package.json README.md pkg/
rm -f pkg/isolated_realm.d.ts pkg/isolated_realm_bg.wasm.d.ts
printf '[build-pkg] wasm %s bytes (%s gzipped)\n' \
  "$(stat -c %s pkg/isolated_realm_bg.wasm)" "$(gzip -9c pkg/isolated_realm_bg.wasm | wc -c)"
