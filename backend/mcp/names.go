package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// ToolPrefix starts the name of every MCP tool offered to the models:
// mcp__<server>__<tool> (QualifiedName).
const ToolPrefix = "mcp__"

// maxToolName is the longest function name OpenAI-style endpoints accept.
const maxToolName = 64

// QualifiedName returns the name a model is offered server's tool by:
// "mcp__<server>__<tool>", where server is a valid server name
// (config.ValidMCPServerName) and tool is the server's own name with every character an
// OpenAI function name cannot hold (anything but ASCII letters, digits, "_" and "-")
// replaced by "_". A name that had to be changed that way, or is longer than 64
// characters, ends in "_" and 8 hex digits of the SHA-256 of the tool's own name (cut to
// fit 64), so that two tools of one server never share a name. The manager keeps the map
// back to the server's name (Manager.Resolve).
func QualifiedName(server, tool string) string {
	clean := sanitize(tool)
	name := ToolPrefix + server + "__" + clean
	if clean == tool && len(name) <= maxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if len(name)+len(suffix) > maxToolName {
		name = name[:maxToolName-len(suffix)]
	}
	return name + suffix
}

// sanitize replaces each character outside [A-Za-z0-9_-] by "_" ("" becomes "_").
func sanitize(s string) string {
	if s == "" {
		return "_"
	}
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
