package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
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

// BenchmarkToolRound reports the engine's own cost per tool round, with the model's time
// excluded and events persisted to a real SQLite file. One op is one run of 50 tool
// rounds plus its final answer and flush; the ns/round, B/round and allocs/round metrics
// divide by the rounds actually run, so they are right for any b.N (ns/op, B/op and
// allocs/op are per run of 50 rounds).
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
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ran := 0
	for b.Loop() {
		res, err := e.Ask(context.Background(), Request{Content: "benchmark"})
		if err != nil || res.Err != nil || res.Steps != rounds {
			b.Fatalf("run: %v %v steps %d", err, res.Err, res.Steps)
		}
		ran += res.Steps
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ran), "ns/round")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(ran), "B/round")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(ran), "allocs/round")
}
