#!/usr/bin/env bash
# Builds the default snapshot image (shoal-snapshot:debian-bookworm) without any container
# registry: Debian's debootstrap writes a minimal root file system, `docker import` turns it
# into an image. When a registry happens to be reachable, `docker pull` + `docker build` is used.
set -euo pipefail

IMAGE="${SHOAL_DEFAULT_IMAGE:-shoal-snapshot:debian-bookworm}"
TOOLS="bash,git,curl,ca-certificates,procps,less,vim-tiny,nano,openssh-sftp-server"
say() { printf '[shoal setup] %s\n' "$*"; }

# The recipe (this script) is stamped on the image, so editing it rebuilds the image once.
recipe=$(sha256sum "$0" | cut -c1-16)
current=$(docker image inspect -f '{{ index .Config.Labels "shoal.recipe" }}' "$IMAGE" 2>/dev/null || true)
if [ "$current" = "$recipe" ]; then
  say "snapshot image $IMAGE is up to date"
  exit 0
fi

if timeout 20 docker pull debian:bookworm-slim >/dev/null 2>&1; then
  say "building $IMAGE from debian:bookworm-slim"
  docker build -q -t "$IMAGE" - >/dev/null <<DOCKERFILE
FROM debian:bookworm-slim
LABEL shoal.recipe=$recipe
RUN apt-get update && apt-get install -y --no-install-recommends ${TOOLS//,/ } && rm -rf /var/lib/apt/lists/*
RUN mkdir -p /workspace
WORKDIR /workspace
ENV LANG=C.UTF-8 SHELL=/bin/bash
CMD ["sleep", "infinity"]
DOCKERFILE
  exit 0
fi

say "no container registry reachable; building $IMAGE with debootstrap (about a minute)"
if ! command -v debootstrap >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null
fi

# Use the machine's own Debian mirror (the only one reachable here).
mirror=$( (grep -hoE '^(URIs:|deb) *https?://[^ ]+' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true) \
  | grep -oE 'https?://[^ ]+' | grep -v -- '-security' | head -1 || true)
mirror="${mirror:-http://deb.debian.org/debian}"

rootfs=$(mktemp -d /tmp/shoal-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
if ! debootstrap --variant=minbase --include="$TOOLS" bookworm "$rootfs" "$mirror" >/tmp/shoal-debootstrap.log 2>&1; then
  say "debootstrap failed; see /tmp/shoal-debootstrap.log"
  tail -20 /tmp/shoal-debootstrap.log >&2
  exit 1
fi
mkdir -p "$rootfs/workspace"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import \
  --change 'WORKDIR /workspace' \
  --change 'ENV LANG=C.UTF-8 SHELL=/bin/bash PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["sleep", "infinity"]' \
  --change "LABEL shoal.recipe=$recipe" \
  - "$IMAGE" >/dev/null
say "built $IMAGE"
