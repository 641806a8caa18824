#!/usr/bin/env bash
# The whole test suite on a fresh clone: installs what is missing, type-checks, builds, runs every test
# (unit, conformance on memory/SQLite/real etcd, e2e with kubectl and @kubernetes/client-node).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/ensure-deps.sh --with-test-tools
echo "[kapi test] typecheck"
pnpm exec tsc -p tsconfig.json
echo "[kapi test] lint"
pnpm exec eslint .
echo "[kapi test] build"
pnpm exec turbo run build --output-logs=errors-only
echo "[kapi test] packages (publint, attw, a third-party consumer of the packed tarballs)"
bash scripts/check-packages.sh
bash scripts/test-consumer.sh
echo "[kapi test] one package's own test script (pnpm test from its folder)"
(cd packages/storage && pnpm test)
echo "[kapi test] vitest"
mkdir -p .tmp
status=0
pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest.json "$@" || status=$?
node -e '
const r = require("./.tmp/vitest.json");
const skipped = r.numPendingTests + (r.numTodoTests || 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' || true
exit $status
