#!/usr/bin/env bash
# Checks the .deb the release build made: the binary, the desktop launcher entry, icons,
# and the package's declared dependencies.
set -euo pipefail
dir=${1:?usage: check-deb.sh DIR_WITH_THE_DEB}
deb=$(ls "$dir"/*.deb | head -n1)
echo "checking $deb"
contents=$(dpkg-deb -c "$deb")
fail() { echo "deb check failed: $*" >&2; exit 1; }
grep -Eq '(\./)?usr/bin/wikimind-desktop$' <<<"$contents" || fail "no /usr/bin/wikimind-desktop"
grep -Eq '(\./)?usr/share/applications/WikiMind.desktop$' <<<"$contents" || fail "no desktop entry"
grep -Eq '(\./)?usr/share/icons/hicolor/128x128/apps/wikimind-desktop.png$' <<<"$contents" || fail "no 128x128 icon"
others=$(grep -E 'usr/bin/.+' <<<"$contents" | grep -v 'usr/bin/wikimind-desktop$' || true)
[ -z "$others" ] || fail "binaries other than wikimind-desktop in /usr/bin: $others"
x=$(mktemp -d); trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$deb" "$x"
entry="$x/usr/share/applications/WikiMind.desktop"
grep -q '^Exec=wikimind-desktop' "$entry" || fail "desktop entry does not run wikimind-desktop"
grep -q '^Type=Application' "$entry" || fail "desktop entry is not an application"
grep -q '^Categories=.*Office' "$entry" || echo "note: Categories is $(grep ^Categories "$entry")"
dpkg-deb -f "$deb" Depends | grep -q 'libwebkit2gtk-4.1-0' || fail "Depends lacks libwebkit2gtk-4.1-0"
# PDFs are read by Poppler's pdftotext and page labels by qpdf, run as processes (never
# linked: Poppler is GPL), so the package depends on them rather than shipping them.
dpkg-deb -f "$deb" Depends | grep -q 'poppler-utils' || fail "Depends lacks poppler-utils (pdftotext)"
dpkg-deb -f "$deb" Depends | grep -q 'qpdf' || fail "Depends lacks qpdf (PDF page labels)"
for lib in libpoppler libmupdf libqpdf; do
  if find "$x" -name "$lib*" | grep -q .; then fail "the package ships $lib: PDF tools are run, never bundled"; fi
done
file "$x/usr/bin/wikimind-desktop" | grep -q ELF || fail "the binary is not an ELF executable"
echo "deb ok: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version), $(wc -l <<<"$contents") entries"
echo "--- desktop entry"; cat "$entry"
