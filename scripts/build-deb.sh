#!/usr/bin/env bash
# The release build of the desktop app as a .deb (Tauri's bundler), then a check of what
# the package holds: the binary, the desktop launcher entry, the icon and the dependencies.
# Needs ui/node_modules (the Tauri CLI) and ui/dist: scripts/test-desktop.sh makes both.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# Builds share one target directory outside the clone (the demo's, CI's and every script's)
# unless CARGO_TARGET_DIR says otherwise.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wikimind/target}"
TARGET=$CARGO_TARGET_DIR
command -v file >/dev/null || {
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq file >/dev/null
}
[ -x ui/node_modules/.bin/tauri ] || (cd ui && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null ||
  npm install --no-audit --no-fund --loglevel=error; })
[ -f ui/dist/index.html ] || (cd ui && npm run --silent build)
rm -rf "$TARGET/release/bundle/deb"
(cd src-tauri && "$ROOT/ui/node_modules/.bin/tauri" build --bundles deb --ci)
bash scripts/check-deb.sh "$TARGET/release/bundle/deb"
