#!/usr/bin/env bash
# `go vet` for macOS without a Mac: GOOS=darwin, cgo off, on the backend packages whose
# code and tests do not need cgo. Those that import go-sqlite3 (directly, through
# backend/store, or in their tests) need a C toolchain for darwin and are left out by name
# below; the list is computed, so a package that starts to need cgo drops out and is
# printed. `make lint` runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOOS=darwin GOARCH=arm64 CGO_ENABLED=0
# One line per package and test variant: its path, then every package it depends on.
deps=$(go list -e -test -tags sqlite_fts5 -f '{{.ImportPath}}{{range .Deps}} {{.}}{{end}}' ./backend/...)
cgo=$(awk '/ github\.com\/mattn\/go-sqlite3( |$)/ {print $1}' <<<"$deps" | sed -e 's/\.test$//' -e 's/_test$//' | sort -u)
pkgs=$(awk '{print $1}' <<<"$deps" | grep -v -e '\.test$' -e '_test$' | grep -vxF -f <(printf '%s\n' $cgo "artifactflow/backend/store") | sort -u)
echo "vet-darwin: $(wc -w <<<"$pkgs") packages; need cgo (go-sqlite3), not vetted: $(echo $cgo | sed 's#artifactflow/##g')"
go vet -tags sqlite_fts5 $pkgs
