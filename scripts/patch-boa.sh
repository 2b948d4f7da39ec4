#!/usr/bin/env bash
# Lays out boa_engine 0.22.0 from crates.io under .patched/ and applies our own
# patches/*.patch to it. Cargo.toml's [patch.crates-io] points there.
# Idempotent: a stamp records which patch set the tree was built from.
set -euo pipefail
cd "$(dirname "$0")/.."
crate=boa_engine-0.22.0
dest=.patched/$crate
stamp_want=$(cat patches/*.patch | sha256sum | cut -d' ' -f1)
if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp_want" ]; then
  exit 0
fi
cargo fetch --quiet --manifest-path patches/fetch/Cargo.toml
cargo_home=${CARGO_HOME:-$HOME/.cargo}
archive=$(ls "$cargo_home"/registry/cache/*/"$crate".crate | head -n1)
rm -rf "$dest" && mkdir -p .patched
tar xzf "$archive" -C .patched
for p in patches/*.patch; do
  patch --quiet -p1 -d "$dest" < "$p"
done
echo "$stamp_want" > "$dest/.stamp"
echo "patched $crate with: $(ls patches/*.patch | xargs -n1 basename | tr '\n' ' ')"
