package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"artifactflow/app/internal/text"
	"artifactflow/app/localapi"
	"artifactflow/backend/config"
	"artifactflow/backend/declared"
	"artifactflow/backend/store"
)

// This file is `artifactflow artifacts list|add|rm`: a conversation's declared artifacts,
// through the running app's local API or the database.

// declaredStore is what `artifacts` needs of declared artifacts: *localapi.Client (the
// running app) and dbArtifacts (the database) both provide it. clientID "" means
// localapi.AnonymousClient.
type declaredStore interface {
	List(ctx context.Context, conversationID string) ([]declared.Artifact, error)
	Add(ctx context.Context, conversationID, clientID string, inputs []declared.Input) ([]declared.Change, error)
	// RemoveResult removes one artifact, or only lifts the client's retention when other
	// clients still retain it (Released).
	RemoveResult(ctx context.Context, conversationID, artifactID, clientID string) (localapi.MutationResult, error)
}

// dbArtifacts reaches declared artifacts through the database when no app runs. Its
// caller is a client, as over the local API: never the user, so a client-retained
// artifact is removed only by a client that retains it.
type dbArtifacts struct{ svc *declared.Service }

// List returns the conversation's artifacts (declared.Service.List).
func (d dbArtifacts) List(ctx context.Context, conversationID string) ([]declared.Artifact, error) {
	return d.svc.List(ctx, conversationID)
}

// Add registers inputs as client clientID, strictly (declared.Service.Upsert).
func (d dbArtifacts) Add(ctx context.Context, conversationID, clientID string, inputs []declared.Input) ([]declared.Change, error) {
	if clientID == "" {
		clientID = localapi.AnonymousClient
	}
	for i := range inputs {
		inputs[i].Source, inputs[i].ClientID = declared.SourceClient, clientID
	}
	return d.svc.Upsert(ctx, conversationID, inputs, true)
}

// RemoveResult removes one artifact as client clientID (declared.Service.RemoveReport),
// answered as the local API would.
func (d dbArtifacts) RemoveResult(ctx context.Context, conversationID, artifactID, clientID string) (localapi.MutationResult, error) {
	if clientID == "" {
		clientID = localapi.AnonymousClient
	}
	rep, err := d.svc.RemoveReport(ctx, conversationID, artifactID, clientID)
	if err != nil {
		return localapi.MutationResult{}, err
	}
	return localapi.MutationResult{V: localapi.Version, SessionID: conversationID, Changes: rep.Changes, Released: rep.Released}, nil
}

// metadataFlag collects repeated --metadata key=value flags; values that read as JSON
// numbers or as true/false become numbers and booleans, others stay strings.
type metadataFlag map[string]any

// String returns the flags as k=v pairs (flag.Value).
func (m metadataFlag) String() string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	return strings.Join(parts, ",")
}

// reJSONNumber matches a JSON number ("007" and "1." are strings).
var reJSONNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// Set adds one key=value (flag.Value). Errors: no "=", an empty key, a repeated key.
func (m metadataFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return errors.New("want key=value")
	}
	if _, dup := m[k]; dup {
		return fmt.Errorf("key %q given twice", k)
	}
	switch {
	case v == "true" || v == "false":
		m[k] = v == "true"
	case reJSONNumber.MatchString(v):
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) {
			m[k] = v
		} else {
			m[k] = f
		}
	default:
		m[k] = v
	}
	return nil
}

// runArtifacts runs `artifactflow artifacts list|add|rm`: declared artifacts of one
// conversation, through the running app's local API when <data-dir>/api.json names a
// live process whose API answers, else through the database. Exit codes: 0 ok, 1 error
// (the field named for a validation failure), 2 bad usage.
func runArtifacts(ctx context.Context, env Env, args []string) int {
	env.Stderr = termSafe{env.Stderr}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(env.Stderr, "artifactflow: artifacts: missing subcommand: list, add or rm (see artifactflow help)")
		return ExitUsage
	}
	sub, args := args[0], args[1:]
	var conv, clientID string
	var asJSON bool
	var in declared.Input
	meta := metadataFlag{}
	switch sub {
	case "list", "add", "rm":
	case "help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "artifactflow: artifacts: unknown subcommand %q (list, add or rm)\n", sub)
		return ExitUsage
	}
	g, pos, ok := parseInterleaved(env, "artifacts "+sub, args, func(fs *flag.FlagSet) {
		fs.StringVar(&conv, "conversation", "", "the conversation (session) id")
		fs.BoolVar(&asJSON, "json", false, "write the API's JSON answer to stdout")
		if sub == "list" {
			return
		}
		fs.StringVar(&clientID, "client-id", "", "the client id to register or remove as (default "+localapi.AnonymousClient+")")
		if sub == "rm" {
			return
		}
		fs.StringVar(&in.Title, "title", "", "title (plain text, one line)")
		fs.StringVar(&in.URL, "url", "", "http(s) URL of the resource")
		fs.StringVar(&in.WorkspacePath, "workspace-path", "", "file path relative to the conversation's workspace folder")
		fs.StringVar(&in.ManagedID, "managed-id", "", "id of an app-managed file")
		fs.StringVar(&in.Kind, "kind", "", "html, image, video, audio, pdf, notebook, file, link or other (default: inferred)")
		fs.StringVar(&in.Description, "description", "", "description (plain text)")
		fs.StringVar(&in.MimeType, "mime-type", "", "MIME type")
		fs.Var(meta, "metadata", "key=value (repeatable; numbers and true/false are parsed)")
	})
	if !ok {
		return ExitUsage
	}
	name := "artifactflow: artifacts " + sub
	switch {
	case strings.TrimSpace(conv) == "":
		fmt.Fprintf(env.Stderr, "%s: --conversation ID is required\n", name)
		return ExitUsage
	case sub == "rm" && len(pos) != 1:
		fmt.Fprintf(env.Stderr, "%s: give exactly one artifact id (artifactflow artifacts rm --conversation ID ARTIFACT_ID)\n", name)
		return ExitUsage
	case sub != "rm" && len(pos) != 0:
		fmt.Fprintf(env.Stderr, "%s: unexpected argument %q\n", name, pos[0])
		return ExitUsage
	case sub == "add" && strings.TrimSpace(in.Title) == "":
		fmt.Fprintf(env.Stderr, "%s: --title is required\n", name)
		return ExitUsage
	case sub == "add" && countSet(in.URL, in.WorkspacePath, in.ManagedID) != 1:
		fmt.Fprintf(env.Stderr, "%s: give exactly one of --url, --workspace-path or --managed-id\n", name)
		return ExitUsage
	}
	if clientID != "" {
		if err := localapi.CheckClientID(clientID); err != nil {
			fmt.Fprintf(env.Stderr, "%s: --client-id: %v\n", name, err)
			return ExitUsage
		}
	}
	if len(meta) > 0 {
		in.Metadata = meta
	}

	dir, err := config.DataDir(g.dataDir)
	if err != nil {
		fmt.Fprintf(env.Stderr, "artifactflow: %v\n", text.OneLine(err))
		return ExitError
	}
	var st declaredStore
	c, err := localapi.Discover(ctx, dir)
	switch {
	case err == nil:
		defer c.Close()
		st = c
	case !errors.Is(err, localapi.ErrNoServer): // an app runs but did not answer: never write behind its back
		fmt.Fprintf(env.Stderr, "artifactflow: artifacts: %v; try again, or close the app\n", text.OneLine(err))
		return ExitError
	default:
		core, ok := openCore(ctx, env, g)
		if !ok {
			return ExitError
		}
		defer closeCore(core)
		st = dbArtifacts{core.Declared()}
	}

	out := termSafe{env.Stdout}
	var (
		changes  []declared.Change
		released bool
	)
	switch sub {
	case "list":
		arts, err := st.List(ctx, conv)
		if err != nil {
			return artifactsError(env, name, conv, err)
		}
		if arts == nil {
			arts = []declared.Artifact{}
		}
		if asJSON {
			return writeJSONOut(env, localapi.ArtifactsEnvelope{V: localapi.Version, SessionID: conv, Artifacts: arts})
		}
		printArtifacts(out, env.Stderr, conv, arts)
		return ExitOK
	case "add":
		changes, err = st.Add(ctx, conv, clientID, []declared.Input{in})
	case "rm":
		var res localapi.MutationResult
		res, err = st.RemoveResult(ctx, conv, pos[0], clientID)
		changes, released = res.Changes, res.Released
	}
	if err != nil {
		return artifactsError(env, name, conv, err)
	}
	if changes == nil {
		changes = []declared.Change{}
	}
	if asJSON {
		return writeJSONOut(env, localapi.MutationResult{V: localapi.Version, SessionID: conv, Changes: changes, Released: released})
	}
	switch {
	case len(changes) == 0 && sub == "add":
		fmt.Fprintln(out, "unchanged: this location is already registered")
	case released:
		fmt.Fprintf(out, "released %s: other clients still retain it, so it stays listed\n", pos[0])
	case len(changes) == 0:
		fmt.Fprintf(out, "%s: no such artifact; nothing removed\n", pos[0])
	}
	for _, c := range changes {
		title := ""
		if c.Artifact != nil {
			title = text.Clip(c.Artifact.Title, 60)
		}
		line := c.Action + " " + c.ArtifactID + "  " + title
		if c.Reason != "" {
			line += " (" + c.Reason + ")"
		}
		fmt.Fprintln(out, line)
	}
	return ExitOK
}

func countSet(values ...string) int {
	n := 0
	for _, v := range values {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	return n
}

// artifactsError prints err of an artifacts command on one line, naming the field of a
// validation failure, and returns ExitError.
func artifactsError(env Env, name, conv string, err error) int {
	var fe *declared.FieldError
	var ae *localapi.APIError
	switch {
	case errors.As(err, &fe):
		fmt.Fprintf(env.Stderr, "%s: invalid %s: %s\n", name, fe.Field, fe.Message)
	case errors.As(err, &ae) && ae.Field != "":
		fmt.Fprintf(env.Stderr, "%s: invalid %s: %s\n", name, ae.Field, ae.Message)
	case errors.Is(err, store.ErrNotFound):
		fmt.Fprintf(env.Stderr, "%s: no conversation %q\n", name, conv)
	case errors.Is(err, declared.ErrForbidden):
		fmt.Fprintf(env.Stderr, "%s: another client retains this artifact; pass --client-id of a client that retains it (or remove it in the app)\n", name)
	default:
		fmt.Fprintf(env.Stderr, "%s: %s\n", name, text.OneLine(err))
	}
	return ExitError
}

// printArtifacts prints arts as a table: id, kind, source, status, title, location.
func printArtifacts(out, errOut io.Writer, conv string, arts []declared.Artifact) {
	if len(arts) == 0 {
		fmt.Fprintf(errOut, "no declared artifacts in conversation %s\n", conv)
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSOURCE\tSTATUS\tTITLE\tLOCATION")
	for _, a := range arts {
		loc := a.URL
		switch {
		case a.WorkspacePath != "":
			loc = a.WorkspacePath
		case loc == "" && a.ManagedID != "":
			loc = "managed:" + a.ManagedID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.Kind, a.Source, a.Status, tabFree(text.Clip(a.Title, 60)), tabFree(loc))
	}
	_ = tw.Flush()
}

// tabFree replaces tabs, which would break the table, with spaces.
func tabFree(s string) string { return strings.ReplaceAll(s, "\t", " ") }
