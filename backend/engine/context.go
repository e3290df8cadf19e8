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
	byMessage, err := e.pathEvents(ctx, conversationID, path)
	if err != nil {
		return nil, err
	}
	for _, m := range path {
		h.message(m, byMessage[m.ID])
	}
	return h.msgs, nil
}

// onePathQuery is the path length from which pathEvents reads the whole conversation's
// events in one query instead of one query per message. With 1,000 messages of 10 events
// the query per message costs a third of building the lead's context
// (BenchmarkContextPath1000); a short path in a long, branched conversation is cheaper
// per message.
const onePathQuery = 64

// pathEvents returns the events of the messages in path, grouped by message id, each
// group in seq order: for a short path one query per message (eventsPerMessage), for a
// long one a single query over the conversation whose events off the path are dropped
// (eventsInOneQuery). Both give the same groups.
func (e *Engine) pathEvents(ctx context.Context, conversationID string, path []store.Message) (map[string][]events.Event, error) {
	if len(path) < onePathQuery {
		return e.eventsPerMessage(ctx, conversationID, path)
	}
	return e.eventsInOneQuery(ctx, conversationID, path)
}

// eventsPerMessage reads the events of each message of path with its own query.
func (e *Engine) eventsPerMessage(ctx context.Context, conversationID string, path []store.Message) (map[string][]events.Event, error) {
	out := make(map[string][]events.Event, len(path))
	for _, m := range path {
		evs, err := e.cfg.Store.ListEvents(ctx, store.EventQuery{ConversationID: conversationID, MessageID: m.ID})
		if err != nil {
			return nil, fmt.Errorf("engine: load events of message %s: %w", m.ID, err)
		}
		out[m.ID] = evs
	}
	return out, nil
}

// eventsInOneQuery reads every event of the conversation in seq order and keeps those of
// the messages of path, grouped by message.
func (e *Engine) eventsInOneQuery(ctx context.Context, conversationID string, path []store.Message) (map[string][]events.Event, error) {
	evs, err := e.cfg.Store.ListEvents(ctx, store.EventQuery{ConversationID: conversationID})
	if err != nil {
		return nil, fmt.Errorf("engine: load events of the conversation path: %w", err)
	}
	out := make(map[string][]events.Event, len(path))
	for _, m := range path {
		out[m.ID] = nil
	}
	for _, ev := range evs {
		if g, ok := out[ev.MessageID]; ok {
			out[ev.MessageID] = append(g, ev)
		}
	}
	return out, nil
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
// xml tool calls back from recorded replies; they are never executed.
func (e *Engine) parseTools(agentName string) []tools.Tool {
	all := append(tools.ArtifactTools(nil), tools.CallSubagent{}, tools.WebSearch{}, tools.WebFetch{})
	return tools.NewRegistry(all...).Subset(e.agents[agentName].Tools)
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
