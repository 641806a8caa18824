#!/usr/bin/env bash
# Builds and starts the sample aggregated server (apps/aggregated-server, group wardle.example.com) against
# the server `npm start` runs (its admin kubeconfig in ./.kapi); its own SQLite store and certificates go in
# ./.wardle. It registers itself (Service, EndpointSlice, APIServices, RBAC) on that server.
# Extra arguments are passed to the aggregated server (see --help).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
kubeconfig="$root/.kapi/admin.kubeconfig"
if [ ! -f "$kubeconfig" ]; then
  echo "[kapi start:aggregated] $kubeconfig not found: start the main server first (npm start)" >&2
  exit 1
fi
echo "[kapi start:aggregated] building"
pnpm exec turbo run build --filter=@kapi/aggregated-server... --output-logs=errors-only
exec node apps/aggregated-server/dist/main.js --kubeconfig="$kubeconfig" --data-dir="$root/.wardle" "$@"
