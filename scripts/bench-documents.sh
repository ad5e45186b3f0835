#!/usr/bin/env bash
# Reading speed and peak memory of the document readers beside their baselines (not part
# of CI): a 300-page two-column PDF beside plain `pdftotext`, and a 2 MB EPUB beside the
# HTML reader over the same chapters. The inputs are written by reportlab and ebooklib
# (crates/documents/tests/data/make_fixtures.py --big) in a venv under ~/.cache/wikimind.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/wikimind/target}"
venv="$HOME/.cache/wikimind/fixtures-venv"
if ! "$venv/bin/python" -c "import reportlab, ebooklib, docx" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    reportlab==5.1.0 python-docx==1.2.0 ebooklib==0.20
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$venv/bin/python" crates/documents/tests/data/make_fixtures.py --big "$work"
cargo bench -p wikimind-documents --bench read --no-run --quiet
bench=$(ls -t "$CARGO_TARGET_DIR"/release/deps/read-* | grep -v '\.d$' | head -n1)
# peak LABEL COMMAND…: runs it, prints what it printed and its peak memory (with children).
peak() {
  local label=$1; shift
  /usr/bin/time -f %M -o "$work/rss" "$@" >"$work/out"
  cat "$work/out"
  echo "  peak memory $(( $(tail -n1 "$work/rss") / 1024 )) MB: $label"
}
peak "the PDF bench (read_pdf and pdftotext, 6 runs each)" "$bench" pdf "$work/300-pages.pdf"
peak "pdftotext alone, once" pdftotext "$work/300-pages.pdf" "$work/plain.txt"
peak "the EPUB bench (read_epub and the HTML reader, 6 runs each)" "$bench" epub "$work/2mb.epub"
