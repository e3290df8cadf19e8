package toolcall

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// wantCall is the expected outcome of one parsed xml call.
type wantCall struct {
	name   string
	params map[string]any
	err    bool
}

var parseXMLTests = []struct {
	name string
	text string
	want []wantCall
}{
	{
		name: "canonical",
		text: `I will search.
<tool_call><name>web_search</name><params><query><![CDATA[go fuzzing]]></query><count><![CDATA[5]]></count></params></tool_call>`,
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "go fuzzing", "count": 5.0}}},
	},
	{
		name: "whitespace and newlines around names and values",
		text: "<tool_call>\n  <name>\n web_search \n</name>\n  <params>\n    <query>\n  <![CDATA[go]]>\n </query>\n  </params>\n</tool_call>\n",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "go"}}},
	},
	{
		name: "CDATA content kept exactly",
		text: "<tool_call><name>update_artifact</name><params><id>r</id><old_str><![CDATA[  line one\n\tline two\n]]></old_str><new_str><![CDATA[]]></new_str></params></tool_call>",
		want: []wantCall{{name: "update_artifact", params: map[string]any{"id": "r", "old_str": "  line one\n\tline two\n", "new_str": ""}}},
	},
	{
		name: "CDATA holding markup, a fence and a tool_call example",
		text: "```xml\n<tool_call><name>create_artifact</name><params><id>doc</id><content_type>text/markdown</content_type><title>T</title>" +
			"<content><![CDATA[# Doc\n```go\nx := a < b && c > d\n```\n</content></params></tool_call> <tool_call>]]></content></params></tool_call>\n```\nDone.",
		want: []wantCall{{name: "create_artifact", params: map[string]any{"id": "doc", "content_type": "text/markdown", "title": "T",
			"content": "# Doc\n```go\nx := a < b && c > d\n```\n</content></params></tool_call> <tool_call>"}}},
	},
	{
		name: "CDATA split around ]]>",
		text: "<tool_call><name>web_search</name><params><query><![CDATA[a]]]]><![CDATA[>b]]></query></params></tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "a]]>b"}}},
	},
	{
		name: "tool name as tag",
		text: "Searching now.\n<web_search><query>x</query></web_search>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x"}}},
	},
	{
		name: "tool name as tag with params wrapper and CDATA",
		text: "<web_fetch>\n<params><url><![CDATA[https://example.com/?a=1&b=2]]></url></params>\n</web_fetch>",
		want: []wantCall{{name: "web_fetch", params: map[string]any{"url": "https://example.com/?a=1&b=2"}}},
	},
	{
		name: "tool name as tag inside tool_call",
		text: "<tool_call><web_search><query>x</query><count>2</count></web_search></tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x", "count": 2.0}}},
	},
	{
		name: "tool name as tag without parameters",
		text: "<web_search></web_search>",
		want: []wantCall{{name: "web_search", params: map[string]any{}}},
	},
	{
		name: "missing params wrapper",
		text: "<tool_call><name>web_search</name><query><![CDATA[x]]></query><count>3</count></tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x", "count": 3.0}}},
	},
	{
		name: "parameters instead of params",
		text: "<tool_call><name>web_search</name><parameters><query>x</query></parameters></tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x"}}},
	},
	{
		name: "unclosed CDATA at end of text",
		text: "<tool_call><name>create_artifact</name><params><id>r</id><content><![CDATA[# Report\n\nFirst part",
		want: []wantCall{{name: "create_artifact", params: map[string]any{"id": "r", "content": "# Report\n\nFirst part"}}},
	},
	{
		name: "CDATA never closed but element closed",
		text: "<tool_call><name>web_search</name><params><query><![CDATA[x y</query></params></tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x y"}}},
	},
	{
		name: "missing closing tags at end of text",
		text: "<tool_call>\n<name>web_search</name>\n<params>\n<query>rust async\n",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "rust async"}}},
	},
	{
		name: "missing params and tool_call closers",
		text: "<tool_call><name>web_fetch</name><params><url>https://a.example</url>",
		want: []wantCall{{name: "web_fetch", params: map[string]any{"url": "https://a.example"}}},
	},
	{
		name: "value without its closing tag ends at </params>",
		text: "<tool_call><name>web_search</name><params><query>x</params></tool_call> Then more prose.",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x"}}},
	},
	{
		name: "name without </name>",
		text: "<tool_call><name>web_search\n<params><query>x</query></params></tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x"}}},
	},
	{
		name: "name in CDATA",
		text: "<tool_call><name><![CDATA[web_search]]></name><params><query>x</query></params></tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x"}}},
	},
	{
		name: "escaped text without CDATA",
		text: "<tool_call><name>update_artifact</name><params><id>r</id><old_str>if a &lt; b &amp;&amp; c &gt; d &quot;q&quot; &apos;s&apos; &#60;&#x3E;</old_str><new_str>x</new_str></params></tool_call>",
		want: []wantCall{{name: "update_artifact", params: map[string]any{"id": "r", "old_str": `if a < b && c > d "q" 's' <>`, "new_str": "x"}}},
	},
	{
		name: "non-XML entities and bare ampersands kept",
		text: "<tool_call><name>web_fetch</name><params><url>https://x.example/?a=1&copy=2&b&amp;c &#0; &#xZZ;</url></params></tool_call>",
		want: []wantCall{{name: "web_fetch", params: map[string]any{"url": "https://x.example/?a=1&copy=2&b&c &#0; &#xZZ;"}}},
	},
	{
		name: "whole call in a code fence",
		text: "Let me look.\n\n```xml\n<tool_call>\n<name>web_search</name>\n<params>\n<query><![CDATA[x]]></query>\n</params>\n</tool_call>\n```\n",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x"}}},
	},
	{
		name: "fenced call with an unclosed value: the closing fence is not part of it",
		text: "```xml\n<tool_call><name>web_search</name><params><query>x\n```\nMore prose.",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x"}}},
	},
	{
		name: "self-closing parameter",
		text: "<tool_call><name>web_search</name><params><query>x</query><count/></params></tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x", "count": ""}}},
	},
	{
		name: "attributes on tags are ignored",
		text: `<tool_call id="1"><name>web_search</name><params><query type="string">x</query></params></tool_call>`,
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x"}}},
	},
	{
		name: "unknown tool keeps its name and string params",
		text: "<tool_call><name>delete_everything</name><params><count>3</count></params></tool_call>",
		want: []wantCall{{name: "delete_everything", params: map[string]any{"count": "3"}}},
	},
	{
		name: "missing name is an error",
		text: "<tool_call><params><query>x</query></params></tool_call>",
		want: []wantCall{{err: true}},
	},
	{
		name: "empty name is an error",
		text: "<tool_call><name> </name></tool_call>",
		want: []wantCall{{err: true}},
	},
	{
		name: "two calls in order",
		text: "<tool_call><name>web_search</name><params><query>a</query></params></tool_call>\n" +
			"<web_fetch><url>u</url></web_fetch>",
		want: []wantCall{
			{name: "web_search", params: map[string]any{"query": "a"}},
			{name: "web_fetch", params: map[string]any{"url": "u"}},
		},
	},
	{
		name: "unterminated call followed by another",
		text: "<tool_call><name>web_search</name><params><query>a\n<tool_call><name>web_fetch</name><params><url>u</url></params></tool_call>",
		want: []wantCall{
			{name: "web_search", params: map[string]any{"query": "a"}},
			{name: "web_fetch", params: map[string]any{"url": "u"}},
		},
	},
	{
		name: "JSON body (Hermes/Qwen style)",
		text: "<tool_call>\n{\"name\": \"web_search\", \"arguments\": {\"query\": \"x\", \"count\": 2}}\n</tool_call>",
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x", "count": 2.0}}},
	},
	{
		name: "JSON body with string-encoded parameters",
		text: `<tool_call>{"name": "web_search", "parameters": "{\"query\": \"x\", \"count\": \"3\"}"}</tool_call> after`,
		want: []wantCall{{name: "web_search", params: map[string]any{"query": "x", "count": 3.0}}},
	},
	{
		name: "JSON body without arguments",
		text: `<tool_call>{"name": "web_search"}`,
		want: []wantCall{{name: "web_search", params: map[string]any{}}},
	},
	{
		name: "JSON body that does not decode",
		text: `<tool_call>{"name": "web_search", "arguments": {"query": }}</tool_call>`,
		want: []wantCall{{err: true}},
	},
	{
		name: "JSON body with non-object arguments",
		text: `<tool_call>{"name": "web_search", "arguments": ["x"]}</tool_call>`,
		want: []wantCall{{err: true}},
	},
	{
		name: "prose with HTML and tags in text is not a call",
		text: "Use <b>bold</b> and a < b. The <web_search> tool finds pages; <web_fetch/> reads them. I answer without a <tool_call> block.",
		want: nil,
	},
	{name: "empty", text: "", want: nil},
}

func TestParseXML(t *testing.T) {
	for _, tt := range parseXMLTests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseXML(tt.text, testTools)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d calls %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				c := got[i]
				if !strings.Contains(tt.text, c.Raw) || c.Raw == "" {
					t.Errorf("call %d: Raw %q is not a part of the text", i, c.Raw)
				}
				if w.err {
					if !errors.Is(c.Err, ErrMalformedCall) || !strings.Contains(c.Err.Error(), "<name>TOOL</name>") {
						t.Errorf("call %d: Err = %v, want ErrMalformedCall showing the format", i, c.Err)
					}
					continue
				}
				if c.Err != nil {
					t.Fatalf("call %d: Err = %v", i, c.Err)
				}
				if c.Name != w.name || !reflect.DeepEqual(c.Params, w.params) {
					t.Errorf("call %d = %q %#v, want %q %#v", i, c.Name, c.Params, w.name, w.params)
				}
			}
		})
	}
}

func TestParseXMLRaw(t *testing.T) {
	call := "<tool_call><name>web_search</name><params><query>x</query></params></tool_call>"
	got := ParseXML("Before.\n"+call+"\nAfter.", testTools)
	if len(got) != 1 || got[0].Raw != call || got[0].ID != "" {
		t.Fatalf("ParseXML = %+v, want one call with Raw %q and no ID", got, call)
	}
}

func TestParseXMLCoercion(t *testing.T) {
	tests := []struct {
		tool, param, text string
		want              any
	}{
		{"web_search", "count", "5", 5.0},
		{"web_search", "count", " 7\n", 7.0},
		{"web_search", "count", "2.5", 2.5},
		{"web_search", "count", "-3e2", -300.0},
		{"web_search", "count", "five", "five"},
		{"web_search", "count", "NaN", "NaN"},
		{"web_search", "count", "Inf", "Inf"},
		{"web_search", "count", "1e999", "1e999"},
		{"web_search", "count", "", ""},
		{"tune", "ratio", "0.25", 0.25},
		{"tune", "enabled", "true", true},
		{"tune", "enabled", "FALSE", false},
		{"tune", "enabled", " True ", true},
		{"tune", "enabled", "yes", "yes"},
		{"tune", "enabled", "1", "1"},
		{"tune", "label", "42", "42"},            // declared without a type: string
		{"web_search", "query", "42", "42"},      // declared string
		{"web_search", "undeclared", "42", "42"}, // not a declared parameter
		{"no_such_tool", "count", "5", "5"},      // unknown tool: no coercion
		{"web_fetch", "max_content_length", "8000", 8000.0},
		// An object or array parameter (an MCP tool's) is written as JSON text.
		{"structured", "filter", ` {"lang": "en", "max": 3} `, map[string]any{"lang": "en", "max": 3.0}},
		{"structured", "edits", `[{"oldText": "a", "newText": "b"}]`, []any{map[string]any{"oldText": "a", "newText": "b"}}},
		{"structured", "filter", `[1]`, `[1]`},          // not an object: kept as text
		{"structured", "edits", `{"a": 1}`, `{"a": 1}`}, // not an array
		{"structured", "filter", `{broken`, `{broken`},
	}
	for _, tt := range tests {
		text := FormatXMLCall(tt.tool, map[string]string{tt.param: tt.text})
		got := ParseXML(text, testTools)
		if len(got) != 1 || got[0].Err != nil {
			t.Fatalf("%s.%s=%q: ParseXML = %+v", tt.tool, tt.param, tt.text, got)
		}
		if v := got[0].Params[tt.param]; !reflect.DeepEqual(v, tt.want) {
			t.Errorf("%s.%s=%q: got %#v, want %#v", tt.tool, tt.param, tt.text, v, tt.want)
		}
	}
}

func TestStripXMLCalls(t *testing.T) {
	call := "<tool_call><name>web_search</name><params><query>x</query></params></tool_call>"
	tests := []struct {
		name, text, want string
		withTools        bool
	}{
		{name: "no call", text: "  Just an answer.\n", want: "Just an answer."},
		{name: "call only", text: "\n" + call + "\n", want: ""},
		{name: "prose around a call", text: "I will search.\n" + call + "\nThen summarise.", want: "I will search.\n\nThen summarise."},
		{name: "fenced call", text: "Searching.\n```xml\n" + call + "\n```\n", want: "Searching."},
		{name: "fenced call cut off", text: "Searching.\n```\n<tool_call><name>web_search</name><params><query>x", want: "Searching."},
		{name: "earlier code block is kept", text: "```go\nx := 1\n```\n" + call, want: "```go\nx := 1\n```"},
		{name: "truncated call at the end", text: "Working on it. <tool_call><name>web_search</name><params><query>x", want: "Working on it."},
		{name: "tool tag kept without tools", text: "A <web_search><query>x</query></web_search>", want: "A <web_search><query>x</query></web_search>"},
		{name: "tool tag removed with tools", text: "A <web_search><query>x</query></web_search> B", want: "A\n\nB", withTools: true},
		{name: "CDATA content is not prose", text: "A\n<tool_call><name>create_artifact</name><params><content><![CDATA[</tool_call> B]]></content></params></tool_call>\nC", want: "A\n\nC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			if tt.withTools {
				got = StripXMLCalls(tt.text, testTools...)
			} else {
				got = StripXMLCalls(tt.text)
			}
			if got != tt.want {
				t.Errorf("StripXMLCalls = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatXMLCallRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]string
	}{
		{"web_search", map[string]string{"query": "go", "count": "3"}},
		{"create_artifact", map[string]string{"content": "x ]]> y ]]]]> <![CDATA[ z </content> ]]", "id": "a"}},
		{"update_artifact", map[string]string{"old_str": "\n  padded \t\n", "new_str": ""}},
		{"a<b&c\"d", map[string]string{"params": "p", "name": "n", "x.y-z:w": "v"}},
		{"no_params", map[string]string{}},
	}
	for _, tt := range tests {
		text := FormatXMLCall(tt.name, tt.params)
		got := ParseXML(text, nil)
		if len(got) != 1 || got[0].Err != nil || got[0].Name != tt.name {
			t.Fatalf("ParseXML(FormatXMLCall(%q)) = %+v", tt.name, got)
		}
		if !reflect.DeepEqual(got[0].Params, stringParams(tt.params)) {
			t.Errorf("%s: params = %#v, want %#v", tt.name, got[0].Params, tt.params)
		}
	}
}

func stringParams(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// isXMLName reports whether s is a parameter name FormatXMLCall supports.
func isXMLName(s string) bool {
	if s == "" || s == tagToolCall || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func FuzzParseXML(f *testing.F) {
	for _, tt := range parseXMLTests {
		f.Add(tt.text, "web_search", "query", "x", "count", "3")
	}
	f.Add("```xml\n<tool_call><name>", "a&b", "content", "]]>", "id", "<![CDATA[")
	f.Add("<web_search>\n<", " ", "params", "", "tool_call", "\n")
	f.Fuzz(func(t *testing.T, text, name, k1, v1, k2, v2 string) {
		// Any text: no panic, and every call is a decoded part of the text.
		for _, c := range ParseXML(text, testTools) {
			if !strings.Contains(text, c.Raw) {
				t.Fatalf("Raw %q is not part of the text", c.Raw)
			}
			if (c.Err == nil) != (c.Params != nil) || c.Err == nil && c.Name == "" {
				t.Fatalf("inconsistent call %+v", c)
			}
		}
		_ = StripXMLCalls(text, testTools...)

		// A call written by FormatXMLCall parses back unchanged, alone or after prose.
		if name == "" || name != strings.TrimSpace(name) {
			return
		}
		params := map[string]string{}
		for _, kv := range [][2]string{{k1, v1}, {k2, v2}} {
			if isXMLName(kv[0]) {
				params[kv[0]] = kv[1]
			}
		}
		call := FormatXMLCall(name, params)
		prose := strings.ReplaceAll(text, "<", "")
		for _, in := range []string{call, prose + "\n" + call} {
			got := ParseXML(in, nil)
			if len(got) != 1 {
				t.Fatalf("ParseXML(%q) = %d calls, want 1", in, len(got))
			}
			if got[0].Err != nil || got[0].Name != name || !reflect.DeepEqual(got[0].Params, stringParams(params)) {
				t.Fatalf("ParseXML(%q) = %+v, want %q %#v", in, got[0], name, params)
			}
			if got[0].Raw != call {
				t.Fatalf("Raw = %q, want %q", got[0].Raw, call)
			}
		}
		if s := StripXMLCalls(call); s != "" {
			t.Fatalf("StripXMLCalls(%q) = %q, want empty", call, s)
		}
		// A fence line right before the call makes it a fenced call, whose fence goes too.
		if !strings.Contains(prose, "```") {
			in := prose + "\n" + call
			if s, want := StripXMLCalls(in), strings.TrimSpace(prose); s != want {
				t.Fatalf("StripXMLCalls(%q) = %q, want the prose %q", in, s, want)
			}
		}
	})
}

// benchResponse is a ~20 KB answer of Markdown prose with some markup, ending in one call.
func benchResponse() string {
	var b strings.Builder
	para := "Async runtimes in Rust (tokio, async-std) schedule futures on a work-stealing pool; " +
		"a `Vec<u8>` buffer & an `Arc<Mutex<T>>` are common, and x < y holds when a > b. See <https://example.com/a?b=1&c=2>.\n\n"
	for b.Len() < 20*1024 {
		b.WriteString(para)
	}
	b.WriteString(FormatXMLCall("create_artifact", map[string]string{
		"id": "report", "content_type": "text/markdown", "title": "Report", "content": "# Report\n\nBody with ]]> and <tags>.",
	}))
	return b.String()
}

func BenchmarkParseXML(b *testing.B) {
	text := benchResponse()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if calls := ParseXML(text, testTools); len(calls) != 1 || calls[0].Err != nil {
			b.Fatalf("ParseXML = %+v", calls)
		}
	}
}
