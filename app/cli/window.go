package cli

import (
	"context"
	"fmt"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/app/localapi"
	"artifactflow/internal/timeline"
)

// This file is the window command (`artifactflow` with no command): it opens the Core
// and the local API and hands them to the window, or hands the window request on.

func runWindow(ctx context.Context, env Env, args []string) int {
	var apiAddr string
	g, _, ok := parse(env, "artifactflow", args, apiAddrFlag(&apiAddr))
	if !ok {
		return ExitUsage
	}
	if err := localapi.CheckAddr(apiAddr); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: --api-addr: %v\n", err)
		return ExitUsage
	}
	if env.Window == nil && env.LaunchWindow != nil {
		// The flags are checked above, so --help and typos never start the window.
		code, err := env.LaunchWindow(env.Args)
		if err != nil {
			fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
			return ExitError
		}
		return code
	}
	if env.Window == nil {
		fmt.Fprintln(env.Stderr, "artifactflow: this build has no window; use ask or serve")
		return ExitError
	}
	timeline.Mark("core: open")
	core, err := newCore(ctx, env, g, true)
	if err != nil {
		return startFailed(env, err)
	}
	defer closeCore(core)
	timeline.Mark("core: ready")
	api, err := core.StartLocalAPI(ctx, apiAddr)
	if err != nil {
		return startFailed(env, err)
	}
	defer core.StopLocalAPI(api)
	timeline.Mark("local API started")
	// After the first paint, once idle: what the first PDF, token count and converter
	// child would otherwise wait for (app.Core.StartWarmup; logged at Info).
	core.StartWarmup(app.DefaultWarmupIdle)
	if err := env.Window(core); err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: window: %v\n", text.OneLine(err))
		return ExitError
	}
	return ExitOK
}
