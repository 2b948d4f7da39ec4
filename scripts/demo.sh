#!/usr/bin/env bash
# Builds the package and serves the demo on http://127.0.0.1:${PORT:-8080}/
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build-pkg.sh
exec node scripts/serve.mjs
