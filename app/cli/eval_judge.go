package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"artifactflow/app/internal/text"
	"artifactflow/backend/config"
	"artifactflow/backend/llm"
)

// This file is the judge of `artifactflow eval --judge`: the model grades each answer
// against its reference, and its reply is parsed into a grade.

// evalGrade is the judge's grade of one answer. Score (0-10) is set when the judge gave
// a well-formed grade; otherwise Error says why there is none (the judge's call failed,
// or its reply was malformed, with Raw holding the start of it).
type evalGrade struct {
	Score  *float64 `json:"score,omitempty"`
	Reason string   `json:"reason,omitempty"`
	Error  string   `json:"error,omitempty"`
	Raw    string   `json:"raw,omitempty"`
}

// judgeModel is the model that grades answers: the lead's model on the same endpoint,
// with the lead's sampling (what the user set for it is what the endpoint accepts).
type judgeModel struct {
	model    llm.Model
	sampling llm.Sampling
}

// agentSampling converts an agent's sampling settings to a request's.
func agentSampling(c config.AgentChoice) llm.Sampling {
	f32 := func(v *float64) *float32 {
		if v == nil {
			return nil
		}
		f := float32(*v)
		return &f
	}
	return llm.Sampling{Temperature: f32(c.Temperature), TopP: f32(c.TopP), MaxTokens: c.MaxTokens}
}

// judgeSystem is the judge's instruction. Its reply must be one JSON object.
const judgeSystem = `You grade answers to research questions against a reference answer.
Compare the facts of the answer (and of its report, when given) with the reference: dates, names, numbers and the main points. Ignore style, length, citations and formatting; extra correct detail is fine; a fact that contradicts the reference counts against the answer.
Score from 0 to 10: 10 = every key fact of the reference is present and nothing contradicts it; 5 = about half of the key facts, or a notable error; 0 = wrong, empty or off-topic.
Reply with exactly one JSON object and nothing else, on one line:
{"score": <integer 0-10>, "reason": "<one sentence>"}`

// grade asks the judge to grade answer (and report, the run's main deliverable) against q's
// reference, and parses its reply (parseGrade). A failed call is a grade with Error set.
func grade(ctx context.Context, j *judgeModel, q evalQuestion, answer, report string) evalGrade {
	var b strings.Builder
	fmt.Fprintf(&b, "Question:\n%s\n\nReference answer:\n%s\n\nAnswer to grade:\n%s\n", q.Question, q.Reference, clipRunes(answer, judgeAnswerRunes))
	if strings.TrimSpace(report) != "" {
		fmt.Fprintf(&b, "\nReport written with the answer:\n%s\n", clipRunes(report, judgeAnswerRunes))
	}
	resp, err := j.model.Stream(ctx, llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: judgeSystem},
		{Role: llm.RoleUser, Content: b.String()},
	}, Sampling: j.sampling}, nil)
	if err != nil {
		return evalGrade{Error: "judge call failed: " + text.OneLine(err)}
	}
	return parseGrade(resp.Content)
}

// parseGrade reads a judge's reply: the first JSON object in it (code fences and words
// around it are ignored) that has a "score", a number or numeric string from 0 to 10
// ("7/10" is read as 7), and optionally a string "reason" (flattened to one line and
// clipped). Raw line breaks inside its strings are read as spaces. Anything else gives a grade with Error "malformed grade" and Raw set to the
// start of the reply; it never fails otherwise.
func parseGrade(reply string) evalGrade {
	bad := func(why string) evalGrade {
		return evalGrade{Error: "malformed grade: " + why, Raw: clipRunes(strings.Join(strings.Fields(reply), " "), judgeRawRunes)}
	}
	// Line breaks and tabs are whitespace between JSON tokens; inside a string, where JSON
	// forbids them raw but models write them, they become spaces.
	reply = strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(reply)
	var obj map[string]json.RawMessage
	for i := 0; i < len(reply); i++ {
		if reply[i] != '{' {
			continue
		}
		var m map[string]json.RawMessage
		if json.NewDecoder(strings.NewReader(reply[i:])).Decode(&m) == nil {
			if _, ok := m["score"]; ok {
				obj = m
				break
			}
		}
	}
	if obj == nil {
		return bad("no JSON object with a score")
	}
	score, ok := scoreOf(obj["score"])
	if !ok {
		return bad("score is not a number from 0 to 10")
	}
	g := evalGrade{Score: &score}
	if raw, ok := obj["reason"]; ok {
		var reason string
		if json.Unmarshal(raw, &reason) != nil {
			return bad("reason is not a string")
		}
		g.Reason = clipRunes(strings.Join(strings.Fields(reason), " "), judgeReasonRunes)
	}
	return g
}

// scoreOf reads a score: a JSON number, or a string holding one (optionally "/10"),
// within 0-10.
func scoreOf(raw json.RawMessage) (float64, bool) {
	var v float64
	if json.Unmarshal(raw, &v) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "/10"))
		var err error
		if v, err = strconv.ParseFloat(s, 64); err != nil {
			return 0, false
		}
	}
	if math.IsNaN(v) || v < 0 || v > 10 {
		return 0, false
	}
	return v, true
}

// clipRunes returns s cut to at most n runes, with "…" when cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
