#!/usr/bin/env bash
# Installs what the project needs on a fresh machine (idempotent; prints what it does).
#   scripts/ensure-deps.sh [--with-test-tools]
# Always: pnpm 10, a C++ toolchain for better-sqlite3, the workspace's node_modules.
# With --with-test-tools: etcd (Debian etcd-server), kubectl (Debian kubernetes-client) and headless
# chromium (Debian chromium, for the console's browser test) when missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
log() { echo "[kapi setup] $*"; }

apt_updated=0
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then log "apt-get not available; please install: $*"; return 1; fi
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ "$apt_updated" -eq 0 ]; then log "apt-get update"; $sudo apt-get update -qq >/dev/null; apt_updated=1; fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

if ! command -v pnpm >/dev/null 2>&1; then
  log "installing pnpm 10 (npm i -g pnpm@10)"
  npm i -g pnpm@10 >/dev/null 2>&1 || { log "npm i -g failed; trying corepack"; COREPACK_INTEGRITY_KEYS=0 corepack enable pnpm; }
fi
for tool in g++ make python3; do
  command -v "$tool" >/dev/null 2>&1 || apt_install build-essential python3
done

if [ "${1:-}" = "--with-test-tools" ]; then
  command -v etcd >/dev/null 2>&1 || apt_install etcd-server etcd-client
  command -v kubectl >/dev/null 2>&1 || apt_install kubernetes-client
  command -v chromium >/dev/null 2>&1 || apt_install --no-install-recommends chromium
fi

if [ ! -d node_modules/.pnpm ] || [ pnpm-lock.yaml -nt node_modules/.modules.yaml ]; then
  log "pnpm install (better-sqlite3 builds from source the first time: about a minute)"
  mkdir -p .tmp
  if ! CI=true pnpm install --frozen-lockfile --reporter=append-only > .tmp/pnpm-install.log 2>&1; then
    tail -40 .tmp/pnpm-install.log
    log "pnpm install failed (full log: .tmp/pnpm-install.log)"
    exit 1
  fi
  tail -3 .tmp/pnpm-install.log
fi
log "toolchain ready: node $(node --version), pnpm $(pnpm --version)$(command -v etcd >/dev/null && echo ", $(etcd --version | head -1)")"
