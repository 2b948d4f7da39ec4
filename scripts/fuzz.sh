#!/usr/bin/env bash
# Runs the cargo-fuzz targets natively, one after another, each for N executions.
#
#   ./scripts/fuzz.sh                  # every target, 1,000,000 executions each
#   ./scripts/fuzz.sh 200000 eval      # one target, 200,000 executions
#   SANITIZER=none ./scripts/fuzz.sh   # without AddressSanitizer (faster)
#
# Targets (fuzz/fuzz_targets/, logic in tests/shared/fuzz_harness.rs):
#   boundary  host -> guest boundary values: structured graphs into a realm and back out
#   eval      guest source under small limits in a long-lived realm
#   protocol  sequences of worker protocol messages through Dispatcher::handle
#
# One process per target, one target at a time (no -jobs/-workers): the machine is shared.
# The corpus grows in fuzz/corpus/<target> (seeded from fuzz/seeds/<target>); crashes land
# in fuzz/artifacts/<target>. Minimise one with
#   cargo +nightly fuzz tmin <target> fuzz/artifacts/<target>/crash-...
# and commit it under fuzz/regressions/<target>/ with a descriptive name:
# tests/fuzz_regressions.rs replays every file there on stable `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

runs=${1:-1000000}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(boundary eval protocol)
sanitizer=${SANITIZER:-address}
toolchain=${FUZZ_TOOLCHAIN:-nightly}

./scripts/patch-boa.sh
if ! rustup toolchain list | grep -q "^$toolchain"; then
  rustup toolchain install "$toolchain" --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz
fi

for target in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
  seeds=()
  [ -d "fuzz/seeds/$target" ] && seeds=("fuzz/seeds/$target")
  echo "== $target: $runs executions (sanitizer: $sanitizer)"
  start=$(date +%s)
  # Leak detection is off: realms live across inputs by design, and Boa's collector keeps
  # cycles until the context goes.
  ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
    cargo "+$toolchain" fuzz run --sanitizer "$sanitizer" "$target" \
    "fuzz/corpus/$target" "${seeds[@]}" -- \
    -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=4096 -detect_leaks=0 \
    -print_final_stats=1
  echo "== $target: done in $(( $(date +%s) - start )) s"
done
