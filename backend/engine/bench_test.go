package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"artifactflow/backend/llm"
	"artifactflow/backend/store"
	"artifactflow/backend/toolcall"
)

// instantModel answers at once, without HTTP, so a benchmark measures only the engine:
// context building, tool-call parsing, tool execution, events and the final flush. The
// lead rewrites the task plan `rounds` times, then answers.
type instantModel struct{ rounds int }

func (m instantModel) Stream(_ context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	done := 0
	for _, msg := range req.Messages {
		if msg.Role == llm.RoleTool {
			done++
		}
	}
	if done >= m.rounds {
		onDelta(llm.Delta{Content: "done"})
		return llm.Response{Content: "done"}, nil
	}
	name, args := "rewrite_artifact", map[string]string{"id": "task_plan", "content": fmt.Sprintf("- [x] step %d\n- [ ] step %d", done, done+1)}
	if done == 0 {
		name, args = "create_artifact", map[string]string{"id": "task_plan", "content_type": "markdown", "title": "Plan", "content": "- [ ] step 1"}
	}
	b, _ := json.Marshal(args)
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: fmt.Sprint("c", done), Name: name, Arguments: string(b)}}}, nil
}

// BenchmarkToolRound reports the engine's own cost per tool round (ns/op is per round),
// with the model's time excluded and events persisted to a real SQLite file.
func BenchmarkToolRound(b *testing.B) {
	const rounds = 50
	db, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	e, err := New(Config{Store: db, Deps: func() (Deps, error) {
		return Deps{Model: instantModel{rounds: rounds}, ModelName: "m", Mode: toolcall.ModeNative}, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += rounds {
		res, err := e.Ask(context.Background(), Request{Content: "benchmark"})
		if err != nil || res.Err != nil || res.Steps != rounds {
			b.Fatalf("run: %v %v steps %d", err, res.Err, res.Steps)
		}
	}
}
