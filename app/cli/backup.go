package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/backend/backup"
	"artifactflow/backend/config"
)

// runBackup runs `artifactflow backup --out FILE`: the whole data directory into one
// backup file while the app may run (docs/ARCHITECTURE.md, "Conversation files and
// backups"). Exit codes: 0 ok, 1 error, 2 bad usage.
func runBackup(ctx context.Context, env Env, args []string) int {
	env.Stderr = termSafe{env.Stderr}
	var out string
	g, pos, ok := parseInterleaved(env, "backup", args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "the backup file to write (a zip archive)")
	})
	if !ok {
		return ExitUsage
	}
	switch {
	case len(pos) != 0:
		fmt.Fprintf(env.Stderr, "artifactflow: backup: unexpected argument %q (artifactflow backup --out FILE)\n", pos[0])
		return ExitUsage
	case strings.TrimSpace(out) == "":
		fmt.Fprintln(env.Stderr, "artifactflow: backup: --out FILE is required")
		return ExitUsage
	}
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	res, err := core.BackupFile(ctx, out)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: backup: %s\n", text.OneLine(err))
		return ExitError
	}
	fmt.Fprintf(termSafe{env.Stdout}, "backed up %s to %s (%.1f MB): %d conversations, %d uploads, %d workspace files; API keys are not in it\n",
		core.DataDir(), out, float64(res.Size)/(1<<20), res.Conversations, res.Uploads, res.Files)
	return ExitOK
}

// runRestore runs `artifactflow restore FILE`: the data directory (--data-dir, or the
// default) replaced by the backup, which is checked in full first; the previous data is
// kept in before-restore-<time>/. It refuses while an ArtifactFlow process runs on that
// data directory (exit 1): close it, or restore into another one with --data-dir. Exit
// codes: 0 ok, 1 error (nothing changed), 2 bad usage.
func runRestore(ctx context.Context, env Env, args []string) int {
	env.Stderr = termSafe{env.Stderr}
	g, pos, ok := parseInterleaved(env, "restore", args, nil)
	if !ok {
		return ExitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "artifactflow: restore: give exactly one backup file (artifactflow restore FILE)")
		return ExitUsage
	}
	dir, err := config.DataDir(g.dataDir)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
		return ExitError
	}
	res, err := app.Restore(ctx, dir, pos[0])
	if err != nil {
		msg := text.OneLine(err)
		if errors.Is(err, backup.ErrInUse) {
			msg = fmt.Sprintf("ArtifactFlow is running on %s: close it first, or restore into another folder with --data-dir", dir)
		}
		fmt.Fprintf(env.Stderr, "artifactflow: restore: %s; nothing was changed\n", msg)
		return ExitError
	}
	out := termSafe{env.Stdout}
	fmt.Fprintf(out, "restored %d conversations into %s from the backup of %s\n", res.Conversations, dir, res.Manifest.CreatedAt.Local().Format("2006-01-02 15:04"))
	if res.Interrupted > 0 {
		fmt.Fprintf(out, "%d runs were going when the backup was taken; they are marked interrupted\n", res.Interrupted)
	}
	if res.Aside != "" {
		fmt.Fprintf(out, "the previous data is in %s; delete it once you are satisfied\n", res.Aside)
	}
	if res.ConfigRestored {
		fmt.Fprintln(out, "settings restored without API keys: enter them again in Settings")
	} else if res.Manifest.Config {
		fmt.Fprintln(out, "the existing settings (config.json) were kept")
	}
	return ExitOK
}
