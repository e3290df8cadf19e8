package sandbox

import (
	"context"
	"os"
	"strings"
	"testing"
)

func init() {
	// The nice value of every thread of the child, one per line.
	Handle("test.nice", func([]byte) ([]byte, error) {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return nil, err
		}
		var out []string
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/stat")
			if err != nil {
				continue // the thread ended
			}
			s := string(b)
			f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			out = append(out, f[16]) // field 19 of stat: nice
		}
		return []byte(strings.Join(out, "\n")), nil
	})
}

// TestRunLowPriority: with Limits.LowPriority every thread of the child (those the Go
// runtime started before the job, and those after) runs at nice 19; without it the child
// keeps the parent's priority.
func TestRunLowPriority(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	own := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])[16]
	tests := []struct {
		low  bool
		want string
	}{
		{true, "19"},
		{false, own},
	}
	for _, tt := range tests {
		out, err := Run(context.Background(), "test.nice", nil, Limits{LowPriority: tt.low})
		if err != nil {
			t.Fatalf("low=%v: %v", tt.low, err)
		}
		nices := strings.Fields(string(out))
		if len(nices) < 2 {
			t.Fatalf("low=%v: %d threads seen (%q), want the runtime's several", tt.low, len(nices), out)
		}
		for _, n := range nices {
			if n != tt.want {
				t.Errorf("low=%v: a thread at nice %s, want %s (all: %v)", tt.low, n, tt.want, nices)
			}
		}
	}
}
