#!/usr/bin/env bash
# Lints what each package publishes (after the build): publint --strict on the packed files and
# @arethetypeswrong/cli (profile esm-only) on the `pnpm pack` tarball. Fails on the first problem.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kapi-pack.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
for dir in packages/*/; do
  name=$(node -p "require('./${dir}package.json').name")
  (cd "$dir" && pnpm exec publint --strict --pack pnpm >"$work/publint.log" 2>&1) || { cat "$work/publint.log"; exit 1; }
  tarball=$(cd "$dir" && pnpm pack --pack-destination "$work" | tail -n 1)
  pnpm exec attw "$tarball" --profile esm-only --format ascii --no-emoji >"$work/attw.log" 2>&1 || { cat "$work/attw.log"; exit 1; }
  echo "$name: publint and attw clean"
done
# The release as CI can rehearse it (changesets publishes with `pnpm publish`; it has no dry run of its own).
pnpm publish -r --dry-run --no-git-checks >"$work/publish.log" 2>&1 || { cat "$work/publish.log"; exit 1; }
echo "pnpm publish -r --dry-run: ok"
# The release plan of the pending changesets (what `pnpm version-packages` would bump) must be computable.
pnpm exec changeset status >"$work/changeset.log" 2>&1 || { cat "$work/changeset.log"; exit 1; }
echo "changeset status: ok"
