#!/usr/bin/env bash
# The desktop app's checks: installs what it needs, builds the app, runs the front-end
# unit tests, the bindings-drift check, clippy on the app crate, and the end-to-end test of
# the real window under Xvfb (tauri-driver + WebKitWebDriver, local test server).
#
#   bash scripts/test-desktop.sh           # everything above
#   WIKIMIND_DEB=1 bash scripts/test-desktop.sh   # also the release build and its .deb
#
# Screenshots and driver logs land in $WIKIMIND_ARTIFACTS (default
# $CARGO_TARGET_DIR/desktop-artifacts, ~/.cache/wikimind/target/desktop-artifacts unless set).
# WIKIMIND_E2E="ui/e2e/health.test.mjs" runs only the end-to-end files it lists.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# Builds share one target directory outside the clone (the demo's, CI's and every script's)
# unless CARGO_TARGET_DIR says otherwise.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wikimind/target}"
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
TARGET=$CARGO_TARGET_DIR
ARTIFACTS=${WIKIMIND_ARTIFACTS:-$TARGET/desktop-artifacts}

need_apt=()
for pkg in build-essential pkg-config libdbus-1-dev libwebkit2gtk-4.1-dev webkit2gtk-driver xvfb xauth imagemagick dbus-daemon gnome-keyring; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  echo "== apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if ! command -v tauri-driver >/dev/null; then
  echo "== cargo install tauri-driver"
  cargo install tauri-driver --locked --quiet
fi
command -v npm >/dev/null || { echo "node and npm are needed (apt-get install nodejs npm)" >&2; exit 1; }

echo "== npm ci (ui/)"
# npm 11 on this kind of machine writes lock files without the other platforms' optional
# packages and then refuses `npm ci` on them; `npm install` honours the same lock file.
(cd ui && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null ||
  npm install --no-audit --no-fund --loglevel=error; })

# The app crate embeds ui/dist at compile time, so the front end is built before any
# cargo step of the app (a fresh clone has no ui/dist). The build type-checks the Svelte
# components, refuses an import circle, and checks ui/dist against the CSP.
echo "== front-end build"
(cd ui && npm run --silent build)

echo "== bindings drift check"
cargo run --quiet -p wikimind-desktop --example bindings -- --check

echo "== front-end unit tests (vitest)"
(cd ui && npx vitest run)

echo "== cargo fmt, clippy (warnings denied), tests of the app crate"
cargo fmt --all -- --check
cargo clippy --quiet -p wikimind-desktop --all-targets -- -D warnings
cargo test --quiet -p wikimind-desktop

echo "== build the app and the test server"
cargo build --quiet -p wikimind-desktop -p wikimind-testserver --bins

echo "== end-to-end tests of the real window (Xvfb, tauri-driver, WebKitWebDriver)"
APP="$TARGET/debug/wikimind-desktop" TESTSERVER="$TARGET/debug/wikimind-testserver" \
  ARTIFACTS="$ARTIFACTS" bash scripts/e2e.sh ${WIKIMIND_E2E:-ui/e2e/app.test.mjs ui/e2e/writing.test.mjs ui/e2e/health.test.mjs ui/e2e/upgrade.test.mjs ui/e2e/upgrade-held.test.mjs ui/e2e/vault.test.mjs ui/e2e/graph.test.mjs ui/e2e/pool.test.mjs ui/e2e/citations.test.mjs}

echo "screenshots: $ARTIFACTS"

if [ "${WIKIMIND_DEB:-0}" = 1 ]; then
  echo "== release build and .deb (tauri build --bundles deb)"
  bash scripts/build-deb.sh
fi
