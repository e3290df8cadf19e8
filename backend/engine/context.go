package engine

import (
	"context"
	"encoding/json"
	"fmt"
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
// summary and the messages that compaction kept verbatim. The lead sees each user message, its own model replies and tool
// results, queued user input and the final answers; a sub-agent sees the instructions it
// was given and its own rounds. Runs that ended early are closed so the history stays a
// valid conversation: an unanswered tool call gets a "not executed" result and a run with
// no answer a note of how it ended.
func (e *Engine) history(ctx context.Context, conversationID, parentID, agentName string, mode toolcall.Mode) ([]llm.Message, error) {
	if parentID == "" {
		return nil, nil
	}
	path, err := e.cfg.Store.MessagePath(ctx, conversationID, parentID)
	if err != nil {
		return nil, fmt.Errorf("engine: load conversation path: %w", err)
	}
	h := &historyBuilder{agent: agentName, lead: agentName == e.lead.Name, mode: mode, boundary: -1}
	if mode == toolcall.ModeXML {
		h.tools = e.parseTools(agentName)
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
	// open holds the tool call ids of the last assistant message still waiting for results
	// (native mode); the first is the one that was executed.
	open []string
	// tools are the agent's tools, to read xml calls back from recorded replies, and
	// ignored the names of the calls after the first in the last reply (xml mode).
	tools   []tools.Tool
	ignored []string
	// boundary is len(msgs) right after the latest compaction boundary, -1 before any: a
	// sub-agent's instruction recorded just after a compaction that kept it is not added
	// twice.
	boundary int
}

// parseTools returns tools with the names and parameters of agentName's tools, for reading
// xml tool calls back from recorded replies; they are never executed. record_artifact,
// search_files and read_file are among them whether or not this run offers them, since
// an earlier run may have.
func (e *Engine) parseTools(agentName string) []tools.Tool {
	return toolRegistry(nil, nil, Deps{Files: parseOnlyFiles{}}, tools.RecordArtifact{}).Subset(e.agents[agentName].Tools)
}

// message adds one run: the user's message (for the lead), then the agent's events.
func (h *historyBuilder) message(m store.Message, evs []events.Event) {
	answered := false
	for _, ev := range evs {
		if ev.Type == events.Metadata && h.lead {
			h.close("the run moved on")
			h.add(llm.Message{Role: llm.RoleUser, Content: m.Content})
			continue
		}
		if ev.AgentName != h.agent {
			continue
		}
		switch ev.Type {
		case events.AgentStart:
			var d events.DataAgentStart
			if json.Unmarshal(ev.Data, &d) == nil && d.Instruction != "" && !h.lead {
				if n := len(h.msgs); n == h.boundary && h.msgs[n-1].Role == llm.RoleUser && h.msgs[n-1].Content == d.Instruction {
					continue // compacted in its first round: the boundary kept it
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
				continue
			}
			h.close("the run moved on")
			msg := llm.Message{Role: llm.RoleAssistant, Content: d.Content}
			h.ignored = nil
			if h.mode == toolcall.ModeXML {
				if calls := toolcall.ParseXML(d.Content, h.tools); len(calls) > 1 {
					h.ignored = callNames(calls[1:])
				}
			} else {
				for _, c := range d.ToolCalls {
					msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: argumentsJSON(c.Params)})
					h.open = append(h.open, c.ID)
				}
				if len(msg.ToolCalls) > 0 && d.ReasoningContent {
					msg.ReasoningContent = d.Reasoning // sent back with the calls (llm.Message)
				}
			}
			if len(msg.ToolCalls) == 0 {
				answered = true
			}
			h.add(msg)
		case events.ToolComplete:
			var d events.DataToolComplete
			if json.Unmarshal(ev.Data, &d) != nil {
				continue
			}
			res := tools.Result{Success: d.Success, Data: d.Result, Error: d.Error}
			answered = false
			if h.mode == toolcall.ModeXML {
				h.add(llm.Message{Role: llm.RoleUser, Content: xmlResults(d.Tool, res, h.ignored)})
				h.ignored = nil
				continue
			}
			if len(h.open) == 0 {
				continue
			}
			id := h.open[0]
			h.open = h.open[1:]
			h.add(llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: resultText(res)})
			h.close(ignoredCallNote)
		case events.CompactionSummary:
			var d events.DataCompactionSummary
			if json.Unmarshal(ev.Data, &d) != nil || !d.Success {
				continue // a failed summary is no boundary
			}
			h.open, h.ignored = nil, nil
			h.msgs = []llm.Message{{Role: llm.RoleUser, Content: summaryPrefix + d.Summary}}
			switch {
			case len(d.KeptMessages) > 0:
				h.msgs = append(h.msgs, keptMessages(d.KeptMessages, h.mode)...)
			case d.Kept != "":
				h.add(llm.Message{Role: llm.RoleUser, Content: d.Kept})
			}
			h.boundary = len(h.msgs)
		}
	}
	h.close("the run ended before this call finished")
	if h.lead && !answered && len(h.msgs) > 0 {
		note := fmt.Sprintf("(no answer: that run ended with status %s", m.Status)
		if m.Error != "" {
			note += ": " + m.Error
		}
		h.add(llm.Message{Role: llm.RoleAssistant, Content: note + ")"})
	}
}

func (h *historyBuilder) add(m llm.Message) { h.msgs = append(h.msgs, m) }

// close answers every tool call still open, so the history is valid for native tool APIs.
func (h *historyBuilder) close(why string) {
	for _, id := range h.open {
		h.add(llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: "Error: not executed: " + why})
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
