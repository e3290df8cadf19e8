package toolcall

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"artifactflow/backend/llm"
	"artifactflow/backend/tools"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{in: "", want: ModeNative},
		{in: "native", want: ModeNative},
		{in: "xml", want: ModeXML},
		{in: " XML ", want: ModeXML},
		{in: "Native", want: ModeNative},
		{in: "json", wantErr: true},
		{in: "x ml", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrUnknownMode) {
				t.Errorf("ParseMode(%q) error = %v, want ErrUnknownMode", tt.in, err)
			} else if !strings.Contains(err.Error(), `"native"`) || !strings.Contains(err.Error(), `"xml"`) {
				t.Errorf("ParseMode(%q) error %q does not list the valid values", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestNativeDefs(t *testing.T) {
	defs := NativeDefs([]tools.Tool{testTools[0], testTools[4]})
	got, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"web_search","description":"Search the web.","parameters":{` +
		`"properties":{"count":{"description":"How many results.","type":"integer"},` +
		`"query":{"description":"What to search for.","type":"string"}},` +
		`"required":["query"],"type":"object"}},` +
		`{"name":"tune","description":"Adjust settings.","parameters":{` +
		`"properties":{"enabled":{"type":"boolean"},"label":{"type":"string"},"ratio":{"type":"number"}},` +
		`"required":[],"type":"object"}}]`
	if string(got) != want {
		t.Errorf("NativeDefs JSON =\n%s\nwant\n%s", got, want)
	}
}

func TestNativeInstructions(t *testing.T) {
	s := NativeInstructions()
	for _, want := range []string{"make them all in one message", "in the order of your calls", "needs another call's result in a later message"} {
		if !strings.Contains(s, want) {
			t.Errorf("NativeInstructions() = %q, want %q: independent calls together, dependent ones later", s, want)
		}
	}
}

func TestParseNative(t *testing.T) {
	tests := []struct {
		name    string
		call    llm.ToolCall
		want    map[string]any
		wantErr []string // substrings of Err; nil means no error
	}{
		{
			name: "valid",
			call: llm.ToolCall{ID: "c1", Name: "web_search", Arguments: `{"query": "go fuzzing", "count": 3}`},
			want: map[string]any{"query": "go fuzzing", "count": 3.0},
		},
		{
			name: "nested values kept",
			call: llm.ToolCall{ID: "c1", Name: "tune", Arguments: `{"enabled": true, "label": null, "x": [1, "a"], "y": {"z": false}}`},
			want: map[string]any{"enabled": true, "label": nil, "x": []any{1.0, "a"}, "y": map[string]any{"z": false}},
		},
		{name: "empty arguments", call: llm.ToolCall{ID: "c1", Name: "web_search", Arguments: ""}, want: map[string]any{}},
		{name: "blank arguments", call: llm.ToolCall{ID: "c1", Name: "web_search", Arguments: " \n"}, want: map[string]any{}},
		{name: "null arguments", call: llm.ToolCall{ID: "c1", Name: "web_search", Arguments: "null"}, want: map[string]any{}},
		{
			name: "double-encoded object",
			call: llm.ToolCall{ID: "c1", Name: "web_search", Arguments: `"{\"query\": \"rust\", \"count\": 2}"`},
			want: map[string]any{"query": "rust", "count": 2.0},
		},
		{
			name: "trailing garbage",
			call: llm.ToolCall{ID: "c1", Name: "web_search", Arguments: `{"query": "rust"}}<|call_end|>`},
			want: map[string]any{"query": "rust"},
		},
		{
			name: "code fence",
			call: llm.ToolCall{ID: "c1", Name: "web_search", Arguments: "```json\n{\"query\": \"rust\"}\n```"},
			want: map[string]any{"query": "rust"},
		},
		{
			name: "name padded with spaces",
			call: llm.ToolCall{ID: "c1", Name: " web_search\n", Arguments: `{"query": "q"}`},
			want: map[string]any{"query": "q"},
		},
		{
			name:    "truncated JSON",
			call:    llm.ToolCall{ID: "c1", Name: "web_search", Arguments: `{"query": "x"`},
			wantErr: []string{"arguments for web_search are not valid JSON", "unexpected end of JSON input at byte offset 13", `send one JSON object like {"query": "..."}`},
		},
		{
			name:    "single quotes",
			call:    llm.ToolCall{ID: "c1", Name: "web_fetch", Arguments: `{'url': 'https://example.com'}`},
			wantErr: []string{"not valid JSON", "byte offset 2", `{"url": "..."}`},
		},
		{
			name:    "array instead of object",
			call:    llm.ToolCall{ID: "c1", Name: "web_search", Arguments: `["rust"]`},
			wantErr: []string{"must be a JSON object, not an array", `{"query": "..."}`},
		},
		{
			name:    "bare string",
			call:    llm.ToolCall{ID: "c1", Name: "web_search", Arguments: `"rust"`},
			wantErr: []string{"must be a JSON object, not a string"},
		},
		{
			name:    "triple-encoded is not unwrapped twice",
			call:    llm.ToolCall{ID: "c1", Name: "web_search", Arguments: `"\"{\\\"query\\\": \\\"x\\\"}\""`},
			wantErr: []string{"must be a JSON object, not a string"},
		},
		{
			name:    "example lists all params when none is required",
			call:    llm.ToolCall{ID: "c1", Name: "tune", Arguments: `{`},
			wantErr: []string{`{"enabled": true, "ratio": 1, "label": "..."}`},
		},
		{
			name:    "unknown tool gets a generic example",
			call:    llm.ToolCall{ID: "c1", Name: "nope", Arguments: `{`},
			wantErr: []string{`{"parameter": "value"}`},
		},
		{
			name:    "missing name",
			call:    llm.ToolCall{ID: "c1", Arguments: `{"query": "x"}`},
			wantErr: []string{"no function name", "web_search, web_fetch, create_artifact"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseNative([]llm.ToolCall{tt.call}, testTools)
			if len(got) != 1 {
				t.Fatalf("got %d calls, want 1", len(got))
			}
			c := got[0]
			if c.Raw != tt.call.Arguments || c.ID != tt.call.ID {
				t.Errorf("ID, Raw = %q, %q; want %q, %q", c.ID, c.Raw, tt.call.ID, tt.call.Arguments)
			}
			if tt.wantErr != nil {
				if !errors.Is(c.Err, ErrMalformedCall) {
					t.Fatalf("Err = %v, want ErrMalformedCall", c.Err)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(c.Err.Error(), s) {
						t.Errorf("Err = %q, want it to contain %q", c.Err, s)
					}
				}
				return
			}
			if c.Err != nil {
				t.Fatalf("Err = %v", c.Err)
			}
			if c.Name != strings.TrimSpace(tt.call.Name) {
				t.Errorf("Name = %q", c.Name)
			}
			if !reflect.DeepEqual(c.Params, tt.want) {
				t.Errorf("Params = %#v, want %#v", c.Params, tt.want)
			}
		})
	}
}

func TestParseNativeIDsAndOrder(t *testing.T) {
	got := ParseNative([]llm.ToolCall{
		{Name: "web_search", Arguments: `{"query": "a"}`},
		{ID: "call_abc", Name: "web_fetch", Arguments: `{"url": "u"}`},
		{Name: "web_search", Arguments: `{"query": "b"}`},
	}, testTools)
	var ids, names []string
	for _, c := range got {
		ids = append(ids, c.ID)
		names = append(names, c.Name)
	}
	if want := []string{"call_1", "call_abc", "call_3"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("IDs = %q, want %q", ids, want)
	}
	if want := []string{"web_search", "web_fetch", "web_search"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names = %q, want %q", names, want)
	}
	if got := ParseNative(nil, testTools); len(got) != 0 {
		t.Errorf("ParseNative(nil) = %v, want none", got)
	}
}
