package toolcall

import (
	"sort"
	"strings"

	"artifactflow/backend/tools"
)

// xmlEscaper escapes text for XML element content and double-quoted attributes.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// cdata wraps s in a CDATA section. A "]]>" inside s is split across two sections
// ("]]" ends one, ">" starts the next), so any s round-trips through an XML parser.
func cdata(s string) string {
	return cdataOpen + strings.ReplaceAll(s, cdataClose, "]]"+cdataClose+cdataOpen+">") + cdataClose
}

// FormatXMLCall writes one xml-mode tool call in the canonical form ParseXML reads:
//
//	<tool_call>
//	<name>N</name>
//	<params>
//	<P><![CDATA[v]]></P>
//	</params>
//	</tool_call>
//
// with parameters sorted by name so the output is deterministic. The name is XML-escaped
// and each value is wrapped in CDATA (see FormatXMLResult for "]]>"), so ParseXML returns
// name and params unchanged as long as the name has no surrounding whitespace and each
// parameter name is an XML name ([A-Za-z_][A-Za-z0-9_.:-]*) other than "tool_call".
// It is used by tests and by the scripted model server (llm/llmtest).
func FormatXMLCall(name string, params map[string]string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("<tool_call>\n<name>")
	b.WriteString(xmlEscaper.Replace(name))
	b.WriteString("</name>\n<params>\n")
	for _, k := range keys {
		b.WriteString("<" + k + ">")
		b.WriteString(cdata(params[k]))
		b.WriteString("</" + k + ">\n")
	}
	b.WriteString("</params>\n</tool_call>")
	return b.String()
}

// FormatXMLResult renders a tool result for the model in xml mode:
//
//	<tool_result name="N" success="true|false">
//	<data><![CDATA[…]]></data>
//	<error><![CDATA[…]]></error>
//	</tool_result>
//
// <error> is left out on success. The name is attribute-escaped; data and error are
// wrapped in CDATA with any "]]>" split across two sections, so an XML parser reads them
// back exactly. r.Metadata is never sent to the model.
func FormatXMLResult(name string, r tools.Result) string {
	var b strings.Builder
	b.WriteString(`<tool_result name="`)
	b.WriteString(xmlEscaper.Replace(name))
	if r.Success {
		b.WriteString(`" success="true">`)
	} else {
		b.WriteString(`" success="false">`)
	}
	b.WriteString("\n<data>" + cdata(r.Data) + "</data>\n")
	if !r.Success {
		b.WriteString("<error>" + cdata(r.Error) + "</error>\n")
	}
	b.WriteString("</tool_result>")
	return b.String()
}

// XMLInstructions returns the tool-use instructions appended to the system prompt in xml
// mode (tool instructions follow the role prompt): the exact call format, the rule that
// independent calls go in one message and a call that needs another's result waits for it,
// the result format (one <tool_result> per call, in call order), then each tool with its
// description and parameters (name, type, required or optional, description), and one
// example call for the first tool. It returns "" when ts is empty: an agent without tools
// gets no instructions.
func XMLInstructions(ts []tools.Tool) string {
	if len(ts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<tool_instructions>
## How to call a tool
To call a tool, write this block in your reply:

<tool_call>
<name>TOOL_NAME</name>
<params>
<PARAMETER_NAME><![CDATA[value]]></PARAMETER_NAME>
</params>
</tool_call>

Rules:
- When you need several calls that do not depend on each other (several searches, pages or sub-agent tasks), write all their <tool_call> blocks in one message: they run at the same time. A call that needs another call's result goes in a later message. End your message after the last </tool_call> block and wait for the results; they come back in the next message, one per call in the order of your calls, as <tool_result name="TOOL_NAME" success="true|false"><data>...</data><error>...</error></tool_result>.
- Wrap every parameter value in <![CDATA[ and ]]> so it can hold any text, including <, > and &. Write numbers and booleans as plain text, such as 5 or true.
- Use only the tools and parameter names listed below. Leave out optional parameters you do not need.
- When you need no tool, answer directly, without a <tool_call> block.

## Available tools
`)
	for _, t := range ts {
		b.WriteString("\n### " + t.Name() + "\n")
		if d := strings.TrimSpace(t.Description()); d != "" {
			b.WriteString(d + "\n")
		}
		if len(t.Params()) == 0 {
			b.WriteString("Parameters: none.\n")
			continue
		}
		b.WriteString("Parameters:\n")
		for _, p := range t.Params() {
			req := "optional"
			if p.Required {
				req = "required"
			}
			b.WriteString("- " + p.Name + " (" + paramType(p) + ", " + req + ")")
			if d := strings.TrimSpace(p.Description); d != "" {
				b.WriteString(": " + d)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n## Example\n")
	b.WriteString(FormatXMLCall(ts[0].Name(), exampleValues(ts[0])))
	b.WriteString("\n</tool_instructions>")
	return b.String()
}

// exampleValues returns placeholder values for an example call of t (see exampleParams).
func exampleValues(t tools.Tool) map[string]string {
	vals := make(map[string]string)
	for _, p := range exampleParams(t) {
		switch paramType(p) {
		case "integer", "number":
			vals[p.Name] = "1"
		case "boolean":
			vals[p.Name] = "true"
		default:
			vals[p.Name] = "..."
		}
	}
	return vals
}
