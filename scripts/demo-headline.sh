#!/usr/bin/env bash
# The demo's headline: the best-grounded page of the wiki in $WIKIMIND_DATA_DIR with its
# sourced claims and their quotes. scripts/demo.sh sources this file and calls
# `demo_headline BIN`; run on its own it does the same:
#
#   bash scripts/demo-headline.sh DIR    # DIR holds the `wikimind` binary
#
# The best-grounded page has the most sourced claims (then the most sources, then the first
# title): a page fed by many notes may hold few claims a note backs. A page whose last
# rewrite was refused says so in one line, the page's `flagged` reason, above the version it
# kept; when its first write was refused, nothing was kept, and the line says that instead.

# The title of the page with the most sourced claims. `wikimind list` prints a page a line:
# `TITLE   N sources[, to rewrite]; S sourced, I inferred, O opinion` (saved answers are
# listed apart, indented, and are not headlines).
demo_best_page() {
  "$1/wikimind" list |
    sed -n -E 's/^([^ ].*[^ ]|[^ ]) +([0-9]+) sources?(, to rewrite)?; ([0-9]+) sourced, [0-9]+ inferred, [0-9]+ opinion$/\4\t\2\t\1/p' |
    sort -t "$(printf '\t')" -k1,1nr -k2,2nr -k3,3 | sed -n 1p | cut -f3
}

# A top-level string or number field of `wikimind --json show` (one JSON line): its value
# on one line (escapes read, line breaks as spaces), empty when it is null or absent.
# `"key":` can only be a key (in a string its quotes are escaped), and the page's own
# fields come last but for `suggestions`, whose objects have a `version` too: that array
# is cut off first, then the last match is the page's.
demo_json_field() {
  local field=$1
  sed -e 's/,"suggestions":\[.*$//' |
    sed -n -E "s/^\{.*\"$field\":(\"(([^\"\\\\]|\\\\.)*)\"|([0-9]+)).*/\2\4/p" |
    sed -e 's/\\n/ /g' -e 's/\\"/"/g' -e 's/\\\\/\\/g' | sed -n 1p
}

demo_headline() {
  local bin=$1 first json flagged version claims
  first=$(demo_best_page "$bin")
  if [ -z "$first" ]; then
    echo "(no pages yet)"
    return 0
  fi
  echo "== the best-grounded page: $first"
  json=$("$bin/wikimind" --json show "$first")
  flagged=$(printf '%s\n' "$json" | demo_json_field flagged)
  version=$(printf '%s\n' "$json" | demo_json_field version)
  if [ -n "$flagged" ]; then
    if [ "${version:-0}" = 0 ]; then
      echo "Its first write was refused, so nothing was kept: $flagged"
      return 0
    fi
    echo "Its last rewrite was refused; this is version $version, the one kept: $flagged"
  fi
  # Its sourced claims, each with the quote found in a note: `show` numbers its key claims
  # (`1. [sourced] claim — "quote" [source #3]`).
  claims=$("$bin/wikimind" show "$first" | sed -n '/^## Key claims/,/^$/p' |
    grep -E '^[0-9]+\. \[sourced\]' || true)
  if [ -n "$claims" ]; then
    printf '%s\n' "$claims"
  else
    echo "(no sourced claims on this page)"
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  if [ $# -ne 1 ]; then
    echo "usage: bash scripts/demo-headline.sh DIR (the folder holding the wikimind binary)" >&2
    exit 2
  fi
  demo_headline "$1"
fi
