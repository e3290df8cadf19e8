#!/usr/bin/env bash
# Runs the Windows build's command line under Wine (TestWineAsk in wine_test.go): `ask`
# against the scripted model, its answer on stdout and in its database.
#   scripts/wine-test.sh [build/bin/artifactflow.exe]
# Needs wine (Debian: wine wine64) and mingw-w64 (gcc-mingw-w64-x86-64), which
# scripts/setup.sh test installs. The WINEPREFIX is a fresh temporary directory, removed
# afterwards; its first start (wineboot) takes about half a minute and is bounded.
#
# Go 1.22+ programs take random bytes from ProcessPrng in bcryptprimitives.dll (Windows 10+);
# Wine 8.0 (Debian 12) has no such DLL and a Go .exe aborts at start. The prefix gets a
# stand-in built from packaging/wine/bcryptprimitives.c; a Wine that ships the DLL keeps
# its own (the stand-in is installed only where none exists).
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(realpath "${1:-build/bin/artifactflow.exe}")
[ -f "$exe" ] || { echo "wine-test: $exe not found; run make windows" >&2; exit 1; }
command -v wine >/dev/null || { echo "wine-test: wine not found (Debian: apt install wine wine64)" >&2; exit 1; }
prefix=$(mktemp -d)
cleanup() {
  WINEPREFIX="$prefix" wineserver -k 2>/dev/null || true
  rm -rf "$prefix"
}
trap cleanup EXIT
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
start=$(date +%s)
timeout 180 wine wineboot --init >/dev/null 2>&1 || { echo "wine-test: wineboot failed or took over 180 s" >&2; exit 1; }
timeout 60 wineserver -w || true
echo "wine-test: prefix ready in $(( $(date +%s) - start )) s"
sys32="$prefix/drive_c/windows/system32"
if [ ! -e "$sys32/bcryptprimitives.dll" ]; then
  x86_64-w64-mingw32-gcc -shared -O2 -s -o "$sys32/bcryptprimitives.dll" packaging/wine/bcryptprimitives.c -ladvapi32
fi
AF_WINE_PREFIX="$prefix" AF_WINDOWS_EXE="$exe" go test -tags webkit2_41,sqlite_fts5 -count=1 -run '^TestWineAsk$' -v .
