#!/usr/bin/env bash
# Installs what ArtifactFlow needs on Debian/Ubuntu, skipping what is already there.
#   scripts/setup.sh run    build and run the app (Go, gcc, GTK/WebKitGTK 4.1 headers, Node)
#   scripts/setup.sh test   everything above plus Xvfb and Chromium for the UI tests
#   scripts/setup.sh path   print the directories the Makefile puts first on PATH (installs nothing)
#
# Go: go.mod names an exact Go release that distributions do not package, and the go command of
# Debian 12 (1.19) or Ubuntu 22.04 (1.18) cannot switch toolchains by itself. When the go on PATH
# is missing or older than go.mod asks, Debian's golang-go is installed only to download that
# release as the Go module it is published as (golang.org/toolchain@v0.0.1-go<version>.<os>-<arch>,
# through the go command's own GOPROXY) and unpack it in ~/.local/go<version>.
# Node: 22.13+ (react-i18next 18 and i18next need Node 22, and on that line Vite 7 needs 22.12,
# ESLint 10 and jsdom 22.13; Node 20 is end-of-life; Debian 12 and Ubuntu 24.04 have 18). When
# node is missing or older, Debian's nodejs+npm install the npm packages node-linux-<arch> and
# npm into ~/.local/node<major>
# (through npm's default registry). node-linux-<arch> repackages the Node.js release binary
# but is not published by the Node.js project; npm checks the tarball against the
# registry's integrity hash, nothing more. Where you can reach nodejs.org, its tarball (or
# your distribution's backports) is the better source.
# The Makefile puts both bin directories first on PATH (see `path` above).
# apt-get waits up to 10 minutes for another package manager to finish (a fresh Ubuntu runs
# unattended-upgrades in its first minutes) instead of failing at once (apt_get, apt_update).
set -euo pipefail
mode=${1:-run}
cd "$(dirname "$0")/.."

NODE_MIN=22.13.0   # react-i18next 18 (>=22), Vite 7 (22.12+), ESLint 10 and jsdom (22.13+)
NODE_MAJOR=22      # what is installed when node is older: node-linux-<arch>@22
NPM_MAJOR=11
LOCAL="${HOME:-/root}/.local"

version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]; }

# The Go release go.mod needs: the higher of its toolchain and go lines, as 1.N.P.
go_required() {
  local g t
  g=$(sed -n 's/^go \([0-9][0-9.]*\)[[:space:]]*$/\1/p' go.mod)
  t=$(sed -n 's/^toolchain go\([0-9][0-9.]*\)[[:space:]]*$/\1/p' go.mod)
  if [ -n "$t" ] && version_ge "$t" "$g"; then g=$t; fi
  case $g in *.*.*) ;; *) g=$g.0 ;; esac   # "go 1.26" means release 1.26.0
  echo "$g"
}
GO_WANT=$(go_required)
GO_HOME="$LOCAL/go$GO_WANT"
NODE_HOME="$LOCAL/node$NODE_MAJOR"

path_dirs() {
  local d="$GO_HOME/bin:$NODE_HOME/bin"
  # A Go unpacked from the official tarball whose bin is not on PATH yet.
  command -v go >/dev/null 2>&1 || d="$d:/usr/local/go/bin"
  echo "$d"
}
if [ "$mode" = path ]; then path_dirs; exit 0; fi
export PATH="$(path_dirs):$PATH"

# Version of the go on PATH (e.g. 1.26.8), empty when there is none. Run outside the module and
# with GOTOOLCHAIN=local so that a newer go command does not switch toolchains to answer.
go_have() {
  command -v go >/dev/null 2>&1 || return 0
  { (cd / && GOTOOLCHAIN=local GOFLAGS= go env GOVERSION 2>/dev/null) || true; } | sed -n 's/^go\([0-9][0-9.]*\).*/\1/p'
}
node_have() { node -p 'process.versions.node' 2>/dev/null || true; }

go_ok=1 node_ok=1
go_was=$(go_have) node_was=$(node_have)
{ [ -n "$go_was" ] && version_ge "$go_was" "$GO_WANT"; } || go_ok=0
{ [ -n "$node_was" ] && version_ge "$node_was" "$NODE_MIN" && command -v npm >/dev/null 2>&1; } || node_ok=0

pkgs=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
want() { for p in "$@"; do have_pkg "$p" || pkgs+=("$p"); done; }

want build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev ca-certificates git
# An old go command is enough to download the right one; so is an old npm for node.
[ $go_ok = 1 ] || command -v go >/dev/null 2>&1 || want golang-go
[ $node_ok = 1 ] || command -v npm >/dev/null 2>&1 || want nodejs npm
if [ "$mode" = test ]; then
  # The real-window tests: an X server, xdotool, a GTK drag source (scripts/dragsrc.py),
  # xclip to read the clipboard, the locales' sources (TestWindowLanguage generates zh_CN.UTF-8
  # with localedef) and a font with Chinese glyphs when there is none (Noto CJK: WenQuanYi
  # Micro Hei is a twentieth of the size but sits Chinese text high in its lines, clipping it).
  want xvfb xauth x11-utils xdotool imagemagick python3 python3-gi gir1.2-gtk-3.0 xclip locales
  [ -n "$(fc-list :lang=zh 2>/dev/null)" ] || want fonts-noto-cjk
  # pdftotext, the reference of the PDF corpus test (backend/web TestPDFCorpusAgreesWithPdftotext).
  want poppler-utils
  # Installers (make package, make wine-test): desktop-file-validate for the .deb's entry;
  # mingw-w64 to cross-compile the Windows build; Wine to run it (about 12 s and 23 s of
  # apt-get install on a Debian 12 CI machine).
  want desktop-file-utils gcc-mingw-w64-x86-64 wine wine64
  # Debian packages Chromium as chromium; Ubuntu only as chromium-browser (a snap).
  if grep -qx 'ID=ubuntu' /etc/os-release 2>/dev/null; then
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || want chromium-browser
  else
    want chromium
  fi
fi

# How long apt-get waits for a lock another package manager holds, in seconds.
APT_LOCK_WAIT=600
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
# apt-get as root, non-interactive (through env: sudo drops the caller's environment), with
# English messages, waiting up to APT_LOCK_WAIT seconds for the dpkg lock (DPkg::Lock::Timeout,
# apt 1.9.11+; older apt ignores the option).
apt_get() { $SUDO env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get -o "DPkg::Lock::Timeout=$APT_LOCK_WAIT" "$@"; }
# apt-get update also locks the package lists, a lock DPkg::Lock::Timeout does not wait for:
# while it fails on a lock, try again every second, up to APT_LOCK_WAIT seconds in all. Any
# other failure ends setup at once, with apt-get's messages.
apt_update() {
  local deadline=$((SECONDS + APT_LOCK_WAIT)) out said=""
  until out=$(apt_get update -qq 2>&1); do
    case $out in *"Could not get lock"*) ;; *) printf '%s\n' "$out" >&2; return 1 ;; esac
    if [ "$SECONDS" -ge "$deadline" ]; then
      printf '%s\n' "$out" >&2
      echo "setup: another package manager held the package lists for ${APT_LOCK_WAIT}s; rerun when it is done" >&2
      return 1
    fi
    [ -n "$said" ] || echo "setup: another package manager is using apt (unattended-upgrades?); waiting up to ${APT_LOCK_WAIT}s"
    said=1
    sleep 1
  done
  [ -z "$out" ] || printf '%s\n' "$out"
}

if [ ${#pkgs[@]} -gt 0 ]; then
  echo "setup: installing ${pkgs[*]}"
  apt_update
  apt_get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

if [ $go_ok = 0 ]; then
  goos=$(cd / && GOTOOLCHAIN=local go env GOOS) goarch=$(cd / && GOTOOLCHAIN=local go env GOARCH)
  [ "$goarch" = arm ] && goarch=armv6l
  mod="golang.org/toolchain@v0.0.1-go$GO_WANT.$goos-$goarch"
  echo "setup: go.mod needs Go $GO_WANT, PATH has ${go_was:-none}; downloading $mod with $(command -v go)"
  mkdir -p "$LOCAL"
  tmp=$(mktemp -d "$LOCAL/.go-download.XXXXXX")
  trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
  # A private module cache in a directory without go.mod: nothing to read, nothing left behind.
  if ! (cd "$tmp" && GOTOOLCHAIN=local GO111MODULE=on GOFLAGS=-modcacherw GOMODCACHE="$tmp/mod" \
    go mod download -json "$mod") >"$tmp/info.json"; then
    cat "$tmp/info.json" >&2; echo "setup: could not download $mod" >&2; exit 1
  fi
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' "$tmp/info.json")
  [ -f "$dir/bin/go" ] || { cat "$tmp/info.json" >&2; echo "setup: no Go release in $dir" >&2; exit 1; }
  # What the go command itself does to a downloaded toolchain: module zips keep no file modes
  # and may not hold nested go.mod files (they are stored as _go.mod).
  find "$dir/pkg/tool" "$dir/bin" -type f -exec chmod +x {} +
  find "$dir/lib" -type f -name 'go_*_*_exec' -exec chmod +x {} + 2>/dev/null || true
  find "$dir" -type f -name _go.mod -print0 | while IFS= read -r -d '' f; do cp "$f" "${f%_go.mod}go.mod"; done
  rm -rf "$GO_HOME"
  mv "$dir" "$GO_HOME"
  chmod -R u+w "$tmp"; rm -rf "$tmp"; trap - EXIT
  hash -r
  v=$(go_have)
  [ "$v" = "$GO_WANT" ] || { echo "setup: $GO_HOME/bin/go reports '$v', expected $GO_WANT" >&2; exit 1; }
fi

if [ $node_ok = 0 ]; then
  case $(uname -m) in
    x86_64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; armv7l) arch=armv7l ;;
    ppc64le) arch=ppc64le ;; s390x) arch=s390x ;;
    *) echo "setup: no Node.js $NODE_MIN+ for $(uname -m); install one and rerun" >&2; exit 1 ;;
  esac
  echo "setup: the frontend needs Node.js $NODE_MIN+, PATH has ${node_was:-none}; installing node-linux-$arch@$NODE_MAJOR and npm@$NPM_MAJOR into $NODE_HOME"
  mkdir -p "$LOCAL"
  ntmp=$(mktemp -d "$LOCAL/.node-install.XXXXXX") && chmod 755 "$ntmp"
  trap 'rm -rf "$ntmp"' EXIT
  npmi() { npm install --global --prefix "$ntmp" --no-audit --no-fund --loglevel=error "$@" >/dev/null; }
  npmi "node-linux-$arch@$NODE_MAJOR"
  # The old npm, now run by the new node (npm refuses to install an npm its node cannot run).
  PATH="$ntmp/bin:$PATH" npmi "npm@$NPM_MAJOR"
  # That npm copied the old one's built-in config (Debian's says prefix=/usr/local): replace it.
  echo "prefix=$NODE_HOME" >"$ntmp/lib/node_modules/npm/npmrc"
  rm -rf "$NODE_HOME"
  mv "$ntmp" "$NODE_HOME"   # the links in bin/ are relative
  trap - EXIT
  hash -r
  v=$(node_have)
  version_ge "${v:-0}" "$NODE_MIN" || { echo "setup: $NODE_HOME/bin/node reports '$v'" >&2; exit 1; }
fi

echo "setup: $(go version | cut -d' ' -f3) ($(command -v go)), node $(node --version) ($(command -v node)), npm $(npm --version 2>/dev/null)"
