// Package mcpnpm finds the real Model Context Protocol servers and the official MCP Inspector
// that the tests run: npm packages pinned in testdata/mcp/package.json and installed by
// `make mcp-deps` (npm ci in testdata/mcp). Tests only; nothing here ships in the app.
package mcpnpm

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Root returns the absolute path of testdata/mcp (the folder holding package.json and
// node_modules), found from this source file's location.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "mcp")
}

// Paths holds what a test needs to start the servers: Node (an absolute path), each server's
// entry script and the Inspector's command-line entry point.
type Paths struct {
	Node string
	// Everything is @modelcontextprotocol/server-everything's dist/index.js; run it as
	// `node Everything [stdio|streamableHttp]` (HTTP mode reads its port from PORT, endpoint /mcp).
	Everything string
	// Filesystem is @modelcontextprotocol/server-filesystem's dist/index.js; its arguments are
	// the folders it may read.
	Filesystem string
	// Inspector is the Inspector's bin script; run it as `node Inspector --cli CMD ARGS
	// --method tools/list` (see its README).
	Inspector string
}

// Require returns the installed paths, or ends the test: with t.Fatal when CI is set (CI must
// run these tests) and with t.Skip otherwise, naming `make mcp-deps` as the fix.
func Require(t testing.TB) Paths {
	t.Helper()
	p, err := Find()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("MCP test servers missing: %v (run make mcp-deps)", err)
		}
		t.Skipf("MCP test servers missing: %v (run make mcp-deps)", err)
	}
	return p
}

// Find looks the paths up without a test: Node on PATH, and the three packages under Root's
// node_modules. Its error names the first thing missing.
func Find() (Paths, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return Paths{}, err
	}
	nm := filepath.Join(Root(), "node_modules", "@modelcontextprotocol")
	p := Paths{
		Node:       node,
		Everything: filepath.Join(nm, "server-everything", "dist", "index.js"),
		Filesystem: filepath.Join(nm, "server-filesystem", "dist", "index.js"),
		Inspector:  filepath.Join(Root(), "node_modules", ".bin", "mcp-inspector"),
	}
	for _, f := range []string{p.Everything, p.Filesystem, p.Inspector} {
		if _, err := os.Stat(f); err != nil {
			return Paths{}, err
		}
	}
	return p, nil
}
