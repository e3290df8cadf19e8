package cli

import (
	"context"
	"fmt"
	"strings"
)

// runMCP dispatches `artifactflow mcp SUBCOMMAND`: serve (mcpserve.go).
func runMCP(ctx context.Context, env Env, args []string) int {
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "serve":
		return runMCPServe(ctx, env, args)
	case "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	case "":
		fmt.Fprintln(env.Stderr, "artifactflow: mcp: say serve (usage: artifactflow mcp serve [--allow-research])")
		return ExitUsage
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: mcp: unknown command %q (try: serve)\n", sub)
		return ExitUsage
	}
}
