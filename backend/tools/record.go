package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"artifactflow/backend/declared"
)

// RecordArtifactName is the name of the record_artifact tool.
const RecordArtifactName = "record_artifact"

// MetaDeclared is the Result.Metadata key holding the []declared.Change a successful
// record_artifact produced (created or updated, then any evictions); the engine emits one
// artifact_changed event per change.
const MetaDeclared = "declared_changes"

// Declarer stores declared artifacts; *declared.Service satisfies it. Upsert's contract
// is declared.Service.Upsert's: with strict set the first invalid input fails the call
// with a *declared.FieldError (wrapping declared.ErrValidation) and nothing is stored.
type Declarer interface {
	Upsert(ctx context.Context, conversationID string, inputs []declared.Input, strict bool) ([]declared.Change, error)
}

// RecordArtifact is the record_artifact tool: the lead registers one resource the user
// will want to open again — a link, a file in the conversation's workspace folder or a
// managed item — as a declared artifact of the conversation. Parameters (camelCase, as
// the local API's JSON): title (required), exactly one of url, workspacePath and managedId,
// and optionally kind, description, mimeType and metadata (an object of strings,
// numbers, booleans and null). A storage parameter is accepted for models that send the
// local API's full shape but never "published".
//
// Rules it keeps: one artifact per call; the input is validated by the declared
// store with strict set, so bad input (a file: or javascript: URL, two locations, storage
// published, a control character in the title ...) is a tool error "<field>: <message>"
// and declares nothing; the source is "tool" with the toolCallId and toolName
// "record_artifact" of the call (from CallFrom, never from parameters), and it is never a
// trusted publisher. The result tells the model what was recorded (recorded, title,
// location); the assigned id reaches the user through artifact_changed.
type RecordArtifact struct {
	// D stores the artifact; nil makes every call fail with a clear error.
	D Declarer
}

// Name returns "record_artifact".
func (RecordArtifact) Name() string { return RecordArtifactName }

// Description tells the model what the tool is for.
func (RecordArtifact) Description() string {
	return "Record one resource the user will want to open again (a dataset's page, an official tool or download page, " +
		"a file you were asked to produce) in the user's artifacts panel. Give a title and exactly one location: url " +
		"(http or https), workspacePath (a path relative to the conversation's workspace folder) or managedId. " +
		"Not for ordinary reference links or pages you read: those are sources."
}

// Params returns title, url, workspacePath, managedId, kind, description, mimeType and
// metadata, in that order.
func (RecordArtifact) Params() []Param {
	return []Param{
		{Name: "title", Type: "string", Required: true, Description: "Human-readable name of the resource, plain text, one line, at most 200 characters"},
		{Name: "url", Type: "string", Description: "The final http(s) URL to open (one location only)"},
		{Name: "workspacePath", Type: "string", Description: "A file inside the workspace folder, as a relative path such as reports/summary.pdf (one location only)"},
		{Name: "managedId", Type: "string", Description: "Id of an app-managed item (one location only)"},
		{Name: "kind", Type: "string", Description: "One of html, image, video, audio, pdf, notebook, file, link, other; inferred when omitted"},
		{Name: "description", Type: "string", Description: "One or two plain-text sentences for the user, at most 1000 characters"},
		{Name: "mimeType", Type: "string", Description: "MIME type, e.g. text/html or application/pdf"},
		{Name: "metadata", Type: "object", Description: "Small flat object of strings, numbers, booleans or null, e.g. {\"resourceType\": \"dataset\"}; no secrets"},
	}
}

// Execute records the artifact (see RecordArtifact). On success Data is the model's
// result as JSON, {"recorded": true, "title", "location", "note"}, and
// Metadata[MetaDeclared] holds the changes.
func (t RecordArtifact) Execute(ctx context.Context, p map[string]any) Result {
	info, ok := CallFrom(ctx)
	if !ok || info.ConversationID == "" {
		return Fail("record_artifact is not available here (no conversation)")
	}
	if t.D == nil {
		return Fail("record_artifact is not available in this app session")
	}
	in := declared.Input{Source: declared.SourceTool, ToolCallID: info.CallID, ToolName: RecordArtifactName}
	fields := []struct {
		name string
		dst  *string
	}{
		{"title", &in.Title}, {"url", &in.URL}, {"workspacePath", &in.WorkspacePath}, {"managedId", &in.ManagedID},
		{"kind", &in.Kind}, {"description", &in.Description}, {"mimeType", &in.MimeType}, {"storage", &in.Storage},
	}
	for _, f := range fields {
		v, ok := p[f.name]
		if !ok || v == nil {
			continue
		}
		s, isString := v.(string)
		if !isString {
			return Fail("%s: must be a string", f.name)
		}
		*f.dst = s
	}
	meta, err := metadataParam(p["metadata"])
	if err != nil {
		return Fail("metadata: %v", err)
	}
	in.Metadata = meta

	changes, err := t.D.Upsert(ctx, info.ConversationID, []declared.Input{in}, true)
	if err != nil {
		var fe *declared.FieldError
		if errors.As(err, &fe) {
			return Fail("%s", fe.Error())
		}
		return Fail("could not record the artifact: %v", err)
	}
	location := firstNonEmpty(in.WorkspacePath, in.ManagedID, in.URL)
	note := "It is in the user's artifacts panel; the assigned id is published through artifact_changed."
	if len(changes) == 0 {
		note = "It was already recorded; nothing changed."
	}
	out, _ := json.Marshal(struct {
		Recorded bool   `json:"recorded"`
		Title    string `json:"title"`
		Location string `json:"location"`
		Note     string `json:"note"`
	}{true, strings.TrimSpace(in.Title), strings.TrimSpace(location), note})
	r := OK(string(out))
	r.Metadata = map[string]any{MetaDeclared: changes}
	return r
}

// metadataParam returns the metadata parameter as an object: absent is nil, a JSON object
// as text (xml mode sends text) is decoded. The store checks the values and the size.
func metadataParam(v any) (map[string]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return x, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, nil
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(x), &m); err != nil || m == nil {
			return nil, errors.New("must be a JSON object of strings, numbers, booleans or null")
		}
		return m, nil
	default:
		return nil, errors.New("must be an object of strings, numbers, booleans or null")
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
