#!/usr/bin/env bash
# Builds the Next.js app unless the last build was made from exactly these sources.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${SHOAL_NEXT_DIST_DIR:-.next}"
stamp=$( (git ls-files -co --exclude-standard -- app components server public scripts/copy-monaco.mjs \
  next.config.js package-lock.json tsconfig.json 2>/dev/null | grep -v '\.test\.ts$' | sort | xargs sha256sum; \
  echo "$dist") | sha256sum | cut -c1-16)
if [ -f "$dist/BUILD_ID" ] && [ "$(cat "$dist/.shoal-stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "[shoal build] up to date"
  exit 0
fi
echo "[shoal build] building the app"
npm run build --silent
echo "$stamp" > "$dist/.shoal-stamp"
