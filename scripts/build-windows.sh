#!/usr/bin/env bash
# Cross-compiles the Windows x86-64 build on Linux with mingw-w64 (cgo: go-sqlite3, WebView2
# loader). The frontend must be built first (frontend/dist is embedded); `make windows` does.
#   scripts/build-windows.sh [VERSION]
# gives, in build/bin:
#   artifactflow.exe         the command line (tag nowindow, console subsystem): `ask`,
#                            `serve`, the parsers' child processes; asked for the window it
#                            starts artifactflow-window.exe beside it (launcher_windows.go)
#   artifactflow-window.exe  the Wails window (-H windowsgui: no console), with the icon and
#                            the manifest of build/windows (DPI awareness, common controls v6)
# The equivalent of `wails build -platform windows/amd64` without running npm or regenerating
# bindings a second time. Needs x86_64-w64-mingw32-gcc and -windres (Debian:
# gcc-mingw-w64-x86-64, which scripts/setup.sh test installs).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-0.1.0}
out=build/bin
cc=x86_64-w64-mingw32-gcc
windres=x86_64-w64-mingw32-windres
for tool in "$cc" "$windres"; do
  command -v "$tool" >/dev/null || { echo "build-windows: $tool not found (Debian: apt install gcc-mingw-w64-x86-64)" >&2; exit 1; }
done
[ -f frontend/dist/index.html ] || { echo "build-windows: frontend/dist is empty; run make frontend first" >&2; exit 1; }
mkdir -p "$out"

# The icon, manifest and version as a Windows resource object. Go links a .syso of the
# package's directory into windows/amd64 builds only; it lives there just for the builds below.
tmp=$(mktemp -d)
syso=rsrc_windows_amd64.syso
trap 'rm -rf "$tmp" "$syso"' EXIT
sed -e 's/{{\.Name}}/ArtifactFlow/g' -e "s/{{\.Info\.ProductVersion}}/$version/g" \
  build/windows/wails.exe.manifest >"$tmp/app.manifest"
cp build/windows/icon.ico "$tmp/icon.ico"
IFS=. read -r v1 v2 v3 _ <<<"$version.0.0.0"
cat >"$tmp/app.rc" <<EOF
#include <winver.h>
1 ICON "icon.ico"
1 24 "app.manifest"
1 VERSIONINFO
FILEVERSION ${v1:-0},${v2:-0},${v3:-0},0
PRODUCTVERSION ${v1:-0},${v2:-0},${v3:-0},0
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904B0"
    BEGIN
      VALUE "FileDescription", "ArtifactFlow"
      VALUE "ProductName", "ArtifactFlow"
      VALUE "ProductVersion", "$version"
      VALUE "FileVersion", "$version"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
EOF
(cd "$tmp" && "$windres" -O coff -i app.rc -o app.syso)

export CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=$cc
cp "$tmp/app.syso" "$syso"
go build -trimpath -tags nowindow,sqlite_fts5 -ldflags "-w -s" -o "$out/artifactflow.exe" .
go build -trimpath -tags desktop,production,sqlite_fts5 -ldflags "-w -s -H windowsgui" -o "$out/artifactflow-window.exe" .
rm -f "$syso"
ls -l "$out/artifactflow.exe" "$out/artifactflow-window.exe"
