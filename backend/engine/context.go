package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
	"artifactflow/backend/tools"
)

// summaryPrefix introduces a compaction summary in an agent's history.
const summaryPrefix = "This conversation was compacted to stay within the model's context window. Here is a summary of everything before this point:\n\n"

// history rebuilds an agent's view of the earlier runs on the conversation path up to and
// including parentID (seed 000/001, ContextManager.build; seed 004): the message_events of
// those runs, filtered to the agent, scanned back to the agent's latest successful
// compaction_summary. The lead sees each user message, its own model replies and tool
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
	h := &historyBuilder{agent: agentName, lead: agentName == e.lead.Name, mode: mode}
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
			if d.Kept != "" {
				h.add(llm.Message{Role: llm.RoleUser, Content: d.Kept})
			}
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
