#!/usr/bin/env bash
# Runs the benchmark scenarios (each beside its control); prints tables and writes bench/results/*.json.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/ensure-deps.sh --with-test-tools
pnpm exec turbo run build --output-logs=errors-only
# The packages run from their built dist (what `npm start` runs); only the bench's own files go through tsx.
# The servers under test (and their in-process controls) run in this process, with npm start's node flags.
cd bench && exec node --max-semi-space-size=64 --import tsx src/main.ts "$@"
