#!/usr/bin/env bash
# The demo as a newcomer runs it, against the scripted test server: `bash scripts/demo.sh
# --with-test-server --terminal` into a fresh data dir, then a check that its headline page
# shows its sourced claims (it once printed "(no sourced claims on this page)" for every
# page). Release builds, shared with the demo through the one target directory.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wikimind/target}"

data=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$data" "$out"' EXIT
WIKIMIND_DATA_DIR="$data" bash scripts/demo.sh --with-test-server --terminal >"$out" 2>&1 || {
  cat "$out"
  echo "scripts/demo.sh failed" >&2
  exit 1
}
# The headline, then at least one numbered sourced claim with its quote right below it.
if ! sed -n '/^== the best-grounded page: /,/^== figures/p' "$out" |
  grep -Eq '^1\. \[sourced\] .* — ".+"'; then
  cat "$out"
  echo "the demo's headline page shows no sourced claim" >&2
  exit 1
fi
if grep -q "no sourced claims on this page" "$out"; then
  cat "$out"
  echo "the demo's headline says it has no sourced claims" >&2
  exit 1
fi
echo "the demo's headline: $(grep -m1 '^== the best-grounded page: ' "$out" | cut -d: -f2-)"
