#!/usr/bin/env bash
# Scaffold a workspace package: scripts/new-package.sh <dir> <packages|apps> "<description>"
set -euo pipefail
dir=$1; kind=${2:-packages}; desc=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
path="$root/$kind/$dir"
mkdir -p "$path/src"
name="@kapi/$dir"
[ -f "$path/package.json" ] || cat > "$path/package.json" <<JSON
{
  "name": "$name",
  "version": "0.1.0",
  "description": "$desc",
  "license": "Apache-2.0",
  "type": "module",
  "sideEffects": false,
  "exports": {
    ".": {
      "@kapi/source": "./src/index.ts",
      "types": "./dist/index.d.ts",
      "import": "./dist/index.js"
    },
    "./package.json": "./package.json"
  },
  "files": ["dist"],
  "scripts": {
    "build": "tsup",
    "typecheck": "tsc -p tsconfig.json",
    "test": "vitest run --project $dir --root ../.."
  },
  "dependencies": {},
  "devDependencies": {}
}
JSON
[ -f "$path/tsconfig.json" ] || cat > "$path/tsconfig.json" <<JSON
{ "extends": "../../tsconfig.base.json", "include": ["src"] }
JSON
[ -f "$path/tsup.config.ts" ] || cat > "$path/tsup.config.ts" <<TS
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
});
TS
[ -f "$path/README.md" ] || printf '# %s\n\n%s\n' "$name" "$desc" > "$path/README.md"
[ -f "$path/src/index.ts" ] || echo "export {};" > "$path/src/index.ts"
echo "scaffolded $path"
