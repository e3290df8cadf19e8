package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"artifactflow/backend/declared"
)

// captureDeclarer records what record_artifact hands to the declared store and answers
// with err, or one created change. (The store's own validation is tested with the real
// store in the engine's tests.)
type captureDeclarer struct {
	conv   string
	inputs []declared.Input
	strict bool
	err    error
}

func (c *captureDeclarer) Upsert(_ context.Context, conv string, in []declared.Input, strict bool) ([]declared.Change, error) {
	c.conv, c.inputs, c.strict = conv, in, strict
	if c.err != nil {
		return nil, c.err
	}
	return []declared.Change{{Action: declared.ActionCreated, ArtifactID: "a1"}}, nil
}

// TestRecordArtifactInput: one strict input per call with source tool, toolName
// record_artifact and the call id from the call context (never from parameters); metadata
// given as JSON text (xml mode) is decoded; a *FieldError becomes "<field>: <message>".
func TestRecordArtifactInput(t *testing.T) {
	ctx := WithCall(context.Background(), CallInfo{ConversationID: "conv", CallID: "call_9", ToolName: RecordArtifactName})
	d := &captureDeclarer{}
	res := RecordArtifact{D: d}.Execute(ctx, map[string]any{"title": " Dataset ", "url": "https://example.org/d",
		"metadata": `{"resourceType":"dataset"}`, "source": "client", "toolCallId": "forged", "storage": "external_url"})
	if !res.Success {
		t.Fatalf("result = %+v", res)
	}
	if d.conv != "conv" || !d.strict || len(d.inputs) != 1 {
		t.Fatalf("Upsert(%q, %d inputs, strict %v)", d.conv, len(d.inputs), d.strict)
	}
	in := d.inputs[0]
	if in.Source != declared.SourceTool || in.ToolCallID != "call_9" || in.ToolName != "record_artifact" || in.TrustedPublisher ||
		in.URL != "https://example.org/d" || in.Storage != "external_url" || in.Metadata["resourceType"] != "dataset" {
		t.Fatalf("input = %+v", in)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Data), &out); err != nil || out["recorded"] != true || out["title"] != "Dataset" ||
		out["location"] != "https://example.org/d" {
		t.Fatalf("llmContent = %s (%v)", res.Data, err)
	}
	if ch, _ := res.Metadata[MetaDeclared].([]declared.Change); len(ch) != 1 {
		t.Fatalf("metadata = %+v", res.Metadata)
	}

	tests := []struct {
		name   string
		params map[string]any
		d      Declarer
		want   string
	}{
		{"field error", map[string]any{"title": "x", "url": "file:///etc/passwd"},
			&captureDeclarer{err: fmt.Errorf("wrapped: %w", &declared.FieldError{Field: "url", Message: "must use http or https"})}, "url: must use http or https"},
		{"metadata not an object", map[string]any{"title": "x", "url": "https://e.org", "metadata": []any{1}}, &captureDeclarer{}, "metadata: "},
		{"metadata text not JSON", map[string]any{"title": "x", "url": "https://e.org", "metadata": "a=1"}, &captureDeclarer{}, "metadata: "},
		{"title not text", map[string]any{"title": 42.0, "url": "https://e.org"}, &captureDeclarer{}, "title: "},
		{"no store", map[string]any{"title": "x", "url": "https://e.org"}, nil, "not available"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := RecordArtifact{D: tc.d}.Execute(ctx, tc.params)
			if res.Success || !strings.HasPrefix(res.Error, tc.want) && !strings.Contains(res.Error, tc.want) {
				t.Fatalf("result = %+v, want an error %q", res, tc.want)
			}
			if c, ok := tc.d.(*captureDeclarer); ok && c.err == nil && c.inputs != nil {
				t.Fatal("a refused call reached the store")
			}
		})
	}
	if res := (RecordArtifact{D: d}).Execute(context.Background(), map[string]any{"title": "x"}); res.Success {
		t.Fatal("record_artifact without a call context succeeded")
	}
}
