#!/usr/bin/env bash
# Installs, builds and starts kube-apiserver-lite on the embedded durable store (SQLite) in ./.kapi.
# Extra arguments are passed to the server (see --help).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/ensure-deps.sh
command -v kubectl >/dev/null 2>&1 || echo "[kapi start] note: kubectl is not installed; 'bash scripts/ensure-deps.sh --with-test-tools' installs Debian's kubernetes-client"
echo "[kapi start] building"
pnpm exec turbo run build --filter=@kapi/kube-apiserver-lite... --output-logs=errors-only
exec node apps/kube-apiserver-lite/dist/main.js --storage=sqlite --data-dir="$root/.kapi" "$@"
