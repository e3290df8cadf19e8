package toolcall

import (
	"encoding/xml"
	"reflect"
	"strings"
	"testing"

	"artifactflow/backend/tools"
)

// parsedResult is a <tool_result> as read by encoding/xml, an independent parser.
type parsedResult struct {
	XMLName xml.Name `xml:"tool_result"`
	Name    string   `xml:"name,attr"`
	Success string   `xml:"success,attr"`
	Data    string   `xml:"data"`
	Error   *string  `xml:"error"`
}

func TestFormatXMLResultRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		r    tools.Result
	}{
		{"web_search", tools.OK("1. Result <b>one</b> & two")},
		{"web_fetch", tools.OK("code: if a[b[0]]>c { x = ]]> }")},
		{"read_artifact", tools.OK("]]>]]>]]]]>><![CDATA[")},
		{"create_artifact", tools.OK("")},
		{`we"ird<&>`, tools.Fail("artifact %q exists]]>; use update_artifact", "x")},
		{"update_artifact", tools.Result{Success: false, Data: "partial ]]> data", Error: "old_str matched 2 places"}},
		{"web_search", tools.Result{Success: true, Data: "\n  leading and trailing space \n", Metadata: map[string]any{"secret": "never sent"}}},
	}
	for _, tt := range tests {
		out := FormatXMLResult(tt.name, tt.r)
		var got parsedResult
		if err := xml.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("FormatXMLResult output is not XML: %v\n%s", err, out)
		}
		wantSuccess := "false"
		if tt.r.Success {
			wantSuccess = "true"
		}
		if got.Name != tt.name || got.Success != wantSuccess || got.Data != tt.r.Data {
			t.Errorf("round trip of %q = %+v, want data %q success %s", tt.name, got, tt.r.Data, wantSuccess)
		}
		switch {
		case tt.r.Success && got.Error != nil:
			t.Errorf("%s: success result has <error> %q", tt.name, *got.Error)
		case !tt.r.Success && (got.Error == nil || *got.Error != tt.r.Error):
			t.Errorf("%s: <error> = %v, want %q", tt.name, got.Error, tt.r.Error)
		}
		if strings.Contains(out, "never sent") {
			t.Errorf("metadata leaked into the result: %s", out)
		}
	}
}

func TestFormatXMLResultShape(t *testing.T) {
	got := FormatXMLResult("web_search", tools.Result{Success: false, Error: "no results"})
	want := "<tool_result name=\"web_search\" success=\"false\">\n<data><![CDATA[]]></data>\n<error><![CDATA[no results]]></error>\n</tool_result>"
	if got != want {
		t.Errorf("FormatXMLResult =\n%s\nwant\n%s", got, want)
	}
	got = FormatXMLResult("web_search", tools.OK("a]]>b"))
	want = "<tool_result name=\"web_search\" success=\"true\">\n<data><![CDATA[a]]]]><![CDATA[>b]]></data>\n</tool_result>"
	if got != want {
		t.Errorf("FormatXMLResult =\n%s\nwant\n%s", got, want)
	}
}

func TestFormatXMLCallShape(t *testing.T) {
	got := FormatXMLCall("web_search", map[string]string{"query": "go", "count": "3"})
	want := "<tool_call>\n<name>web_search</name>\n<params>\n<count><![CDATA[3]]></count>\n<query><![CDATA[go]]></query>\n</params>\n</tool_call>"
	if got != want {
		t.Errorf("FormatXMLCall =\n%s\nwant\n%s", got, want)
	}
}

func TestXMLInstructions(t *testing.T) {
	if got := XMLInstructions(nil); got != "" {
		t.Errorf("XMLInstructions(nil) = %q, want empty", got)
	}
	ts := []tools.Tool{testTools[0], testTools[4], fakeTool{name: "ping", desc: "Check."}}
	got := XMLInstructions(ts)
	for _, want := range []string{
		"<tool_call>\n<name>TOOL_NAME</name>\n<params>\n<PARAMETER_NAME><![CDATA[value]]></PARAMETER_NAME>\n</params>\n</tool_call>",
		"write all their <tool_call> blocks in one message",
		"A call that needs another call's result goes in a later message",
		"one per call in the order of your calls",
		`<tool_result name="TOOL_NAME" success="true|false">`,
		"### web_search\nSearch the web.\n",
		"- query (string, required): What to search for.\n",
		"- count (integer, optional): How many results.\n",
		"- enabled (boolean, optional)\n",
		"- label (string, optional)\n",
		"### ping\nCheck.\nParameters: none.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("XMLInstructions lacks %q:\n%s", want, got)
		}
	}
	// The example is a real call: it parses to the first tool with its required params.
	_, example, ok := strings.Cut(got, "## Example\n")
	if !ok {
		t.Fatalf("no example in:\n%s", got)
	}
	calls := ParseXML(example, ts)
	if len(calls) != 1 || calls[0].Name != "web_search" || !reflect.DeepEqual(calls[0].Params, map[string]any{"query": "..."}) {
		t.Errorf("example parses to %+v, want one web_search call with a query", calls)
	}
	// The whole prompt holds exactly that one example call: the format template has no
	// real tool name, so the engine never mistakes its own instructions for a call.
	if calls := ParseXML(got, ts); len(calls) != 2 || calls[0].Name != "TOOL_NAME" || calls[1].Name != "web_search" {
		t.Errorf("ParseXML(instructions) = %+v, want the template then the example", calls)
	}
}
