package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"artifactflow/app"
	"artifactflow/app/internal/text"
)

// runMCP runs `artifactflow mcp list` and `artifactflow mcp test NAME` (the MCP servers of
// config.json, mcp_servers, as Settings → Tools shows them) and `artifactflow mcp serve`
// (the research library as an MCP server, mcpserve.go).
func runMCP(ctx context.Context, env Env, args []string) int {
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "list":
		return runMCPList(ctx, env, args)
	case "test":
		return runMCPTest(ctx, env, args)
	case "serve":
		return runMCPServe(ctx, env, args)
	case "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	case "":
		fmt.Fprintln(env.Stderr, "artifactflow: mcp: say list, test NAME or serve (usage: artifactflow mcp list [--json] [--no-start] | mcp test NAME | mcp serve [--allow-research])")
		return ExitUsage
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: mcp: unknown command %q (try: list, test NAME, serve)\n", sub)
		return ExitUsage
	}
}

// runMCPList prints every configured server: its transport, state, agents, permission
// and tools. Unless --no-start, the servers that are switched on are started first (all
// at once, each bounded by its timeout_seconds), so the states and tools are current; a
// server that fails is listed with its error and log's last lines, and the command still
// succeeds. --json prints the list as Settings → Tools gets it (app.MCPServerView).
func runMCPList(ctx context.Context, env Env, args []string) int {
	var asJSON, noStart bool
	g, _, ok := parse(env, "mcp list", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "write the servers as JSON")
		fs.BoolVar(&noStart, "no-start", false, "do not start the servers: show their settings only")
	})
	if !ok {
		return ExitUsage
	}
	if !asJSON {
		env.Stdout = termSafe{env.Stdout} // server names, tool descriptions and logs are the servers' text
	}
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	svc := core.Services().Settings
	views, err := svc.MCPServers()
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: mcp list: %v\n", text.OneLine(err))
		return ExitError
	}
	if !noStart {
		var wg sync.WaitGroup
		for _, v := range views {
			if v.Disabled {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = svc.TestMCPServer(v.Name) // the outcome shows in the list below
			}()
		}
		wg.Wait()
		if views, err = svc.MCPServers(); err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: mcp list: %v\n", text.OneLine(err))
			return ExitError
		}
	}
	if asJSON {
		enc := json.NewEncoder(jsonSafe{env.Stdout})
		enc.SetIndent("", "  ")
		_ = enc.Encode(views)
		return ExitOK
	}
	if len(views) == 0 {
		fmt.Fprintln(env.Stdout, `No MCP servers: add one in Settings → Tools, or under "mcp_servers" in config.json.`)
		return ExitOK
	}
	for i, v := range views {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		printServer(env.Stdout, v)
	}
	return ExitOK
}

// printServer writes one server: a heading line, its settings, and its tools or error.
func printServer(w io.Writer, v app.MCPServerView) {
	transport := v.ActiveTransport
	if transport == "" {
		transport = v.Transport
	}
	state := v.State
	if v.State == "running" {
		state = fmt.Sprintf("running, %d tools", len(v.Tools))
	}
	fmt.Fprintf(w, "%s  (%s)  %s\n", v.Name, transport, state)
	where := v.URL
	if v.Command != "" {
		where = strings.TrimSpace(v.Command + " " + strings.Join(v.Args, " "))
	}
	fmt.Fprintf(w, "  %s\n", where)
	fmt.Fprintf(w, "  agents: %s; permission: %s; timeout: %ds\n", strings.Join(v.Agents, ", "), v.Permission, v.TimeoutSeconds)
	if v.StdoutJunk > 0 {
		fmt.Fprintf(w, "  note: it wrote %d lines on stdout that are not MCP messages (ignored; see its log)\n", v.StdoutJunk)
	}
	if v.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", text.OneLine(errors.New(v.Error)))
		if len(v.LogTail) > 0 {
			fmt.Fprintln(w, "  last log lines:")
			for _, l := range v.LogTail {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
	}
	printTools(w, v.Tools)
}

// printTools writes one line per tool: its name, the name models get, whether it is
// offered, and its description's first line.
func printTools(w io.Writer, tools []app.MCPToolView) {
	if len(tools) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range tools {
		off := ""
		if !t.Enabled {
			off = " (off)"
		}
		desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		fmt.Fprintf(tw, "    %s%s\t%s\t%s\n", t.Name, off, t.QualifiedName, text.Clip(desc, 80))
	}
	_ = tw.Flush()
}

// runMCPTest starts the server NAME (at once, whatever its backoff) and lists its tools;
// it calls none. It prints the tools and exits 0, or prints one line saying why the
// server failed and exits 1 (ExitUsage without a name).
func runMCPTest(ctx context.Context, env Env, args []string) int {
	g, fs, ok := parse(env, "mcp test", args, nil)
	if !ok {
		return ExitUsage
	}
	name := strings.TrimSpace(fs.Arg(0))
	if rest := fs.Args(); len(rest) > 1 { // flags after the name
		if err := fs.Parse(rest[1:]); err != nil || fs.NArg() > 0 || g.finish() != nil {
			fmt.Fprintln(env.Stderr, "artifactflow: mcp test: give one server name and flags (usage: artifactflow mcp test [flags] NAME)")
			return ExitUsage
		}
	}
	if name == "" {
		fmt.Fprintln(env.Stderr, "artifactflow: mcp test: no server name given (usage: artifactflow mcp test [flags] NAME)")
		return ExitUsage
	}
	env.Stdout = termSafe{env.Stdout}
	env.Stderr = termSafe{env.Stderr}
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	res, err := core.Services().Settings.TestMCPServer(name)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: mcp test %s: %v\n", name, text.OneLine(err))
		return ExitError
	}
	if !res.OK {
		fmt.Fprintf(env.Stderr, "artifactflow: mcp test %s: %s\n", name, text.OneLine(errors.New(res.Error)))
		return ExitError
	}
	fmt.Fprintf(env.Stdout, "%s: ok, %d tools (%d ms)\n", name, len(res.Tools), res.DurationMS)
	printTools(env.Stdout, res.Tools)
	return ExitOK
}
