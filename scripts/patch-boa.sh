#!/usr/bin/env bash
# Lays out the crates we patch (Boa 0.22.0's boa_engine, boa_gc, boa_parser, boa_string, and
# its regex engine, regress 0.12.0) from crates.io under .patched/ and applies our own
# patches/<crate>-*.patch to each. Cargo.toml's [patch.crates-io] points there. Idempotent: a
# stamp per crate records which patch set its tree was built from.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo_home=${CARGO_HOME:-$HOME/.cargo}
fetched=
for crate in boa_engine-0.22.0 boa_gc-0.22.0 boa_parser-0.22.0 boa_string-0.22.0 regress-0.12.0; do
  name=${crate%-*}
  dest=.patched/$crate
  stamp_want=$(cat patches/"$name"-*.patch | sha256sum | cut -d' ' -f1)
  if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp_want" ]; then
    continue
  fi
  if [ -z "$fetched" ]; then
    cargo fetch --quiet --manifest-path patches/fetch/Cargo.toml
    fetched=1
  fi
  archive=$(ls "$cargo_home"/registry/cache/*/"$crate".crate | head -n1)
  rm -rf "$dest" && mkdir -p .patched
  tar xzf "$archive" -C .patched
  for p in patches/"$name"-*.patch; do
    patch --quiet -p1 -d "$dest" < "$p"
  done
  # The archive's files carry 2006 dates: date them now, or cargo would keep a build of a
  # file that a removed patch put back as it was.
  find "$dest" -type f -exec touch {} +
  echo "$stamp_want" > "$dest/.stamp"
  echo "patched $crate with: $(ls patches/"$name"-*.patch | xargs -n1 basename | tr '\n' ' ')"
done
