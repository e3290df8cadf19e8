package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/tools"
)

// summaryPrefix introduces a compaction summary in an agent's history.
const summaryPrefix = "This conversation was compacted to stay within the model's context window. Here is a summary of everything before this point:\n\n"

// history rebuilds an agent's view of the earlier runs on the conversation path up to and
// including parentID: the message_events of those runs, filtered to the agent, scanned
// back to the agent's latest successful compaction_summary, which starts it with the
// summary and the messages that compaction kept verbatim. The lead sees each user message, its own model replies and the
// results of all their calls in call order, queued user input and the final answers; a
// sub-agent sees the instructions it was given and its own rounds (those of instances that
// ran at once, in call order). Runs that ended early are closed so the history stays a
// valid conversation: a call without a recorded result (a crash or a stop before it
// finished) gets a "not executed" result and a run with no answer a note of how it ended.
func (e *Engine) history(ctx context.Context, conversationID, parentID, agentName string, mode toolcall.Mode) ([]llm.Message, error) {
	return e.agentHistory(ctx, conversationID, parentID, agentName, e.agents[agentName].Tools, mode, nil)
}

// agentHistory is history for an agent whose tools are toolNames (a user-defined agent's
// are the run's, not the engine's). Each earlier question the lead sees carries a line
// naming its pictures (withImagesNote) and, when pics is set (a lead model that sees
// pictures), the pictures pics gives for them.
func (e *Engine) agentHistory(ctx context.Context, conversationID, parentID, agentName string, toolNames []string, mode toolcall.Mode,
	pics func([]events.ImageRef) []llm.Image) ([]llm.Message, error) {
	if parentID == "" {
		return nil, nil
	}
	path, err := e.cfg.Store.MessagePath(ctx, conversationID, parentID)
	if err != nil {
		return nil, fmt.Errorf("engine: load conversation path: %w", err)
	}
	h := &historyBuilder{agent: agentName, lead: agentName == e.lead.Name, mode: mode, boundary: -1, pics: pics}
	if mode == toolcall.ModeXML {
		h.tools = parseTools(toolNames)
	}
	ids := make([]string, len(path))
	for i, m := range path {
		ids[i] = m.ID
	}
	evs, err := e.cfg.Store.PathEvents(ctx, conversationID, ids)
	if err != nil {
		return nil, fmt.Errorf("engine: load events of the conversation path: %w", err)
	}
	byMessage := make(map[string][]events.Event, len(path))
	for _, ev := range evs {
		byMessage[ev.MessageID] = append(byMessage[ev.MessageID], ev)
	}
	for _, m := range path {
		h.message(m, byMessage[m.ID])
	}
	return h.msgs, nil
}

// historyBuilder accumulates one agent's messages from events, in seq order.
type historyBuilder struct {
	agent string
	lead  bool
	mode  toolcall.Mode
	msgs  []llm.Message
	// pics gives the pictures of a question to send with it; nil sends none.
	pics func([]events.ImageRef) []llm.Image
	// tools are the agent's tools, to read xml calls back from recorded replies.
	tools []tools.Tool
	// open holds the calls of the last reply still waiting for results, in call order; in
	// xml mode a reply's calls open only once its agent_complete says it routed to tools
	// (xmlCalls holds them until then), and each gets its id from its tool_start.
	open     []openCall
	xmlCalls []string
	// compacted: a compaction summary replaced the history (an instance's builder).
	compacted bool
	// boundary is len(msgs) right after the latest compaction boundary, -1 before any: a
	// sub-agent's instruction recorded just after a compaction that kept it is not added
	// twice.
	boundary int
	// inst holds the builders of the sub-agent instances of the message being read, by
	// instance id (first seen first in instOrder); callOrder lists the ids of the lead's
	// call_subagent calls as their tool_start events came, which is call order.
	inst      map[string]*historyBuilder
	instOrder []string
	callOrder []string
}

// callSubagentTool is how a call_subagent tool_start names its tool in its data; other
// tool_starts (an artifact write's large content) are not decoded.
var callSubagentTool = []byte(`"tool":"call_subagent"`)

// openCall is one call of a recorded reply: its id, tool name and, once its tool_complete
// was read, its result.
type openCall struct {
	id, name string
	res      *tools.Result
}

// instanceOf returns the sub-agent instance an event of this agent belongs to ("" for the
// lead, whose events are never an instance's, and for events outside any instance).
func (h *historyBuilder) instanceOf(data json.RawMessage) string {
	if h.lead {
		return ""
	}
	return instanceOf(data)
}

// parseTools returns tools with the names and parameters of the tools named, for reading
// xml tool calls back from recorded replies; they are never executed. record_artifact,
// search_files and read_file are among them whether or not this run offers them, since
// an earlier run may have.
func parseTools(names []string) []tools.Tool {
	return toolRegistry(nil, nil, Deps{Files: parseOnlyFiles{}}, tools.RecordArtifact{}).Subset(names)
}

// message adds one run: the user's message (for the lead), then the agent's events. Events
// of sub-agent instances (the "instance" key of their data) are read per instance, and
// each instance's rounds are added, once the message is read, in the order of the lead's
// calls that started them, as execCalls adds them to the agent's memory (mergeMemory).
func (h *historyBuilder) message(m store.Message, evs []events.Event) {
	answered := false
	h.inst, h.instOrder, h.callOrder = nil, nil, nil
	for _, ev := range evs {
		if ev.Type == events.Metadata && h.lead {
			h.close("the run moved on")
			refs := events.ImagesOf(m.Metadata)
			q := llm.Message{Role: llm.RoleUser, Content: withImagesNote(m.Content, refs)}
			if h.pics != nil && len(refs) > 0 {
				q.Images = h.pics(refs)
			}
			h.add(q)
			continue
		}
		if ev.AgentName != h.agent {
			if !h.lead && ev.Type == events.ToolStart && bytes.Contains(ev.Data, callSubagentTool) {
				var d events.DataToolStart
				if json.Unmarshal(ev.Data, &d) == nil && d.Tool == "call_subagent" {
					h.callOrder = append(h.callOrder, d.CallID)
				}
			}
			continue
		}
		if id := h.instanceOf(ev.Data); id != "" {
			h.instance(id).event(ev)
			continue
		}
		if done, ok := h.event(ev); ok {
			answered = done
		}
	}
	h.close("the run ended before this call finished")
	h.mergeInstances()
	if h.lead && !answered && len(h.msgs) > 0 {
		note := fmt.Sprintf("(no answer: that run ended with status %s", m.Status)
		if m.Error != "" {
			note += ": " + m.Error
		}
		h.add(llm.Message{Role: llm.RoleAssistant, Content: note + ")"})
	}
}

// instance returns the builder of the sub-agent instance id, creating it.
func (h *historyBuilder) instance(id string) *historyBuilder {
	if h.inst == nil {
		h.inst = map[string]*historyBuilder{}
	}
	b, ok := h.inst[id]
	if !ok {
		b = &historyBuilder{agent: h.agent, mode: h.mode, tools: h.tools, boundary: -1}
		h.inst[id] = b
		h.instOrder = append(h.instOrder, id)
	}
	return b
}

// mergeInstances adds the rounds of the message's instances in call order (instances
// whose call was not seen follow, in the order they were first seen): an instance's rounds
// are appended, and the history of an instance that was compacted replaces the whole.
func (h *historyBuilder) mergeInstances() {
	if len(h.inst) == 0 {
		return
	}
	order := make([]string, 0, len(h.instOrder))
	for _, id := range h.callOrder {
		if _, ok := h.inst[id]; ok && !slices.Contains(order, id) {
			order = append(order, id)
		}
	}
	for _, id := range h.instOrder {
		if !slices.Contains(order, id) {
			order = append(order, id)
		}
	}
	for _, id := range order {
		b := h.inst[id]
		b.close("the run ended before this call finished")
		if b.compacted {
			h.msgs, h.boundary = slices.Clone(b.msgs), b.boundary
			continue
		}
		h.msgs = append(h.msgs, b.msgs...)
	}
	h.inst, h.instOrder, h.callOrder = nil, nil, nil
}

// event reads one event of the agent. For llm_complete and tool_complete it also reports
// whether the agent has answered (a reply without tool calls) as answered, ok true.
func (h *historyBuilder) event(ev events.Event) (answered, ok bool) {
	switch ev.Type {
	case events.AgentStart:
		var d events.DataAgentStart
		if json.Unmarshal(ev.Data, &d) == nil && d.Instruction != "" && !h.lead {
			if n := len(h.msgs); n == h.boundary && h.msgs[n-1].Role == llm.RoleUser && h.msgs[n-1].Content == d.Instruction {
				break // compacted in its first round: the boundary kept it
			}
			h.close("the run moved on")
			h.add(llm.Message{Role: llm.RoleUser, Content: d.Instruction})
		}
	case events.UserInput:
		var d events.DataUserInput
		if json.Unmarshal(ev.Data, &d) == nil && d.Content != "" {
			h.close("the run moved on")
			h.add(llm.Message{Role: llm.RoleUser, Content: d.Content})
		}
	case events.LLMComplete:
		var d events.DataLLMComplete
		if json.Unmarshal(ev.Data, &d) != nil {
			return false, false
		}
		h.close("the run moved on")
		msg := llm.Message{Role: llm.RoleAssistant, Content: d.Content}
		h.xmlCalls = nil
		if h.mode == toolcall.ModeXML {
			h.xmlCalls = callNames(toolcall.ParseXML(d.Content, h.tools))
		} else {
			for i, c := range d.ToolCalls {
				id := c.ID
				if id == "" { // as toolcall.ParseNative names it
					id = "call_" + strconv.Itoa(i+1)
				}
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: c.Name, Arguments: argumentsJSON(c.Params)})
				h.open = append(h.open, openCall{id: id, name: c.Name})
			}
			if len(msg.ToolCalls) > 0 && d.ReasoningContent {
				msg.ReasoningContent = d.Reasoning // sent back with the calls (llm.Message)
			}
		}
		h.add(msg)
		return len(msg.ToolCalls) == 0, true
	case events.AgentComplete:
		var d events.DataAgentComplete
		if h.mode == toolcall.ModeXML && json.Unmarshal(ev.Data, &d) == nil && d.Routing != "" {
			for _, n := range h.xmlCalls {
				h.open = append(h.open, openCall{name: n})
			}
		}
		h.xmlCalls = nil
	case events.ToolStart:
		var d events.DataToolStart
		if h.mode != toolcall.ModeXML || json.Unmarshal(ev.Data, &d) != nil {
			break
		}
		for i := range h.open {
			if h.open[i].id == "" {
				h.open[i].id = d.CallID
				break
			}
		}
	case events.ToolComplete:
		var d events.DataToolComplete
		if json.Unmarshal(ev.Data, &d) != nil {
			return false, false
		}
		res := tools.Result{Success: d.Success, Data: d.Result, Error: d.Error}
		i := slices.IndexFunc(h.open, func(c openCall) bool { return c.id == d.CallID && c.res == nil })
		if i < 0 { // a call recorded without its id: the first one still waiting
			i = slices.IndexFunc(h.open, func(c openCall) bool { return c.res == nil })
		}
		if i < 0 {
			return false, false
		}
		h.open[i].res, h.open[i].name = &res, d.Tool
		if !slices.ContainsFunc(h.open, func(c openCall) bool { return c.res == nil }) {
			h.close("")
		}
		return false, true
	case events.CompactionSummary:
		var d events.DataCompactionSummary
		if json.Unmarshal(ev.Data, &d) != nil || !d.Success {
			break // a failed summary is no boundary
		}
		h.open, h.xmlCalls = nil, nil
		h.msgs = []llm.Message{{Role: llm.RoleUser, Content: summaryPrefix + d.Summary}}
		h.compacted = true
		switch {
		case len(d.KeptMessages) > 0:
			h.msgs = append(h.msgs, keptMessages(d.KeptMessages, h.mode)...)
		case d.Kept != "":
			h.add(llm.Message{Role: llm.RoleUser, Content: d.Kept})
		}
		h.boundary = len(h.msgs)
	}
	return false, false
}

func (h *historyBuilder) add(m llm.Message) { h.msgs = append(h.msgs, m) }

// close gives the model the results of the last reply's calls, in call order (one tool
// message per call in native mode, one user message of <tool_result>s in xml mode, as
// toolMessages does); a call without a recorded result gets "not executed: why", so the
// history is valid for native tool APIs.
func (h *historyBuilder) close(why string) {
	if len(h.open) == 0 {
		return
	}
	names := make([]string, len(h.open))
	results := make([]tools.Result, len(h.open))
	for i, c := range h.open {
		names[i] = c.name
		if c.res != nil {
			results[i] = *c.res
		} else {
			results[i] = tools.Fail("not executed: %s", why)
		}
	}
	if h.mode == toolcall.ModeXML {
		h.add(llm.Message{Role: llm.RoleUser, Content: xmlResults(names, results)})
	} else {
		for i, c := range h.open {
			h.add(llm.Message{Role: llm.RoleTool, ToolCallID: c.id, Content: resultText(results[i])})
		}
	}
	h.open = nil
}

// argumentsJSON renders recorded tool-call params as the arguments string of an assistant
// message: always a JSON object, as some servers reject anything else in history.
func argumentsJSON(raw json.RawMessage) string {
	if len(raw) > 0 && json.Valid(raw) && raw[0] == '{' {
		return string(raw)
	}
	b, _ := json.Marshal(map[string]string{"raw": string(raw)})
	return string(b)
}

// keptMessages returns the messages a compaction kept (events.DataCompactionSummary), as
// the agent sees them in mode. Native tool calls and results recorded by a run in native
// mode are rendered as xml calls and <tool_result> blocks in xml mode (a "tool" message is
// not valid there); xml-mode messages are plain user and assistant messages, valid in both.
func keptMessages(kept []events.KeptMessage, mode toolcall.Mode) []llm.Message {
	var out []llm.Message
	names := map[string]string{} // tool call id -> tool name, for xml results
	for _, k := range kept {
		m := llm.Message{Role: k.Role, Content: k.Content, ToolCallID: k.ToolCallID}
		for _, c := range k.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			names[c.ID] = c.Name
		}
		if mode != toolcall.ModeXML {
			out = append(out, m)
			continue
		}
		switch {
		case m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0:
			text := []string{m.Content}
			for _, c := range m.ToolCalls {
				text = append(text, toolcall.FormatXMLCall(c.Name, xmlParams(c.Arguments)))
			}
			out = append(out, llm.Message{Role: llm.RoleAssistant, Content: strings.TrimSpace(strings.Join(text, "\n"))})
		case m.Role == llm.RoleTool:
			res := tools.Result{Success: true, Data: m.Content}
			if msg, failed := strings.CutPrefix(m.Content, "Error: "); failed {
				res = tools.Result{Error: msg}
			}
			block := toolcall.FormatXMLResult(names[m.ToolCallID], res)
			if n := len(out); n > 0 && isXMLResults(out[n-1]) {
				out[n-1].Content += "\n" + block // the results of one reply go in one message
			} else {
				out = append(out, llm.Message{Role: llm.RoleUser, Content: block})
			}
		default:
			out = append(out, m)
		}
	}
	return out
}

// xmlParams renders a native call's JSON arguments as xml call parameters: strings as
// they are, other values as JSON; arguments that are not a JSON object go in "raw".
func xmlParams(args string) map[string]string {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil {
		return map[string]string{"raw": args}
	}
	out := make(map[string]string, len(obj))
	for k, v := range obj {
		var str string
		if json.Unmarshal(v, &str) == nil {
			out[k] = str
		} else {
			out[k] = string(v)
		}
	}
	return out
}
