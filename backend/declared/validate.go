package declared

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"artifactflow/backend/store"
)

// Bounds of the locators (the app's own; the display fields have their own bounds).
const (
	maxURLBytes       = 8 << 10
	maxPathBytes      = 4 << 10
	maxManagedIDBytes = 512
	maxMimeTypeRunes  = 255
	maxRetainers      = 32 // client ids remembered per artifact (who may remove it)
)

// candidate is one valid input, normalized: what Upsert merges into the store.
type candidate struct {
	index    int
	source   string
	trusted  bool
	identity string // "workspace:<path>", "managed:<id>" or "url:<identity url>"

	kind, storage, title, description       string
	workspacePath, managedID, url, mimeType string
	metadata                                map[string]any // nil when none
	stat                                    wsStat         // storage workspace only

	toolCallID, toolName, hookName, clientID string
}

// rootFunc returns the conversation's workspace, resolved; it is called at most once per
// batch. An error wrapping store.ErrNotFound aborts the whole call.
type rootFunc func() (workspaceRoot, error)

// fieldErr builds the *FieldError of input index.
func fieldErr(index int, field, msg string) *FieldError {
	return &FieldError{Index: index, Field: field, Message: msg}
}

// validateInput checks and normalizes one input. It returns a *FieldError for an
// invalid input, or another error (the conversation does not exist) that must abort the
// call.
func validateInput(in Input, index int, root rootFunc) (candidate, error) {
	c := candidate{index: index, source: in.Source, trusted: in.TrustedPublisher,
		toolCallID: in.ToolCallID, toolName: in.ToolName, hookName: in.HookName, clientID: in.ClientID}
	switch in.Source {
	case SourceTool, SourceHook, SourceClient:
	default:
		return c, fieldErr(index, "source", "must be tool, hook or client (set by the entry point)")
	}

	// Title: required, trimmed 1–200 characters, one line, plain text.
	c.title = strings.TrimSpace(in.Title)
	if c.title == "" {
		return c, fieldErr(index, "title", "is required")
	}
	if n := utf8.RuneCountInString(c.title); n > MaxTitleRunes {
		return c, fieldErr(index, "title", "must be at most 200 characters")
	}
	if msg := checkText(c.title, false); msg != "" {
		return c, fieldErr(index, "title", msg)
	}
	// Description: trimmed, at most 1,000 characters, line breaks allowed.
	c.description = strings.TrimSpace(in.Description)
	if utf8.RuneCountInString(c.description) > MaxDescription {
		return c, fieldErr(index, "description", "must be at most 1000 characters")
	}
	if msg := checkText(c.description, true); msg != "" {
		return c, fieldErr(index, "description", msg)
	}

	// Kind and storage: known values only on input.
	c.kind = strings.TrimSpace(in.Kind)
	switch c.kind {
	case "", KindHTML, KindImage, KindVideo, KindAudio, KindPDF, KindNotebook, KindFile, KindLink, KindOther:
	default:
		return c, fieldErr(index, "kind", "must be one of html, image, video, audio, pdf, notebook, file, link, other")
	}
	c.storage = strings.TrimSpace(in.Storage)
	switch c.storage {
	case "", StorageWorkspace, StorageManaged, StorageExternalURL:
	case StoragePublish:
		// Only a trusted publisher (never a payload field) may publish.
		if !in.TrustedPublisher {
			return c, fieldErr(index, "storage", "published is reserved for the app's publisher")
		}
	default:
		return c, fieldErr(index, "storage", "must be one of workspace, managed, external_url")
	}

	// Locators: exactly one, except a trusted publish (url plus an optional managedId).
	ws, mid, u := strings.TrimSpace(in.WorkspacePath), strings.TrimSpace(in.ManagedID), strings.TrimSpace(in.URL)
	published := c.storage == StoragePublish
	switch {
	case published:
		if u == "" {
			return c, fieldErr(index, "url", "is required for a published artifact")
		}
		if ws != "" {
			return c, fieldErr(index, "workspacePath", "a published artifact is located by its url only")
		}
	case ws == "" && mid == "" && u == "":
		return c, fieldErr(index, "url", "one of workspacePath, managedId or url is required")
	case ws != "" && (mid != "" || u != ""):
		return c, fieldErr(index, second(mid, "managedId", "url"), "only one of workspacePath, managedId or url may be set")
	case mid != "" && u != "":
		return c, fieldErr(index, "url", "only one of workspacePath, managedId or url may be set")
	}
	// Storage defaults and consistency (workspacePath → workspace, managedId without
	// url → managed, url → external_url).
	want := StorageExternalURL
	switch {
	case ws != "":
		want = StorageWorkspace
	case u == "":
		want = StorageManaged
	}
	if c.storage == "" {
		c.storage = want
	} else if c.storage != want && !published {
		return c, fieldErr(index, "storage", c.storage+" does not match the location given (want "+want+")")
	}

	switch {
	case ws != "":
		p, err := validateWorkspacePath(ws, index, root, &c.stat)
		if err != nil {
			return c, err
		}
		c.workspacePath = p
		c.identity = "workspace:" + p
	case u != "":
		click, ident, err := validateURL(u, index, published, root)
		if err != nil {
			return c, err
		}
		c.url = click
		c.identity = "url:" + ident
		if mid != "" { // published only: a managed reference beside the url, not part of the identity
			if c.managedID, err = validateManagedID(mid, index); err != nil {
				return c, err
			}
		}
	default:
		p, err := validateManagedID(mid, index)
		if err != nil {
			return c, err
		}
		c.managedID = p
		c.identity = "managed:" + p
	}
	if c.kind == "" {
		c.kind = inferKind(c.storage, c.workspacePath, c.url)
	}

	c.mimeType = strings.TrimSpace(in.MimeType)
	if utf8.RuneCountInString(c.mimeType) > maxMimeTypeRunes {
		return c, fieldErr(index, "mimeType", "must be at most 255 characters")
	}
	if msg := checkText(c.mimeType, false); msg != "" {
		return c, fieldErr(index, "mimeType", msg)
	}

	m, ferr := checkMetadata(in.Metadata, index)
	if ferr != nil {
		return c, ferr
	}
	c.metadata = m
	return c, nil
}

// second names the second locator given beside workspacePath.
func second(managedID, ifManaged, otherwise string) string {
	if managedID != "" {
		return ifManaged
	}
	return otherwise
}

// validateWorkspacePath checks a workspacePath input: relative, no ".." escape, and on
// disk a realpath containment check that also follows dangling symbolic links; a path that
// does not exist yet is accepted (status missing). st receives the stat.
func validateWorkspacePath(p string, index int, root rootFunc, st *wsStat) (string, error) {
	if len(p) > maxPathBytes {
		return "", fieldErr(index, "workspacePath", "must be at most 4096 bytes")
	}
	if hasControl(p) {
		return "", fieldErr(index, "workspacePath", "must not contain control characters")
	}
	clean, msg := cleanWorkspacePath(p)
	if msg != "" {
		return "", fieldErr(index, "workspacePath", msg)
	}
	r, err := root()
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return "", err
		}
		return "", fieldErr(index, "workspacePath", "the conversation has no workspace folder")
	}
	*st = r.check(clean)
	if st.escape {
		return "", fieldErr(index, "workspacePath", "must stay inside the workspace (a symbolic link leads outside)")
	}
	return clean, nil
}

// validateURL checks and normalizes a url input (identityUrl and url): parsed with
// net/url, http or https only, userinfo dropped, scheme and host lower-cased, the default
// port dropped. It returns the clickable URL (fragment kept) and the identity URL
// (fragment dropped, empty path as "/"). A trusted publish may also give a file: URL of a
// file inside the workspace.
func validateURL(raw string, index int, published bool, root rootFunc) (string, string, error) {
	bad := func(msg string) (string, string, error) { return "", "", fieldErr(index, "url", msg) }
	if len(raw) > maxURLBytes {
		return bad("must be at most 8192 bytes")
	}
	if hasControl(raw) {
		return bad("must not contain control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("is not a valid URL")
	}
	switch u.Scheme { // url.Parse lower-cases the scheme
	case "http", "https":
	case "file":
		if published {
			return publishedFileURL(u, index, root)
		}
		return bad("must use http or https")
	case "":
		return bad("must be an absolute http or https URL")
	default:
		return bad("must use http or https")
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return bad("must be an absolute http or https URL with a host")
	}
	u.User = nil
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return bad("has an invalid port")
		}
		port = strings.TrimLeft(port, "0")
	}
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	click := u.String()
	id := *u
	id.Fragment, id.RawFragment = "", ""
	if id.Path == "" && id.RawPath == "" {
		id.Path = "/"
	}
	return click, id.String(), nil
}

// publishedFileURL accepts a trusted publisher's file: URL of a file inside the workspace.
func publishedFileURL(u *url.URL, index int, root rootFunc) (string, string, error) {
	bad := func(msg string) (string, string, error) { return "", "", fieldErr(index, "url", msg) }
	if u.Host != "" && u.Host != "localhost" {
		return bad("a file: URL must name a local file")
	}
	p := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(p) {
		return bad("a file: URL must name an absolute path")
	}
	r, err := root()
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return "", "", err
		}
		return bad("the conversation has no workspace folder")
	}
	real, _, err := realPath(p, nil)
	if err != nil || r.err != nil || !within(r.real, real) {
		return bad("a file: URL must name a file inside the workspace")
	}
	s := (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
	return s, s, nil
}

// validateManagedID checks a managedId: trimmed, not empty, no path separators, no
// "..", no control characters, no drive letter; case kept.
func validateManagedID(id string, index int) (string, error) {
	switch {
	case id == "":
		return "", fieldErr(index, "managedId", "must not be empty")
	case len(id) > maxManagedIDBytes:
		return "", fieldErr(index, "managedId", "must be at most 512 bytes")
	case strings.ContainsAny(id, `/\`):
		return "", fieldErr(index, "managedId", "must not contain / or \\")
	case strings.Contains(id, ".."):
		return "", fieldErr(index, "managedId", "must not contain ..")
	case hasControl(id):
		return "", fieldErr(index, "managedId", "must not contain control characters")
	case hasDriveLetter(id):
		return "", fieldErr(index, "managedId", "must not be a local path")
	}
	return id, nil
}

// Extensions of the kinds inferred from a workspace path (lower case).
var (
	imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true,
		".svg": true, ".bmp": true, ".ico": true, ".avif": true, ".tif": true, ".tiff": true, ".heic": true}
	videoExts = map[string]bool{".mp4": true, ".webm": true, ".mov": true, ".mkv": true, ".avi": true,
		".m4v": true, ".ogv": true, ".mpeg": true, ".mpg": true}
	audioExts = map[string]bool{".mp3": true, ".wav": true, ".ogg": true, ".oga": true, ".flac": true,
		".m4a": true, ".aac": true, ".opus": true, ".weba": true}
)

// inferKind is the kind default: published → html; a url without workspacePath →
// link; a workspacePath by extension (.html/.htm → html, images → image, video → video,
// audio → audio, .pdf → pdf, .ipynb → notebook, else file); otherwise other.
func inferKind(storage, workspacePath, u string) string {
	switch {
	case storage == StoragePublish:
		return KindHTML
	case u != "" && workspacePath == "":
		return KindLink
	case workspacePath != "":
		ext := strings.ToLower(path.Ext(workspacePath))
		switch {
		case ext == ".html" || ext == ".htm":
			return KindHTML
		case imageExts[ext]:
			return KindImage
		case videoExts[ext]:
			return KindVideo
		case audioExts[ext]:
			return KindAudio
		case ext == ".pdf":
			return KindPDF
		case ext == ".ipynb":
			return KindNotebook
		}
		return KindFile
	}
	return KindOther
}

// checkMetadata validates metadata: a flat object of strings (safe display text, one
// line), finite numbers, booleans and nulls, keys non-empty safe text, at most
// MaxMetadataBytes as compact JSON. It returns a copy with numbers as float64, or nil for
// an empty map. Keys are checked in sorted order so the first error is stable.
func checkMetadata(m map[string]any, index int) (map[string]any, *FieldError) {
	if len(m) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(m))
	for _, k := range keys {
		if strings.TrimSpace(k) == "" {
			return nil, fieldErr(index, "metadata", "keys must not be empty")
		}
		if msg := checkText(k, false); msg != "" {
			return nil, fieldErr(index, "metadata", "a key "+msg)
		}
		field := "metadata." + k
		v, msg := metadataValue(m[k])
		if msg != "" {
			return nil, fieldErr(index, field, msg)
		}
		out[k] = v
	}
	if b, err := canonicalJSON(out); err != nil || len(b) > MaxMetadataBytes {
		return nil, fieldErr(index, "metadata", "must be at most 4096 bytes as JSON")
	}
	return out, nil
}

// metadataValue normalizes one metadata value or says why it is refused.
func metadataValue(v any) (any, string) {
	var f float64
	switch x := v.(type) {
	case nil, bool:
		return x, ""
	case string:
		if msg := checkText(x, false); msg != "" {
			return nil, msg
		}
		return x, ""
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int8:
		f = float64(x)
	case int16:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint8:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint64:
		f = float64(x)
	case json.Number:
		g, err := x.Float64()
		if err != nil {
			return nil, "must be a finite number"
		}
		f = g
	default:
		return nil, "must be a string, number, boolean or null (no objects or arrays)"
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, "must be a finite number"
	}
	return f, ""
}

// canonicalJSON encodes v compactly with sorted keys and without HTML escaping: the form
// metadata is measured, stored and compared in (so key order never matters).
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
