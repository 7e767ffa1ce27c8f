#!/usr/bin/env bash
# `make test`: lint, typecheck, unit, integration (real Docker), end-to-end (real Chromium).
# Every stage runs even when an earlier one fails, so one run shows everything that is wrong;
# the exit status is non-zero when any stage failed, and the last line counts the tests.
set -uo pipefail
cd "$(dirname "$0")/.."
results=$(mktemp -d)
failed=()

stage() {
  local name=$1; shift
  printf '\n==> %s\n' "$name"
  if ! "$@"; then failed+=("$name"); fi
}

stage lint npm run lint --silent
stage typecheck npm run typecheck --silent
stage unit npx vitest run --project unit --reporter=default --reporter=json --outputFile="$results/unit.json"
stage integration npx vitest run --project integration --reporter=default --reporter=json --outputFile="$results/integration.json"
stage e2e env PLAYWRIGHT_JSON_OUTPUT_NAME="$results/e2e.json" npx playwright test -c e2e/playwright.config.ts --reporter=list,json

node scripts/test-summary.mjs "$results"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'Failed stages: %s\n' "${failed[*]}"
  exit 1
fi
