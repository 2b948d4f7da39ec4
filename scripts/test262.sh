#!/usr/bin/env bash
# Runs test262 directories through our Realm (examples/test262.rs) and prints pass/fail
# counts per directory. test262 is never part of this repository: pass a checkout with
# TEST262=/path/to/test262, or point TEST262_GIT at a (bare) clone of tc39/test262 and the
# files are exported under target/test262 once.
#
#   ./scripts/test262.sh                                # the string and regex directories
#   ./scripts/test262.sh built-ins/String/prototype/at  # any directories under test/
#   FAILURES=/tmp/failures.txt VERBOSE=1 ./scripts/test262.sh
#   FEATURES=speed ./scripts/test262.sh                # with the default wasm's Boa features
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/patch-boa.sh
if [ -z "${TEST262:-}" ]; then
  TEST262=target/test262
  if [ ! -f "$TEST262/harness/assert.js" ]; then
    git_dir=${TEST262_GIT:-/work/.mirror/tc39+test262/repo}
    if [ ! -d "$git_dir" ]; then
      echo "no test262: set TEST262 to a checkout or TEST262_GIT to a clone of tc39/test262" >&2
      exit 2
    fi
    rm -rf "$TEST262" && mkdir -p "$TEST262"
    git --git-dir="$git_dir" archive HEAD harness test/built-ins/String test/built-ins/RegExp \
      | tar x -C "$TEST262"
    git --git-dir="$git_dir" rev-parse HEAD > "$TEST262/COMMIT"
  fi
fi
if [ "$#" -eq 0 ]; then
  set -- built-ins/String/prototype/{split,indexOf,replace,replaceAll,lastIndexOf,includes} \
    built-ins/RegExp/prototype/{exec,Symbol.split,Symbol.replace,Symbol.match,Symbol.matchAll}
fi
args=("$TEST262" "$@")
[ -n "${FAILURES:-}" ] && args+=(--failures "$FAILURES")
[ -n "${VERBOSE:-}" ] && args+=(--verbose)
[ -f "$TEST262/COMMIT" ] && echo "test262 $(cat "$TEST262/COMMIT")"
cargo run --quiet ${FEATURES:+--features "$FEATURES"} --example test262 -- "${args[@]}"
