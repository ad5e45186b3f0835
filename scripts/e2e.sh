#!/usr/bin/env bash
# The end-to-end tests of the real window: the app binary $APP under Xvfb, driven through
# tauri-driver + WebKitWebDriver, against the local test server $TESTSERVER.
#
#   APP=… TESTSERVER=… ARTIFACTS=… bash scripts/e2e.sh ui/e2e/app.test.mjs ui/e2e/writing.test.mjs
#
# API keys go to a real Secret Service: a private D-Bus session with its own GNOME keyring,
# unlocked with a throwaway password and kept in a temporary folder (never the person's).
# scripts/test-desktop.sh installs what this needs (xvfb, dbus, gnome-keyring, tauri-driver).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${APP:?set APP to the app binary}" "${TESTSERVER:?set TESTSERVER to wikimind-testserver}"
: "${ARTIFACTS:?set ARTIFACTS to the folder for screenshots and logs}"
(($#)) || { echo "usage: scripts/e2e.sh TEST_FILE…" >&2; exit 2; }
mkdir -p "$ARTIFACTS"
# One window at a time on this machine: tauri-driver listens on a fixed port, so two runs
# (two checkouts testing at once) would drive each other's app. Wait for the other to end.
exec 9>"${TMPDIR:-/tmp}/wikimind-e2e.lock"
flock 9
KEYRING_HOME=$(mktemp -d)
trap 'rm -rf "$KEYRING_HOME"' EXIT
export APP TESTSERVER ARTIFACTS KEYRING_HOME
dbus-run-session -- bash -c '
  printf e2e | XDG_DATA_HOME="$KEYRING_HOME" XDG_CACHE_HOME="$KEYRING_HOME" \
    gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec xvfb-run -a -s "-screen 0 1280x800x24" \
    node --test --test-concurrency=1 "$@"' e2e "$@"
