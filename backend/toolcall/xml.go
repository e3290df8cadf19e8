package toolcall

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"artifactflow/backend/tools"
)

// Tag names of the xml format.
const (
	tagToolCall = "tool_call"
	tagName     = "name"
	tagParams   = "params"
	cdataOpen   = "<![CDATA["
	cdataClose  = "]]>"
)

// ParseXML returns the tool calls written in a model's answer text in xml mode, in order
// of appearance (nil when there are none). The expected form is
//
//	<tool_call><name>N</name><params><P><![CDATA[v]]></P>…</params></tool_call>
//
// and these mistakes are repaired:
//   - the tool's name used as the tag, <web_search><query>x</query></web_search>, when
//     it names one of ts (also inside <tool_call>, and with or without <params>);
//   - no <params> wrapper (parameters written directly in <tool_call>), or
//     <parameters> instead of <params>;
//   - an unclosed CDATA section: the value runs to the last </P> after it, or, when the
//     output was cut off, to the end of the text (or of the code fence around the call);
//   - missing closing tags: a value without </P> ends at the closing tag of an
//     enclosing element (</params>, </tool_call>, the tool tag), at the next <tool_call>,
//     or at the end of the text; a call without </tool_call> ends there too;
//   - values without CDATA: XML entities (&lt; &gt; &amp; &quot; &apos; &#N; &#xH;) are
//     decoded and surrounding whitespace is trimmed; CDATA content is kept exactly;
//   - whitespace and newlines around names and between elements;
//   - a call inside a ``` code fence (the closing fence is not taken as a value);
//   - JSON inside <tool_call>, {"name": N, "arguments": {…}} (the Hermes/Qwen chat
//     template; "parameters" is accepted too, and arguments encoded as a JSON string).
//
// A <tool_call> or tool tag counts as a call only when markup (or, for <tool_call>, a
// JSON object) follows it, so prose that merely mentions "<tool_call>" is not a call.
// Values are strings, except where the tool in ts with that name declares the parameter
// "integer" or "number" (float64 when the trimmed text parses as a finite number),
// "boolean" ("true"/"false" in any letter case), or "object" or "array" (the decoded
// value when the text is JSON of that kind); otherwise the text is kept (JSON-body
// values keep their JSON types). A call whose tool is not in ts is still returned with its
// Name and Params, so the engine can tell the model the tool does not exist. A call
// without a name, or with a JSON body that does not decode, gets Call.Err (wrapping
// ErrMalformedCall) describing the expected form. Raw is the call's text. ParseXML never
// panics and runs in time linear in len(text) for well-formed input.
func ParseXML(text string, ts []tools.Tool) []Call {
	var calls []Call
	for _, b := range scanXML(text, toolSet(ts)) {
		c := Call{Name: b.name, Raw: text[b.start:b.end]}
		problem := b.problem
		if problem == "" && c.Name == "" {
			problem = "the <tool_call> has no <name>"
		}
		if problem != "" {
			c.Err = fmt.Errorf("%w: %s; write it as "+
				"<tool_call><name>TOOL</name><params><PARAM><![CDATA[value]]></PARAM></params></tool_call> "+
				"with TOOL one of: %s", ErrMalformedCall, problem, toolNames(ts))
		} else {
			c.Params = coerce(b.params, findTool(ts, c.Name))
		}
		calls = append(calls, c)
	}
	return calls
}

// StripXMLCalls returns text without its xml tool-call blocks, trimmed: the prose the
// user sees as the agent's message. A code fence that held only a call goes with it, and
// the remaining pieces are joined with a blank line. Calls written with a tool's name as
// the tag are found only for the tools passed in ts (the same set given to ParseXML);
// <tool_call> blocks are always found.
func StripXMLCalls(text string, ts ...tools.Tool) string {
	blocks := scanXML(text, toolSet(ts))
	if len(blocks) == 0 {
		return strings.TrimSpace(text)
	}
	var pieces []string
	last := 0
	for _, b := range blocks {
		if p := strings.TrimSpace(text[last:b.cutStart]); p != "" {
			pieces = append(pieces, p)
		}
		last = b.cutEnd
	}
	if p := strings.TrimSpace(text[last:]); p != "" {
		pieces = append(pieces, p)
	}
	return strings.Join(pieces, "\n\n")
}

// toolSet returns the names of ts as a set.
func toolSet(ts []tools.Tool) map[string]bool {
	set := make(map[string]bool, len(ts))
	for _, t := range ts {
		set[t.Name()] = true
	}
	return set
}

// coerce converts string values to the types t declares (see ParseXML), in place, and
// returns raw. t may be nil.
func coerce(raw map[string]any, t tools.Tool) map[string]any {
	types := map[string]string{}
	if t != nil {
		for _, p := range t.Params() {
			types[p.Name] = p.Type
		}
	}
	for k, val := range raw {
		v, ok := val.(string)
		if !ok {
			continue
		}
		switch types[k] {
		case "integer", "number":
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				raw[k] = f
			}
		case "boolean":
			switch s := strings.TrimSpace(v); {
			case strings.EqualFold(s, "true"):
				raw[k] = true
			case strings.EqualFold(s, "false"):
				raw[k] = false
			}
		case "object", "array": // written as JSON text (an MCP tool's structured parameter)
			var x any
			if json.Unmarshal([]byte(strings.TrimSpace(v)), &x) == nil {
				switch x.(type) {
				case map[string]any:
					if types[k] == "object" {
						raw[k] = x
					}
				case []any:
					if types[k] == "array" {
						raw[k] = x
					}
				}
			}
		}
	}
	return raw
}

// xmlBlock is one call found by scanXML.
type xmlBlock struct {
	start, end       int // the call itself: text[start:end]
	cutStart, cutEnd int // what StripXMLCalls removes: the call plus a code fence holding only it
	name             string
	params           map[string]any
	problem          string // why the call could not be decoded, "" when it could
}

// scanXML finds the call blocks in text. known is the set of tool names that may be used
// as a tag.
func scanXML(text string, known map[string]bool) []xmlBlock {
	var out []xmlBlock
	prevEnd := 0
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			break
		}
		j += i
		tag, after, self, ok := openTag(text, j)
		isCall := ok && !self && tag == tagToolCall && opensElement(text, after, true)
		isToolTag := ok && !self && known[tag] && opensElement(text, after, false)
		if !isCall && !isToolTag {
			i = j + 1
			continue
		}
		p := &callParser{text: text, known: known, params: map[string]any{}}
		fenceStart := openFenceBefore(text, prevEnd, j)
		p.fenced = fenceStart >= 0
		var end int
		if isCall {
			p.closers = []string{tagToolCall}
			end = p.toolCallBody(after)
		} else {
			p.name = tag
			p.closers = []string{tag}
			end = p.paramsBody(after, tag, false)
		}
		b := xmlBlock{start: j, end: j + len(strings.TrimRight(text[j:end], " \t\r\n")),
			cutStart: j, cutEnd: end, name: p.name, params: p.params, problem: p.problem}
		if fenceStart >= 0 {
			if fenceEnd, ok := closingFenceAfter(text, end); ok {
				b.cutStart, b.cutEnd = fenceStart, fenceEnd
			}
		}
		out = append(out, b)
		prevEnd = b.cutEnd
		i = b.cutEnd
	}
	return out
}

// callParser reads the inside of one call block.
type callParser struct {
	text    string
	known   map[string]bool // tool names that may be used as a tag
	fenced  bool            // the call follows an opening code fence line
	closers []string        // names of the enclosing elements, outermost first
	hasName bool
	name    string
	params  map[string]any
	problem string // set when a JSON body does not decode
}

// toolCallBody reads the children of <tool_call> from pos and returns the end of the
// block: after </tool_call>, or where the unterminated call stops.
func (p *callParser) toolCallBody(pos int) int {
	t := p.text
	if pos = skipSpace(t, pos); pos < len(t) && t[pos] == '{' {
		return p.jsonBody(pos)
	}
	for {
		pos = p.skipStray(pos)
		if pos >= len(t) || p.atFence(pos) {
			return pos
		}
		if strings.HasPrefix(t[pos:], "</"+tagToolCall+">") {
			return pos + len(tagToolCall) + 3
		}
		tag, after, self, ok := openTag(t, pos)
		switch {
		case !ok:
			pos = skipTag(t, pos)
		case tag == tagToolCall:
			return pos // the next call begins; this one was never closed
		case self && (tag == tagName || isParamsTag(tag)):
			pos = after
		case self:
			p.params[tag] = ""
			pos = after
		case tag == tagName && !p.hasName:
			p.hasName = true
			v, end := p.readValue(tagName, after, true)
			p.name = strings.TrimSpace(v)
			pos = end
		case isParamsTag(tag):
			pos = p.withCloser(tag, func() int { return p.paramsBody(after, tag, true) })
		case !p.hasName && p.known[tag]:
			p.hasName, p.name = true, tag
			pos = p.withCloser(tag, func() int { return p.paramsBody(after, tag, false) })
		default:
			pos = p.readParam(tag, after)
		}
	}
}

// jsonBody reads a JSON body {"name": N, "arguments": {…}} of <tool_call> starting at
// pos and returns the end of the block: after </tool_call> (if present) following the
// object, or, when the JSON does not decode, after the next </tool_call> or at the end
// of the text.
func (p *callParser) jsonBody(pos int) int {
	t := p.text
	var body struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	dec := json.NewDecoder(strings.NewReader(t[pos:]))
	if err := dec.Decode(&body); err != nil {
		p.problem = "the JSON in <tool_call> does not decode (" + jsonError(err) + ")"
		if k := strings.Index(t[pos:], "</"+tagToolCall+">"); k >= 0 {
			return pos + k + len(tagToolCall) + 3
		}
		return len(t)
	}
	p.name = strings.TrimSpace(body.Name)
	args := body.Arguments
	if args == nil {
		args = body.Parameters
	}
	params, err := decodeArgs(string(args), 0)
	if err != nil {
		p.problem = "the arguments in <tool_call> " + err.Error()
	} else {
		p.params = params
	}
	end := pos + int(dec.InputOffset())
	if k := skipSpace(t, end); strings.HasPrefix(t[k:], "</"+tagToolCall+">") {
		return k + len(tagToolCall) + 3
	}
	return end
}

// paramsBody reads parameter elements from pos until </closeName> (consumed), the end
// of an enclosing element or the next <tool_call> (not consumed), or the end of the
// text, and returns the position reached. inWrapper tells whether a <params> wrapper is
// already open; if not, one may follow.
func (p *callParser) paramsBody(pos int, closeName string, inWrapper bool) int {
	t := p.text
	for {
		pos = p.skipStray(pos)
		if pos >= len(t) || p.atFence(pos) {
			return pos
		}
		if strings.HasPrefix(t[pos:], "</"+closeName+">") {
			return pos + len(closeName) + 3
		}
		if p.atCloser(pos) {
			return pos
		}
		tag, after, self, ok := openTag(t, pos)
		switch {
		case !ok:
			pos = skipTag(t, pos)
		case tag == tagToolCall:
			return pos
		case self:
			p.params[tag] = ""
			pos = after
		case isParamsTag(tag) && !inWrapper:
			pos = p.withCloser(tag, func() int { return p.paramsBody(after, tag, true) })
		default:
			pos = p.readParam(tag, after)
		}
	}
}

// withCloser runs read with name pushed on the enclosing-element stack.
func (p *callParser) withCloser(name string, read func() int) int {
	p.closers = append(p.closers, name)
	defer func() { p.closers = p.closers[:len(p.closers)-1] }()
	return read()
}

// readParam reads the value of parameter name whose opening tag ends at pos, stores it
// and returns the position after it.
func (p *callParser) readParam(name string, pos int) int {
	v, end := p.readValue(name, pos, false)
	p.params[name] = v
	return end
}

// readValue reads the content of element name from pos: text (entity-decoded) and CDATA
// sections, until </name>. It returns the value and the position after it. Without
// </name> the value stops at an enclosing element's closing tag or a <tool_call> (left
// unconsumed), at any other tag when stopAtTag is set, or at the end of the text or of
// the code fence around the call (see fenceCut). Whitespace around the value is
// trimmed, except inside CDATA.
func (p *callParser) readValue(name string, pos int, stopAtTag bool) (string, int) {
	t := p.text
	closeTag := "</" + name + ">"
	var b strings.Builder
	sawCDATA := false
	// addText appends a plain-text piece; the piece before the first CDATA section is
	// trimmed on the left, the last piece on the right.
	addText := func(s string, last bool) {
		if !sawCDATA {
			s = strings.TrimLeft(s, " \t\r\n")
		}
		if last {
			s = strings.TrimRight(s, " \t\r\n")
		}
		b.WriteString(unescapeXML(s))
	}
	for {
		k := pos
		for k < len(t) {
			q := strings.IndexByte(t[k:], '<')
			if q < 0 {
				k = len(t)
				break
			}
			k += q
			if stopAtTag || strings.HasPrefix(t[k:], closeTag) || strings.HasPrefix(t[k:], cdataOpen) ||
				p.atCloser(k) || isOpenTag(t, k, tagToolCall) {
				break
			}
			k++
		}
		switch {
		case strings.HasPrefix(t[k:], cdataOpen):
			addText(t[pos:k], false)
			sawCDATA = true
			cs := k + len(cdataOpen)
			if e := strings.Index(t[cs:], cdataClose); e >= 0 {
				b.WriteString(t[cs : cs+e])
				pos = cs + e + len(cdataClose)
				continue
			}
			// Unclosed CDATA: up to the last </name>, else to the end of the text or of
			// the code fence around the call.
			rest := t[cs:]
			if l := strings.LastIndex(rest, closeTag); l >= 0 {
				b.WriteString(rest[:l])
				return b.String(), cs + l + len(closeTag)
			}
			rest = rest[:p.fenceCut(rest)]
			b.WriteString(rest)
			return b.String(), cs + len(rest)
		case strings.HasPrefix(t[k:], closeTag):
			addText(t[pos:k], true)
			return b.String(), k + len(closeTag)
		default:
			k = pos + p.fenceCut(t[pos:k])
			addText(t[pos:k], true)
			return b.String(), k
		}
	}
}

// atCloser reports whether a closing tag of one of the enclosing elements starts at pos.
func (p *callParser) atCloser(pos int) bool {
	rest := p.text[pos:]
	if !strings.HasPrefix(rest, "</") {
		return false
	}
	for _, c := range p.closers {
		if strings.HasPrefix(rest[2:], c) && strings.HasPrefix(rest[2+len(c):], ">") {
			return true
		}
	}
	return false
}

// atFence reports whether pos starts a ``` line inside a fenced call: the fence's end.
func (p *callParser) atFence(pos int) bool {
	return p.fenced && strings.HasPrefix(p.text[pos:], "```")
}

// fenceCut returns where an unclosed value s ends in a fenced call: at the line closing
// the call's fence, the first bare ``` line that does not close a code block opened
// inside s. It returns len(s) when the call is not fenced or no such line exists.
func (p *callParser) fenceCut(s string) int {
	if !p.fenced {
		return len(s)
	}
	inner := false
	for off := 0; off < len(s); {
		eol := strings.IndexByte(s[off:], '\n')
		if eol < 0 {
			eol = len(s) - off
		}
		if line := s[off : off+eol]; isFenceLine(line, true) {
			if !inner && isFenceLine(line, false) {
				return off
			}
			inner = !inner
		}
		off += eol + 1
	}
	return len(s)
}

// skipStray skips whitespace and any text that is not markup from pos, stopping at the
// next '<', at a closing fence in a fenced call, or at the end of the text.
func (p *callParser) skipStray(pos int) int {
	t := p.text
	pos = skipSpace(t, pos)
	if pos >= len(t) || t[pos] == '<' {
		return pos
	}
	next := len(t)
	if q := strings.IndexByte(t[pos:], '<'); q >= 0 {
		next = pos + q
	}
	if p.fenced {
		if f := strings.Index(t[pos:next], "```"); f >= 0 {
			return pos + f
		}
	}
	return next
}

// isParamsTag reports whether tag is the parameters wrapper (<params>, or <parameters>
// which models often write instead).
func isParamsTag(tag string) bool {
	return tag == tagParams || tag == "parameters"
}

// openTag parses an opening tag at text[pos] == '<': its name, the position after '>',
// and whether it is self-closing ("<x/>"). Attributes are tolerated and ignored. ok is
// false when no opening tag starts at pos (closing tags, CDATA, comments, plain '<').
func openTag(text string, pos int) (name string, after int, selfClosing, ok bool) {
	i := pos + 1
	if i >= len(text) || !isNameStart(text[i]) {
		return "", 0, false, false
	}
	for i < len(text) && isNameChar(text[i]) {
		i++
	}
	name = text[pos+1 : i]
	if i >= len(text) {
		return "", 0, false, false
	}
	switch c := text[i]; {
	case c == '>':
		return name, i + 1, false, true
	case c == '/':
		if i+1 < len(text) && text[i+1] == '>' {
			return name, i + 2, true, true
		}
		return "", 0, false, false
	case c != ' ' && c != '\t' && c != '\n' && c != '\r':
		return "", 0, false, false
	}
	// Attributes: the tag ends at the next '>' before any other '<'.
	for j := i; j < len(text); j++ {
		switch text[j] {
		case '<':
			return "", 0, false, false
		case '>':
			return name, j + 1, text[j-1] == '/', true
		}
	}
	return "", 0, false, false
}

// isOpenTag reports whether an opening tag named name starts at pos.
func isOpenTag(text string, pos int, name string) bool {
	if !strings.HasPrefix(text[pos:], "<"+name) {
		return false
	}
	tag, _, _, ok := openTag(text, pos)
	return ok && tag == name
}

// skipTag returns the position after a non-opening-tag construct at text[pos] == '<':
// after the next '>' when it comes before the next '<', else pos+1.
func skipTag(text string, pos int) int {
	for j := pos + 1; j < len(text); j++ {
		switch text[j] {
		case '<':
			return j
		case '>':
			return j + 1
		}
	}
	return len(text)
}

// opensElement reports whether the content after an opening tag (ending at pos) starts,
// after whitespace, with markup, or with a JSON object when orJSON is set: how a call is
// told from prose that mentions a tag.
func opensElement(text string, pos int, orJSON bool) bool {
	pos = skipSpace(text, pos)
	return pos < len(text) && (text[pos] == '<' || orJSON && text[pos] == '{')
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameChar(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':'
}

func skipSpace(text string, pos int) int {
	for pos < len(text) {
		switch text[pos] {
		case ' ', '\t', '\n', '\r':
			pos++
		default:
			return pos
		}
	}
	return pos
}

// openFenceBefore returns the start of the line just before pos when that line (ignoring
// blank lines) opens a code fence ("```" plus an optional language), and the fence is an
// opening one: an even number of fence lines lie in text[from:] before it. Otherwise -1.
func openFenceBefore(text string, from, pos int) int {
	before := strings.TrimRight(text[from:pos], " \t\r\n")
	ls := strings.LastIndexByte(before, '\n') + 1
	if !isFenceLine(before[ls:], true) {
		return -1
	}
	n := 0
	for _, line := range strings.Split(before[:ls], "\n") {
		if isFenceLine(line, true) {
			n++
		}
	}
	if n%2 != 0 {
		return -1
	}
	return from + ls
}

// closingFenceAfter reports whether, after whitespace from pos, a closing fence line
// ("```" alone) follows or the text ends, and returns the position after that line.
func closingFenceAfter(text string, pos int) (int, bool) {
	pos = skipSpace(text, pos)
	if pos >= len(text) {
		return pos, true
	}
	eol := strings.IndexByte(text[pos:], '\n')
	if eol < 0 {
		eol = len(text) - pos
	}
	if !isFenceLine(text[pos:pos+eol], false) {
		return 0, false
	}
	return min(pos+eol+1, len(text)), true
}

// isFenceLine reports whether line is a ``` fence line; an info string (language) is
// allowed when opening.
func isFenceLine(line string, opening bool) bool {
	line = strings.TrimSpace(line)
	info, ok := strings.CutPrefix(line, "```")
	if !ok {
		return false
	}
	if !opening {
		return info == ""
	}
	for i := 0; i < len(info); i++ {
		if c := info[i]; !isNameChar(c) && c != '+' {
			return false
		}
	}
	return true
}

// unescapeXML decodes the XML entities &lt; &gt; &amp; &quot; &apos; &#N; and &#xH;.
// Anything else, including HTML-only entities and an '&' without ';', is kept as written.
func unescapeXML(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '&')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		if semi := strings.IndexByte(s, ';'); semi > 1 && semi <= 10 {
			if r, ok := xmlEntity(s[1:semi]); ok {
				b.WriteString(r)
				s = s[semi+1:]
				continue
			}
		}
		b.WriteByte('&')
		s = s[1:]
	}
}

// xmlEntity returns the text an entity name (between '&' and ';') stands for.
func xmlEntity(name string) (string, bool) {
	switch name {
	case "lt":
		return "<", true
	case "gt":
		return ">", true
	case "amp":
		return "&", true
	case "quot":
		return `"`, true
	case "apos":
		return "'", true
	}
	num, ok := strings.CutPrefix(name, "#")
	if !ok {
		return "", false
	}
	base := 10
	if h, ok := strings.CutPrefix(num, "x"); ok {
		num, base = h, 16
	} else if h, ok := strings.CutPrefix(num, "X"); ok {
		num, base = h, 16
	}
	n, err := strconv.ParseUint(num, base, 32)
	if err != nil || n == 0 || !utf8.ValidRune(rune(n)) {
		return "", false
	}
	return string(rune(n)), true
}
