#!/usr/bin/env bash
# Runs the benchmark scenarios (each beside its control); prints tables and writes bench/results/*.json.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/ensure-deps.sh --with-test-tools
pnpm exec turbo run build --output-logs=errors-only
# The packages run from their built dist (what `npm start` runs); only the bench's own files go through tsx.
cd bench && exec pnpm exec tsx src/main.ts "$@"
