# ArtifactFlow Desktop. `make run` opens the app, `make test` runs every test; both install
# what is missing first (Debian/Ubuntu; see README for macOS and Windows).
SHELL := /bin/bash
# When the system's Go or Node is too old, scripts/setup.sh installs the right ones under ~/.local;
# every recipe sees those first on PATH (directories that do not exist yet cost nothing).
export PATH := $(shell scripts/setup.sh path):$(PATH)
unexport GOROOT
# The UI tests launch /usr/bin/chromium (Debian); elsewhere, the Chromium on PATH.
ifeq ($(wildcard /usr/bin/chromium),)
export CHROMIUM_PATH ?= $(firstword $(shell command -v chromium chromium-browser 2>/dev/null))
endif
GO_TAGS := webkit2_41,sqlite_fts5
# `make build` gives two executables (docs/ARCHITECTURE.md, "Start-up"). BIN is built without
# the window (tag nowindow: no GTK or WebKit linked): every command, browser mode and the
# parsers' child processes; asked for the window it hands over to WINDOW_BIN beside it.
# WINDOW_BIN is the Wails build, which also runs every command on its own.
BIN := build/bin/artifactflow
WINDOW_BIN := build/bin/artifactflow-window
GOFLAGS_BUILD := -tags desktop,production,$(GO_TAGS) -ldflags "-w -s"
GOFLAGS_CLI := -tags nowindow,sqlite_fts5 -ldflags "-w -s"
# Our packages: ./... would also find Go files that npm packages ship under node_modules.
GO_PKGS = $$(go list ./... | grep -v /node_modules/)
# Installers (docs/ARCHITECTURE.md, "Installers"): the package version, and nfpm, run through
# the go command at a fixed release (built once into the module cache; no system install).
VERSION ?= 0.1.0
NFPM := go run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.43.0

.PHONY: run build cli startup test deps deps-test frontend frontend-deps go-test frontend-test window-test lint clean package windows wine-test

run: build
	./$(BIN)

build: deps frontend
	go build $(GOFLAGS_BUILD) -o $(WINDOW_BIN) .
	go build $(GOFLAGS_CLI) -o $(BIN) .

# BIN alone (the window then says it is not installed).
cli: deps frontend
	go build $(GOFLAGS_CLI) -o $(BIN) .

# Start-up cost of both binaries (docs/ARCHITECTURE.md, "Start-up"): every init over 0.1 ms
# or 100 KB (GODEBUG=inittrace=1), the peak RSS of --help (which exits 2, as for any usage
# message), then BenchmarkStartup.
startup: build
	@for b in $(BIN) $(WINDOW_BIN); do \
	  echo "== $$b --help"; \
	  GODEBUG=inittrace=1 ./$$b --help 2>&1 >/dev/null | awk '$$5+0 >= 0.1 || $$8+0 >= 100000'; \
	  /usr/bin/time -q -f "peak RSS %M KB, %e s" ./$$b --help >/dev/null || true; \
	done
	go test -tags $(GO_TAGS) -run '^$$' -bench BenchmarkStartup -benchtime 20x .

# The start-up, memory and size figures beside their budgets (bench/cmd/measure): --help wall
# time and peak RSS, the slowest init, serve and window idle RSS (WebKit children summed),
# the window's launch-to-usable under Xvfb, both binaries' size and the budgeted Go
# benchmarks, and the window's launch as a ratio to an empty Wails window's; writes bench/results.json and bench/results.md (over-budget rows flagged, not
# failed).
# The launch ratio row launches the window interleaved with HELLO_BIN, an empty Wails window
# (internal/bench/wailshello) built here with the app's Wails module and tags.
HELLO_BIN := build/bin/wailshello

.PHONY: bench timeline
bench: build
	go build $(GOFLAGS_BUILD) -o $(HELLO_BIN) ./internal/bench/wailshello
	go run -tags sqlite_fts5 ./bench/cmd/measure -bin $(BIN) -window-bin $(WINDOW_BIN) -hello-bin $(HELLO_BIN) -out bench

# The window's start-up timeline (docs/ARCHITECTURE.md, "Start-up"): three launches under
# Xvfb with ARTIFACTFLOW_TIMELINE=1, every step's median time after the process start.
timeline: build
	go run -tags sqlite_fts5 ./bench/cmd/measure -bin $(BIN) -timeline 3

deps:
	@scripts/setup.sh run

deps-test:
	@scripts/setup.sh test

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@touch $@

frontend-deps: frontend/node_modules/.package-lock.json

# Real MCP servers (@modelcontextprotocol/server-everything, server-filesystem) and the official
# MCP Inspector for the Go tests of the MCP client and of `artifactflow mcp serve`; pinned in
# testdata/mcp/package-lock.json, never shipped. The Inspector's postinstall only installs its
# own source checkout's clients and does nothing in node_modules, so scripts stay off.
# npm install (from the lock) rather than npm ci: the Inspector's Vite names an optional
# Windows-only package the registry here does not serve, which npm ci refuses to skip.
testdata/mcp/node_modules/.package-lock.json: testdata/mcp/package-lock.json
	cd testdata/mcp && npm install --no-audit --no-fund --ignore-scripts
	@touch $@

.PHONY: mcp-deps
mcp-deps: testdata/mcp/node_modules/.package-lock.json

frontend: frontend-deps
	cd frontend && npm run build

lint: frontend-deps
	@test -z "$$(gofmt -l app backend *.go)" || { gofmt -l app backend *.go; echo "gofmt: files above need formatting"; exit 1; }
	go vet -tags $(GO_TAGS) $(GO_PKGS)
	scripts/vet-darwin.sh
	scripts/bindings.sh --check
	cd frontend && npm run typecheck && npm run lint

# Regenerates frontend/wailsjs (the bound services' JS and models.ts) with Wails' generator at
# go.mod's Wails version; `make lint` fails when the committed copy differs from its output.
.PHONY: bindings
bindings:
	scripts/bindings.sh

go-test: mcp-deps
	go test -tags $(GO_TAGS) -count=1 $(GO_PKGS)

frontend-test: frontend-deps
	cd frontend && npm test && npm run e2e

test: deps-test frontend lint mcp-deps
	$(MAKE) go-test
	$(MAKE) frontend-test
	AF_E2E=1 go test -tags $(GO_TAGS) -count=1 -run 'TestBrowserE2E' ./app/browser/ ./app/cli/
	$(MAKE) window-test

# The real window under Xvfb (app/windowtest, one shared harness): files dragged onto it are
# uploaded; a link the scripted lead records shows in Links & files and opens in the system
# browser; a cited answer's chip [1] shows its hover card under the mouse and opens its page;
# Ctrl+B and Ctrl+J hide the side columns, a dragged splitter widens the panel and a restart
# keeps it; copy (read back with xclip), Ctrl+F and Ctrl +/-/0 zoom work in WebKitGTK (find's
# highlights follow the query with none left behind, and find works in the Reader and the
# artifact view; a click that opens a dialog leaves no tooltip over it); a
# refused endpoint shows model_unreachable with Open settings and Retry, and a Failed badge;
# a field set by a flag is read-only in Settings while a saved change reaches the next run;
# the window follows a Chinese system locale (same as Chinese chosen in Settings, code in
# monospace); Regenerate, a switch and edit-and-resend leave no phantom question, and Jump
# to latest and sending while scrolled up bring the end into view; Settings shows a running
# and a failed MCP server and adds one by keyboard (Enter saves, Escape closes only the
# form); and the built binary,
# killed with SIGKILL mid-run, leaves a database that recovers. The window starts through
# BIN, which hands it to WINDOW_BIN in the same process; TestLauncher checks that pair.
# WINDOW_SHOTS=dir keeps the screenshots (docs/ takes its window-*.png from there).
window-test: build
	AF_WINDOW_BIN=$(abspath $(BIN)) AF_WINDOW_SHOTS=$(if $(WINDOW_SHOTS),$(abspath $(WINDOW_SHOTS))) go test -tags $(GO_TAGS) -count=1 -run 'TestWindowFileDrop|TestKillDashNine|TestWindowRecordArtifact|TestWindowCitations|TestWindowLayout|TestWindowEveryday|TestWindowErrors|TestWindowSettingsFlags|TestWindowLanguage|TestWindowDefects|TestWindowLanes|TestWindowFindRepaint|TestWindowFindInReader|TestWindowTooltips|TestWindowMathMermaidChinese|TestWindowMCPTools' ./app/windowtest/
	AF_WINDOW_BIN=$(abspath $(BIN)) go test -tags $(GO_TAGS) -count=1 -run 'TestLauncher' .

# The Linux package: build/package/artifactflow_$(VERSION)_amd64.deb holds both binaries in
# /usr/lib/artifactflow, /usr/bin/artifactflow linked to the first, the desktop entry and
# the icon; packaging/TestDeb then inspects it with dpkg-deb and desktop-file-validate.
package: build
	mkdir -p build/package
	VERSION=$(VERSION) $(NFPM) package --config packaging/nfpm.yaml --packager deb --target build/package/
	AF_DEB=$(abspath build/package/artifactflow_$(VERSION)_amd64.deb) go test -count=1 -run TestDeb ./packaging/
	@ls -l build/package/artifactflow_$(VERSION)_amd64.deb

# The Windows x86-64 build, cross-compiled with mingw-w64: build/bin/artifactflow.exe (the
# console command line) and artifactflow-window.exe (the window).
windows: frontend
	scripts/build-windows.sh $(VERSION)

# artifactflow.exe ask under Wine against the scripted model (TestWineAsk).
wine-test: windows
	scripts/wine-test.sh build/bin/artifactflow.exe

clean:
	rm -rf build/bin build/package frontend/dist/assets frontend/distgz/assets frontend/distgz/index.html.gz frontend/node_modules
