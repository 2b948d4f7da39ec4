#!/usr/bin/env bash
# Installs everything the demo and the tests need, skipping what is already present:
# the wasm32 target, wasm-pack, wasm-bindgen-cli at the Cargo.lock version, Debian's
# chromium + chromedriver, the e2e npm packages, and our patched Boa source. The build
# tools (tools/) are build-pkg.sh's own: it installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, "", $0); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$bindgen_version" ]; then
  say "installing wasm-bindgen-cli $bindgen_version (matches Cargo.lock)"
  cargo install wasm-bindgen-cli --version "$bindgen_version"
fi

if ! command -v wasm-pack >/dev/null 2>&1; then
  say "installing wasm-pack"
  cargo install wasm-pack --version 0.15.1
fi

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  say "installing chromium and chromium-driver from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

if [ ! -d tests/e2e/node_modules/playwright-core ] || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.package-lock.json ]; then
  say "installing e2e packages"
  (cd tests/e2e && npm ci --no-audit --no-fund --silent)
fi

if [ ! -d tests/vite-app/node_modules/vite ] || [ tests/vite-app/package-lock.json -nt tests/vite-app/node_modules/.package-lock.json ]; then
  say "installing the vite test app's packages"
  (cd tests/vite-app && npm ci --no-audit --no-fund --silent)
fi

./scripts/patch-boa.sh
