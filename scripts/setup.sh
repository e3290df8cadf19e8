#!/usr/bin/env bash
# Installs what ArtifactFlow needs on Debian/Ubuntu, skipping what is already there.
#   scripts/setup.sh run    build and run the app (Go, gcc, GTK/WebKitGTK 4.1 headers, Node)
#   scripts/setup.sh test   everything above plus Xvfb and Chromium for the UI tests
# Go: Debian's golang-go is enough to start; go.mod's toolchain line makes it fetch the
# exact Go release from the Go module proxy (GOTOOLCHAIN=auto).
set -euo pipefail
mode=${1:-run}

pkgs=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
want() { for p in "$@"; do have_pkg "$p" || pkgs+=("$p"); done; }

want build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev ca-certificates git
command -v go >/dev/null 2>&1 || want golang-go
command -v node >/dev/null 2>&1 || want nodejs
command -v npm >/dev/null 2>&1 || want npm
if [ "$mode" = test ]; then
  want xvfb xauth x11-utils xdotool imagemagick chromium
fi

if [ ${#pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${pkgs[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node.js $(node --version 2>/dev/null || echo none) is too old: Vite 7 needs Node 20.19+ (install it from your distribution's backports or nodejs.org)" >&2
  exit 1
fi
export PATH="$PATH:$(go env GOPATH)/bin"
go version
