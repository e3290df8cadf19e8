package app

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
)

// TestModelLimitSettings: the model idle timeout and the answer size cap are shown with
// their defaults (llm's), saved from the dialog, refused with invalid_settings naming the
// field when out of range, kept when a form leaves them out, and given to the model
// clients of the next run (lead and sub-agents).
func TestModelLimitSettings(t *testing.T) {
	if config.DefaultModelIdleTimeoutSeconds*time.Second != llm.DefaultIdleTimeout ||
		int64(config.DefaultMaxAnswerMB)<<20 != llm.DefaultMaxAnswerBytes {
		t.Fatalf("config's defaults (%d s, %d MiB) are not llm's (%s, %d bytes)", config.DefaultModelIdleTimeoutSeconds,
			config.DefaultMaxAnswerMB, llm.DefaultIdleTimeout, llm.DefaultMaxAnswerBytes)
	}
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	svc := &SettingsService{core}
	ptr := func(v int) *int { return &v }
	steps := []struct {
		name      string
		in        SettingsInput
		badField  string // "" = the save succeeds
		idle      int    // seconds, as shown and used after the step
		answerMiB int
	}{
		{"left out at first: the defaults", SettingsInput{}, "", config.DefaultModelIdleTimeoutSeconds, config.DefaultMaxAnswerMB},
		{"set both", SettingsInput{ModelIdleTimeoutSeconds: ptr(30), MaxAnswerMB: ptr(1)}, "", 30, 1},
		{"left out: kept", SettingsInput{}, "", 30, 1},
		{"idle timeout too short", SettingsInput{ModelIdleTimeoutSeconds: ptr(2)}, "model_idle_timeout_seconds", 30, 1},
		{"idle timeout too long", SettingsInput{ModelIdleTimeoutSeconds: ptr(7200)}, "model_idle_timeout_seconds", 30, 1},
		{"answer cap too large", SettingsInput{MaxAnswerMB: ptr(65)}, "max_answer_mb", 30, 1},
		{"negative answer cap", SettingsInput{MaxAnswerMB: ptr(-1)}, "max_answer_mb", 30, 1},
		{"0: back to the defaults", SettingsInput{ModelIdleTimeoutSeconds: ptr(0), MaxAnswerMB: ptr(0)}, "",
			config.DefaultModelIdleTimeoutSeconds, config.DefaultMaxAnswerMB},
	}
	for _, st := range steps {
		_, err := svc.Save(st.in)
		if st.badField != "" {
			ae := ToAppError(err)
			if ae == nil || ae.Code != CodeInvalidSettings || ae.Fields[st.badField] == "" {
				t.Fatalf("%s: Save = %v (%+v); want invalid_settings naming %s", st.name, err, ae, st.badField)
			}
		} else if err != nil {
			t.Fatalf("%s: Save: %v", st.name, err)
		}
		v, _ := svc.Get()
		if v.ModelIdleTimeoutSeconds != st.idle || v.MaxAnswerMB != st.answerMiB {
			t.Fatalf("%s: view shows %d s, %d MiB; want %d, %d", st.name, v.ModelIdleTimeoutSeconds, v.MaxAnswerMB, st.idle, st.answerMiB)
		}
		d, err := core.deps()
		if err != nil {
			t.Fatalf("%s: deps: %v", st.name, err)
		}
		for who, m := range map[string]llm.Model{"lead": d.Model, "sub-agents": d.SubAgents.Model} {
			c, ok := m.(*llm.Client)
			if !ok {
				t.Fatalf("%s: the %s' model is a %T", st.name, who, m)
			}
			if c.IdleTimeout() != time.Duration(st.idle)*time.Second || c.MaxAnswerBytes() != int64(st.answerMiB)<<20 {
				t.Fatalf("%s: the %s' client has %s, %d bytes; want %d s, %d MiB", st.name, who, c.IdleTimeout(), c.MaxAnswerBytes(), st.idle, st.answerMiB)
			}
		}
	}
}

// TestAnswerCapAppliesToNextRun: an answer of 1.5 MiB fails the run with
// model_answer_too_large under a 1 MiB cap, and the next run, after the cap was raised to
// 2 MiB in Settings, completes with it.
func TestAnswerCapAppliesToNextRun(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 3<<15) // 1.5 MiB
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return func(openai.ChatCompletionRequest, int) llmtest.Reply {
			return llmtest.Reply{Content: big, ChunkSize: 64 << 10}
		}
	})
	core := newCore(t, w)
	svc := &SettingsService{core}
	for _, step := range []struct {
		capMiB   int
		wantType events.Type
		wantCode string
	}{
		{1, events.Error, CodeModelTooLarge},
		{2, events.Complete, ""},
	} {
		if _, err := svc.Save(SettingsInput{MaxAnswerMB: &step.capMiB}); err != nil {
			t.Fatal(err)
		}
		ev, _ := runToEnd(t, core, "hello")
		var data events.DataTerminal
		_ = json.Unmarshal(ev.Data, &data)
		if ev.Type != step.wantType || data.Code != step.wantCode {
			t.Fatalf("cap %d MiB: the run ended %s with code %q; want %s with code %q", step.capMiB, ev.Type, data.Code, step.wantType, step.wantCode)
		}
	}
}

// runToEnd sends content in a new conversation and returns the run's terminal event and
// ids, failing the test when the run has not ended within 60 s.
func runToEnd(t *testing.T, core *Core, content string) (events.Event, SendResult) {
	t.Helper()
	done := make(chan events.Event, 1)
	defer core.AddSink(SinkFunc(func(ev events.Event) {
		if ev.Type == events.Error || ev.Type == events.Complete || ev.Type == events.Cancelled {
			select {
			case done <- ev:
			default:
			}
		}
	}))()
	res, err := (&ChatService{core}).Send(SendRequest{Content: content})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-done:
		waitIdle(core, res.ConversationID)
		return ev, res
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end")
		return events.Event{}, res
	}
}

// TestParallelToolCallsSetting: max_parallel_tool_calls is shown with its default (4),
// saved from the dialog, refused with invalid_settings naming the field outside 1–16, kept
// when a form leaves it out, and given to the engine for the next run.
func TestParallelToolCallsSetting(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	svc := &SettingsService{core}
	ptr := func(v int) *int { return &v }
	steps := []struct {
		name     string
		in       SettingsInput
		badField string // "" = the save succeeds
		want     int    // as shown and used after the step
	}{
		{"left out at first: the default", SettingsInput{}, "", config.DefaultMaxParallelToolCalls},
		{"one at a time", SettingsInput{MaxParallelToolCalls: ptr(1)}, "", 1},
		{"left out: kept", SettingsInput{}, "", 1},
		{"too many", SettingsInput{MaxParallelToolCalls: ptr(17)}, "max_parallel_tool_calls", 1},
		{"negative", SettingsInput{MaxParallelToolCalls: ptr(-2)}, "max_parallel_tool_calls", 1},
		{"the most", SettingsInput{MaxParallelToolCalls: ptr(16)}, "", 16},
		{"0: back to the default", SettingsInput{MaxParallelToolCalls: ptr(0)}, "", config.DefaultMaxParallelToolCalls},
	}
	for _, st := range steps {
		_, err := svc.Save(st.in)
		if st.badField != "" {
			ae := ToAppError(err)
			if ae == nil || ae.Code != CodeInvalidSettings || ae.Fields[st.badField] == "" {
				t.Fatalf("%s: Save = %v (%+v); want invalid_settings naming %s", st.name, err, ae, st.badField)
			}
		} else if err != nil {
			t.Fatalf("%s: Save: %v", st.name, err)
		}
		v, _ := svc.Get()
		d, err := core.deps()
		if err != nil {
			t.Fatalf("%s: deps: %v", st.name, err)
		}
		if v.MaxParallelToolCalls != st.want || d.MaxParallelToolCalls != st.want {
			t.Fatalf("%s: view shows %d, the engine gets %d; want %d", st.name, v.MaxParallelToolCalls, d.MaxParallelToolCalls, st.want)
		}
	}
}
