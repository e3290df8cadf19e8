package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"artifactflow/backend/exfil"
	"artifactflow/backend/localfiles"
	"artifactflow/backend/sources"
)

// FileIndex is what search_files and read_file need of the conversation's local-file index;
// *localfiles.Manager satisfies it.
type FileIndex interface {
	Search(ctx context.Context, conversationID, query string, limit int) ([]localfiles.Hit, error)
	Read(ctx context.Context, conversationID, path string, offset, limit int) (localfiles.Excerpt, error)
}

// SearchFiles is the search_files tool (search_agent, offered only when the conversation's
// index has files): full-text search over the conversation's workspace folder and uploads.
// Index runs the search; Sources, when set, numbers every file found in the conversation's
// source list (kind "file", location its path), so the agent can cite it as [n]. Guard,
// when set, remembers the passages shown, so that web_fetch refuses addresses carrying them
// (the run's exfil.Guard, shared with WebFetch).
type SearchFiles struct {
	Index   FileIndex
	Sources sources.Recorder
	Guard   *exfil.Guard
}

// Name returns "search_files".
func (SearchFiles) Name() string { return "search_files" }

// Description tells the model what the tool does.
func (SearchFiles) Description() string {
	return "Search the user's local files (the conversation's workspace folder and the files the user uploaded) for words. " +
		"Returns the best matching passages with the file's path, the line or PDF page and a source number to cite. " +
		"Every word must occur; Chinese and Japanese need no spaces; put a phrase in double quotes."
}

// Params returns query and limit.
func (SearchFiles) Params() []Param {
	return []Param{
		{Name: "query", Type: "string", Required: true, Description: "Words to find"},
		{Name: "limit", Type: "integer", Description: fmt.Sprintf("Number of passages, 1-%d (default %d)", localfiles.MaxSearchLimit, localfiles.DefaultSearchLimit)},
	}
}

// Execute searches the files of the call's conversation and lists the passages found, each
// as "[n] path (line L)" (or "(p. P)" for a PDF page) followed by its snippet, n being the
// file's number in the conversation's source list ("- path" when it could not be
// numbered). Metadata: MetaResults (passages) and MetaSources (the sources recorded).
func (t SearchFiles) Execute(ctx context.Context, p map[string]any) Result {
	q, err := String(p, "query", true)
	if err != nil {
		return Fail("%v", err)
	}
	limit, err := Int(p, "limit", localfiles.DefaultSearchLimit)
	if err != nil {
		return Fail("%v", err)
	}
	limit = min(max(limit, 1), localfiles.MaxSearchLimit)
	info, ok := CallFrom(ctx)
	if t.Index == nil || !ok || info.ConversationID == "" {
		return Fail("search_files is not available in this run")
	}
	hits, err := t.Index.Search(ctx, info.ConversationID, q, limit)
	if errors.Is(err, localfiles.ErrEmptyQuery) {
		return Fail("search_files: the query %q has no words to search for; give words the files would contain", q)
	}
	if err != nil {
		return Fail("search_files failed: %v", err)
	}
	if len(hits) == 0 {
		res := OK(fmt.Sprintf("No local file contains %q. Try fewer or other words (the files may use other terms or another language).", q))
		res.Metadata = map[string]any{MetaResults: 0}
		return res
	}
	var b strings.Builder
	var recorded []sources.Source
	numbers := map[string]int{}
	for _, h := range hits {
		t.Guard.Remember(h.Snippet)
		n, known := numbers[h.Path]
		if !known {
			src, ok := record(ctx, t.Sources, sources.Source{Kind: sources.KindFile, Location: h.Path, Title: path.Base(h.Path),
				Excerpt: h.Snippet, Page: h.Page, Line: h.Line})
			if ok {
				recorded = append(recorded, src)
				n = src.N
			}
			numbers[h.Path] = n
		}
		if n > 0 {
			fmt.Fprintf(&b, "[%d] %s%s\n", n, h.Path, where(h.Page, h.Line))
		} else {
			fmt.Fprintf(&b, "- %s%s\n", h.Path, where(h.Page, h.Line))
		}
		fmt.Fprintf(&b, "    %s\n", h.Snippet)
	}
	if len(recorded) > 0 {
		fmt.Fprintf(&b, "\nCite a file by its number in brackets, e.g. [%d]. read_file(path) reads a file in full.", recorded[0].N)
	}
	res := OK(strings.TrimRight(b.String(), "\n"))
	res.Metadata = map[string]any{MetaResults: len(hits)}
	if len(recorded) > 0 {
		res.Metadata[MetaSources] = recorded
	}
	return res
}

// where renders a hit's place: " (p. 3)" for a PDF page, else " (line 12)".
func where(page, line int) string {
	switch {
	case page > 0:
		return fmt.Sprintf(" (p. %d)", page)
	case line > 0:
		return fmt.Sprintf(" (line %d)", line)
	}
	return ""
}

// ReadFile is the read_file tool (crawl_agent, offered only when the conversation's index
// has files): the text of one local file by lines, confined to the conversation's workspace
// folder by the containment rules of declared workspace files and to the files its index
// holds (never hidden or dependency folders; localfiles.Index.Read). Sources, when set,
// records the file as a fetched source and the result starts with its number. Guard, when
// set, remembers the text read, so that web_fetch refuses addresses carrying it (the run's
// exfil.Guard, shared with WebFetch).
type ReadFile struct {
	Index   FileIndex
	Sources sources.Recorder
	Guard   *exfil.Guard
}

// Name returns "read_file".
func (ReadFile) Name() string { return "read_file" }

// Description tells the model what the tool does.
func (ReadFile) Description() string {
	return "Read one of the user's local files as text, by lines: a file of the conversation's workspace folder " +
		"(a path relative to it, as search_files shows it) or an uploaded file (@uploads/name). PDF, Word and HTML are converted to text. " +
		"Only indexed files are read: never hidden files or folders or dependency folders."
}

// Params returns path, offset and limit.
func (ReadFile) Params() []Param {
	return []Param{
		{Name: "path", Type: "string", Required: true, Description: "The file's path relative to the workspace folder, e.g. notes/plan.md"},
		{Name: "offset", Type: "integer", Description: "First line to read, from 1 (default 1)"},
		{Name: "limit", Type: "integer", Description: fmt.Sprintf("Number of lines, 1-%d (default %d)", localfiles.MaxReadLines, localfiles.DefaultReadLines)},
	}
}

// Execute reads the lines asked for and returns "Source [n]: path" ("File: path" when it
// could not be numbered), which lines of how many (and the PDF page they start on), the
// text, and how to read on when more lines follow. A path outside the workspace, a missing
// file, one that is not text or one the index does not hold gives a failed Result saying
// so.
func (t ReadFile) Execute(ctx context.Context, p map[string]any) Result {
	fp, err := String(p, "path", true)
	if err != nil {
		return Fail("%v", err)
	}
	offset, err := Int(p, "offset", 1)
	if err != nil {
		return Fail("%v", err)
	}
	limit, err := Int(p, "limit", localfiles.DefaultReadLines)
	if err != nil {
		return Fail("%v", err)
	}
	limit = min(max(limit, 1), localfiles.MaxReadLines)
	info, ok := CallFrom(ctx)
	if t.Index == nil || !ok || info.ConversationID == "" {
		return Fail("read_file is not available in this run")
	}
	ex, err := t.Index.Read(ctx, info.ConversationID, strings.TrimSpace(fp), max(offset, 1), limit)
	if err != nil {
		return Fail("read_file: %v", err)
	}
	t.Guard.Remember(ex.Text)
	var b strings.Builder
	src, numbered := record(ctx, t.Sources, sources.Source{Kind: sources.KindFile, Location: ex.Path, Title: ex.Title,
		Excerpt: sources.Excerpt(ex.Text), Fetched: true})
	if numbered {
		fmt.Fprintf(&b, "Source [%d]: %s\n", src.N, ex.Path)
	} else {
		fmt.Fprintf(&b, "File: %s\n", ex.Path)
	}
	switch {
	case ex.TotalLines == 0:
		b.WriteString("The file is empty.")
	case ex.ToLine < ex.FromLine:
		fmt.Fprintf(&b, "The file has %d lines; line %d is past its end.", ex.TotalLines, ex.FromLine)
	default:
		fmt.Fprintf(&b, "Lines %d-%d of %d", ex.FromLine, ex.ToLine, ex.TotalLines)
		if ex.Page > 0 {
			fmt.Fprintf(&b, " (from p. %d)", ex.Page)
		}
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRight(ex.Text, "\n"))
		if ex.More {
			fmt.Fprintf(&b, "\n\n[more: call read_file with offset=%d to go on]", ex.ToLine+1)
		}
	}
	res := OK(b.String())
	if numbered {
		res.Metadata = map[string]any{MetaSources: []sources.Source{src}}
	}
	return res
}

// ReadOnly reports true: a SearchFiles call touches none of the run's artifacts (tools.ReadOnly).
func (SearchFiles) ReadOnly() bool { return true }

// ReadOnly reports true: a ReadFile call touches none of the run's artifacts (tools.ReadOnly).
func (ReadFile) ReadOnly() bool { return true }
