#!/usr/bin/env bash
# The packages as a third party gets them: packs every package with `pnpm pack` (after the build), installs
# the tarballs with npm into an empty project outside the workspace (other dependencies from the registry),
# type-checks the custom apiserver of docs/custom-apiserver.md and the example of packages/server/README.md
# there with tsc --strict, then runs the apiserver and checks it over HTTPS (scripts/consumer/check.mjs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kapi-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"

mkdir -p "$work/tarballs" "$work/app/src"
for dir in packages/*/; do
  (cd "$dir" && pnpm pack --pack-destination "$work/tarballs" >/dev/null)
done

# The first ```ts block of a markdown file.
extract() { node -e '
const text = require("fs").readFileSync(process.argv[1], "utf8");
const match = /```ts\n([\s\S]*?)```/.exec(text);
if (!match) { console.error(`no ts block in ${process.argv[1]}`); process.exit(1); }
process.stdout.write(match[1]);' "$1"; }
extract docs/custom-apiserver.md >"$work/app/src/main.ts"
extract packages/server/README.md >"$work/app/src/server-readme-example.ts"
cp scripts/consumer/tsconfig.json scripts/consumer/check.mjs "$work/app/"

# Packages with native or heavy dependencies (better-sqlite3, etcd3/grpc) are packed and linted, not installed.
node -e '
const fs = require("fs");
const [work, tsVersion, nodeTypes] = process.argv.slice(1);
const dependencies = {};
for (const file of fs.readdirSync(`${work}/tarballs`)) {
  const name = file.replace(/^kapi-(.*)-\d+\.\d+\.\d+.*\.tgz$/, "@kapi/$1");
  if (name === "@kapi/storage-sqlite" || name === "@kapi/storage-etcd3") continue;
  dependencies[name] = `file:../tarballs/${file}`;
}
fs.writeFileSync(`${work}/app/package.json`, JSON.stringify({
  name: "kapi-consumer", private: true, type: "module",
  dependencies, overrides: dependencies,
  devDependencies: { typescript: tsVersion, "@types/node": nodeTypes },
}, null, 2));
' "$work" "$(node -p 'require("./node_modules/typescript/package.json").version')" "^20.19.0"

cd "$work/app"
npm install --no-audit --no-fund --loglevel=error >/dev/null
npx tsc -p tsconfig.json
node check.mjs
