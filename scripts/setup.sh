#!/usr/bin/env bash
# `make setup`: installs whatever Shoal needs that is missing, and nothing else. Safe to run
# again: every step checks first, so a second run takes a few seconds and changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[shoal setup] %s\n' "$*"; }
fail() { printf '[shoal setup] ERROR: %s\n' "$*" >&2; exit 1; }

apt_updated=0
apt_install() {
  local missing=()
  for package in "$@"; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || fail "need root to install ${missing[*]} (run as root, or install them yourself)"
  if [ $apt_updated -eq 0 ]; then
    say "apt-get update"
    apt-get update -qq >/dev/null
    apt_updated=1
  fi
  say "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# 1. Node.js (the machine's own; Shoal needs 20.9 or newer).
command -v node >/dev/null || fail "Node.js 20.9+ is required (https://nodejs.org or Debian's nodejs)"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=9)?0:1)' \
  || fail "Node.js 20.9+ is required, found $(node --version)"

# 2. npm packages, reinstalled only when package-lock.json changed.
lock_hash=$(sha256sum package-lock.json | cut -c1-16)
if [ "$(cat node_modules/.shoal-lock 2>/dev/null)" != "$lock_hash" ]; then
  say "installing npm packages (native modules build from source; a few minutes the first time)"
  # Not `npm ci`: this npm records foreign-platform optional packages (swc for macOS…) in no
  # lock file it writes, then refuses its own lock in `npm ci`. `install --no-save` installs
  # the locked tree and never rewrites the lock.
  npm install --no-save --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > node_modules/.shoal-lock
else
  say "npm packages are up to date"
fi

# 3. Packages from Debian: the Docker engine, debootstrap (snapshot image without a registry),
#    Chromium (end-to-end tests), the OpenSSH client (SSH gateway tests).
packages=(chromium openssh-client)
command -v dockerd >/dev/null || packages+=(docker.io)
command -v debootstrap >/dev/null || packages+=(debootstrap)
apt_install "${packages[@]}"

# 4. The Docker engine must answer; start it in the background when it does not.
if ! docker info >/dev/null 2>&1; then
  if [ -n "${DOCKER_HOST:-}" ]; then fail "DOCKER_HOST=$DOCKER_HOST does not answer"; fi
  say "starting the Docker engine (log: /var/log/dockerd.log)"
  nohup dockerd >/var/log/dockerd.log 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || fail "the Docker engine did not start; see /var/log/dockerd.log"
fi
say "Docker engine $(docker version -f '{{.Server.Version}}') is running"

# 5. The default snapshot image.
bash scripts/build-snapshot-image.sh
say "ready"
