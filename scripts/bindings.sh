#!/usr/bin/env bash
# The generated Wails bindings in frontend/wailsjs (docs/ARCHITECTURE.md, "Frontend API").
#
#   scripts/bindings.sh          regenerates frontend/wailsjs with Wails' own generator at the
#                                version go.mod requires (`wails generate module`, run through
#                                `go run`, so no wails install is needed); `make bindings`.
#   scripts/bindings.sh --check  regenerates into a temporary directory and fails, printing the
#                                diff, when frontend/wailsjs differs; never writes to the tree.
#                                `make lint` runs it.
#
# The check does what `wails generate module` does (pkg/commands/bindings): build the main
# package with the extra tag `bindings`, then run that binary, which writes wailsjs/ under
# the wails.json "wailsjsdir" of its working directory (the frontend dir by default). It runs
# the binary in a temporary directory holding a copy of wails.json, with HOME and the XDG
# directories there too, so neither the tree nor the user's data is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
TAGS=webkit2_41,sqlite_fts5
WAILS_VERSION=$(go list -m -f '{{.Version}}' github.com/wailsapp/wails/v2)

if [[ "${1:-}" != "--check" ]]; then
  # The generator starts the app to read its bound methods: give it an empty home, so it never
  # opens (or trips over) the user's own data folder; the Go caches stay where they are.
  home=$(mktemp -d)
  trap 'rm -rf "$home"' EXIT
  env GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" GOPATH="$(go env GOPATH)" \
    HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" XDG_CACHE_HOME="$home/.cache" \
    go run "github.com/wailsapp/wails/v2/cmd/wails@${WAILS_VERSION}" generate module -tags "$TAGS"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -buildvcs=false -tags "$TAGS,bindings" -o "$tmp/wailsbindings" .
mkdir -p "$tmp/project" "$tmp/home"
cp wails.json "$tmp/project/"
# The environment `wails generate module` gives the binary (TsGeneration defaults).
(cd "$tmp/project" && env HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" \
  XDG_DATA_HOME="$tmp/home/.local/share" XDG_CACHE_HOME="$tmp/home/.cache" \
  tsprefix= tssuffix= tsoutputtype=classes "$tmp/wailsbindings" >"$tmp/log" 2>&1) ||
  { cat "$tmp/log"; echo "bindings: the generator failed" >&2; exit 1; }
gen="$tmp/project/frontend/wailsjs"
if [[ ! -f "$gen/go/models.ts" ]]; then
  cat "$tmp/log"
  echo "bindings: the generator wrote nothing to $gen" >&2
  exit 1
fi
if ! diff -ru frontend/wailsjs "$gen"; then
  echo "bindings: frontend/wailsjs is not what Wails ${WAILS_VERSION} generates; run 'make bindings' and commit the result" >&2
  exit 1
fi
echo "bindings: frontend/wailsjs is up to date (Wails ${WAILS_VERSION})"
