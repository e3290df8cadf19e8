package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sashabaranov/go-openai"
)

// streamChunk is one decoded chunk of a streamed chat completion: go-openai's fields, and
// the reasoning of choice 0 as servers send it in fields go-openai does not know.
type streamChunk struct {
	openai.ChatCompletionStreamResponse
	// otherReasoning is choice 0's reasoning from "reasoning" (Ollama's /v1, OpenRouter,
	// Groq, vLLM from 0.10) or else from the text and summary items of
	// "reasoning_details" (OpenRouter); "" when it has neither.
	otherReasoning string
}

// reasoning is the reasoning text d (choice 0's delta of c) carries. A server may send the
// same text in several fields at once (OpenRouter: "reasoning" and "reasoning_details";
// vLLM during its rename: "reasoning_content" and "reasoning"), so only the first field
// that has text counts, in this order: reasoning_content, reasoning, reasoning_details.
func (c streamChunk) reasoning(d openai.ChatCompletionStreamChoiceDelta) string {
	if d.ReasoningContent != "" {
		return d.ReasoningContent
	}
	return c.otherReasoning
}

// reasoningDetail is one item of OpenRouter's "reasoning_details": type "reasoning.text"
// carries text, "reasoning.summary" a summary, "reasoning.encrypted" only data that is
// not for people (it is skipped).
type reasoningDetail struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Summary string `json:"summary"`
}

// otherFields are the fields of a chunk that go-openai drops and decodeChunk reads.
type otherFields struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Reasoning        *string           `json:"reasoning"`
			ReasoningDetails []reasoningDetail `json:"reasoning_details"`
		} `json:"delta"`
	} `json:"choices"`
}

// decodeChunk decodes one chunk's JSON text (a "data:" payload). The fields go-openai
// does not know are decoded only when the text names a reasoning field, so plain chunks
// are decoded once. Errors: the text is not a JSON chunk.
func decodeChunk(raw []byte) (streamChunk, error) {
	var c streamChunk
	if err := json.Unmarshal(raw, &c.ChatCompletionStreamResponse); err != nil {
		return streamChunk{}, fmt.Errorf("decode chunk: %w", err)
	}
	// "reasoning_content" (read by go-openai) also starts with "reasoning: look for the two
	// other keys themselves, closing quote included.
	if !bytes.Contains(raw, []byte(`"reasoning"`)) && !bytes.Contains(raw, []byte(`"reasoning_details"`)) {
		return c, nil
	}
	var o otherFields
	if err := json.Unmarshal(raw, &o); err != nil {
		// "reasoning" of another type than a string: the chunk's other fields stand.
		return c, nil //nolint:nilerr // go-openai's fields decoded; the extra ones are optional
	}
	for _, ch := range o.Choices {
		if ch.Index != 0 {
			continue
		}
		if r := ch.Delta.Reasoning; r != nil && *r != "" {
			c.otherReasoning = *r
			break
		}
		var b strings.Builder
		for _, d := range ch.Delta.ReasoningDetails {
			switch d.Type {
			case "reasoning.text":
				b.WriteString(d.Text)
			case "reasoning.summary":
				b.WriteString(d.Summary)
			}
		}
		c.otherReasoning = b.String()
		break
	}
	return c, nil
}
