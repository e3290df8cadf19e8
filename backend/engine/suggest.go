package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/store"
)

// Bounds of the call that writes a conversation's title and follow-up questions after a
// complete run (docs/ARCHITECTURE.md, "Titles and follow-up questions").
const (
	// SuggestTimeout bounds the whole call, retries included: past it the run ends without
	// suggestions (and the title made from the question stays).
	SuggestTimeout = 30 * time.Second
	// suggestMaxTokens caps the reply (sent as max_tokens unless the sub-agents' own cap is
	// lower): a title and three questions need a few hundred tokens; the margin is for
	// models that think before they answer.
	suggestMaxTokens = 1024
	// suggestAnswerRunes is how much of the answer the call sees (its start): enough to
	// know what was answered, bounded so the call stays cheap after a long report.
	suggestAnswerRunes = 6000
	// suggestQuestionRunes bounds one suggested question; maxSuggestions is how many are kept.
	suggestQuestionRunes = 200
	maxSuggestions       = 3
)

// SuggestRole starts the system prompt of the suggestions call: how a scripted test model
// tells that call from the agents' (whose prompts start "You are <agent name>").
const SuggestRole = "You are follow_up_writer"

// errNoJSON: the suggestions reply held no JSON object.
var errNoJSON = errors.New("no JSON object in the reply")

// suggestPrompt is the system prompt of the suggestions call; withTitle adds the title.
func suggestPrompt(withTitle bool) string {
	var b strings.Builder
	b.WriteString(SuggestRole + ". A researcher asked a question and received the answer below. ")
	b.WriteString("Reply with one JSON object and nothing else (no code fence, no comment): ")
	if withTitle {
		b.WriteString(`{"title": "...", "questions": ["...", "...", "..."]}. `)
		b.WriteString(`"title": a short title for the conversation, at most 60 characters, naming its subject; no quotes, no final full stop. `)
	} else {
		b.WriteString(`{"questions": ["...", "...", "..."]}. `)
	}
	b.WriteString(`"questions": two or three follow-up questions the researcher is likely to ask next, each one short sentence, specific to this answer, not answered by it already. `)
	b.WriteString("Write everything in the language of the question (a question in Chinese gets a Chinese title and questions).")
	return b.String()
}

// suggestModel is the model of the suggestions call: the sub-agents' (the cheaper one),
// resolved as setModels does, else the lead's.
func suggestModel(deps Deps) AgentModel {
	m := AgentModel{Model: deps.Model, Name: deps.ModelName, Sampling: deps.LeadSampling}
	if sub := deps.SubAgents; sub != nil {
		if sub.Model != nil {
			m = AgentModel{Model: sub.Model, Name: sub.Name, Sampling: sub.Sampling}
		} else if sub.Name != "" {
			m.Name, m.Sampling = sub.Name, sub.Sampling
		}
	}
	if m.Sampling.MaxTokens <= 0 || m.Sampling.MaxTokens > suggestMaxTokens {
		m.Sampling.MaxTokens = suggestMaxTokens
	}
	return m
}

// suggest runs after a complete run when Deps.Suggest is set: one call to the sub-agents'
// model for two or three follow-up questions and, while the conversation's title is still
// the one made from its question (store.TitleFromQuestion), a title in the question's
// language, which replaces it unless the user renames the conversation first
// (store.SetModelTitle decides in one statement, so a rename during the call wins). A
// suggestions event carries what was kept. A failure, a timeout or a reply without JSON
// leaves everything as it was and is only logged. ctx is cancelled when the next run of
// the conversation starts, on Stop and on Close.
func (e *Engine) suggest(ctx context.Context, r *Run, deps Deps, em *emitter, question string) {
	log := e.cfg.Logger.With("conversation", r.ConversationID, "message", r.MessageID)
	conv, err := e.cfg.Store.GetConversation(ctx, r.ConversationID)
	if err != nil {
		log.Warn("follow-up suggestions: read the conversation", "err", err)
		return
	}
	withTitle := conv.TitleSource == store.TitleFromQuestion
	answer := r.result.Response
	if utf8.RuneCountInString(answer) > suggestAnswerRunes {
		answer = string([]rune(answer)[:suggestAnswerRunes]) + "\n…"
	}
	m := suggestModel(deps)
	ctx, cancel := context.WithTimeout(ctx, SuggestTimeout)
	defer cancel()
	resp, err := m.Model.Stream(ctx, llm.Request{Model: m.Name, Sampling: m.Sampling, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: suggestPrompt(withTitle)},
		{Role: llm.RoleUser, Content: "Question:\n" + question + "\n\nAnswer:\n" + answer},
	}}, func(llm.Delta) {})
	if err != nil {
		log.Info("follow-up suggestions: the call failed; none shown", "err", err)
		return
	}
	title, questions, err := parseSuggestions(resp.Content)
	if err != nil {
		log.Info("follow-up suggestions: unreadable reply; none shown", "err", err)
		return
	}
	data := events.DataSuggestions{Questions: questions}
	if withTitle && title != "" {
		// Not under ctx: once the reply is in, a Stop does not undo what it says.
		set, err := e.cfg.Store.SetModelTitle(context.WithoutCancel(ctx), r.ConversationID, title)
		switch {
		case err != nil:
			log.Warn("follow-up suggestions: save the title", "err", err)
		case set:
			data.Title = title
		}
	}
	if len(data.Questions) == 0 && data.Title == "" {
		return
	}
	em.emit(context.WithoutCancel(ctx), events.Suggestions, "", data)
}

// parseSuggestions reads the suggestions reply: the first JSON object in text (a code
// fence or words around it are ignored) with "title" and "questions". The title is
// cleaned as a one-line title (quotes and a final full stop dropped, at most 60 runes);
// the questions are trimmed, emptied ones and repeats dropped, each bounded to
// suggestQuestionRunes, at most maxSuggestions kept. Errors: errNoJSON, JSON errors.
func parseSuggestions(text string) (string, []string, error) {
	start, end := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if start < 0 || end < start {
		return "", nil, errNoJSON
	}
	var v struct {
		Title     any   `json:"title"`
		Questions []any `json:"questions"`
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), &v); err != nil {
		return "", nil, fmt.Errorf("suggestions reply: %w", err)
	}
	title, _ := v.Title.(string)
	title = cleanLine(title)
	title = strings.TrimRightFunc(title, func(r rune) bool { return r == '.' || r == '。' || unicode.IsSpace(r) })
	title = bound(title, titleMax)
	var qs []string
	seen := map[string]bool{}
	for _, q := range v.Questions {
		s, _ := q.(string)
		s = bound(cleanLine(s), suggestQuestionRunes)
		if s == "" || seen[s] || len(qs) == maxSuggestions {
			continue
		}
		seen[s] = true
		qs = append(qs, s)
	}
	return title, qs, nil
}

// cleanLine is s on one line (white space collapsed) without the quotes around it.
func cleanLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		l, m := utf8.DecodeLastRuneInString(s)
		if len(s) < n+m || !strings.ContainsRune(`"'“”‘’「」『』《》`, r) || !strings.ContainsRune(`"'“”‘’「」『』《》`, l) {
			break
		}
		s = strings.TrimSpace(s[n : len(s)-m])
	}
	return s
}
