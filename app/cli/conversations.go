package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"artifactflow/app"
	"artifactflow/app/internal/text"
	"artifactflow/backend/store"
)

// runConversations runs `artifactflow conversations export ID --out FILE` and
// `artifactflow conversations import FILE`: one conversation to a conversation file and
// back (docs/ARCHITECTURE.md, "Conversation files and backups"). Both work while the app
// runs on the same data dir (the export reads one consistent instant; the import is one
// transaction; the window shows the new conversation when its list reloads). Exit codes:
// 0 ok, 1 error (an unknown conversation, a bad file: nothing imported), 2 bad usage.
func runConversations(ctx context.Context, env Env, args []string) int {
	env.Stderr = termSafe{env.Stderr}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(env.Stderr, "artifactflow: conversations: missing subcommand: export or import (see artifactflow help)")
		return ExitUsage
	}
	sub, args := args[0], args[1:]
	var out string
	switch sub {
	case "export", "import":
	case "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: conversations: unknown subcommand %q (export or import)\n", sub)
		return ExitUsage
	}
	name := "artifactflow: conversations " + sub
	g, pos, ok := parseInterleaved(env, "conversations "+sub, args, func(fs *flag.FlagSet) {
		if sub == "export" {
			fs.StringVar(&out, "out", "", "the file to write (a zip archive; by convention NAME"+".artifactflow.zip)")
		}
	})
	if !ok {
		return ExitUsage
	}
	switch {
	case sub == "export" && len(pos) != 1:
		fmt.Fprintf(env.Stderr, "%s: give exactly one conversation id (artifactflow conversations export ID --out FILE)\n", name)
		return ExitUsage
	case sub == "export" && strings.TrimSpace(out) == "":
		fmt.Fprintf(env.Stderr, "%s: --out FILE is required\n", name)
		return ExitUsage
	case sub == "import" && len(pos) != 1:
		fmt.Fprintf(env.Stderr, "%s: give exactly one file (artifactflow conversations import FILE)\n", name)
		return ExitUsage
	}
	core, ok := openCore(ctx, env, g)
	if !ok {
		return ExitError
	}
	defer closeCore(core)
	stdout := termSafe{env.Stdout}
	if sub == "export" {
		m, err := core.ExportConversationFile(ctx, pos[0], out)
		if errors.Is(err, store.ErrNotFound) {
			fmt.Fprintf(env.Stderr, "%s: no conversation %q\n", name, pos[0])
			return ExitError
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: %s\n", name, text.OneLine(err))
			return ExitError
		}
		rows := map[string]int{}
		for _, t := range m.Tables {
			rows[t.Name] = t.Rows
		}
		fmt.Fprintf(stdout, "exported %q to %s: %d messages, %d events, %d artifacts (%d versions), %d sources, %d declared links and files, %d uploads, %d workspace files\n",
			text.Clip(m.Conversation.Title, 60), out, rows["messages"], rows["message_events"], rows["artifacts"], rows["artifact_versions"],
			rows["sources"], rows["declared_artifacts"], len(m.Blobs), len(m.Files))
		for _, l := range m.LeftOut {
			fmt.Fprintf(env.Stderr, "%s: left out %s: %s\n", name, l.Path, l.Reason)
		}
		return ExitOK
	}
	res, err := core.ImportConversationFile(ctx, pos[0])
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %s; nothing was imported\n", name, text.OneLine(importMessage(err)))
		return ExitError
	}
	fmt.Fprintf(stdout, "imported %q as conversation %s: %d messages, %d artifacts, %d uploads, %d workspace files\n",
		text.Clip(res.Title, 60), res.ConversationID, res.Messages, res.Artifacts, res.Uploads, res.Files)
	return ExitOK
}

// importMessage is the sentence of an import error (an *app.AppError's message, without
// its code), else err's text.
func importMessage(err error) error {
	var ae *app.AppError
	if errors.As(err, &ae) {
		return errors.New(ae.Message)
	}
	return err
}
