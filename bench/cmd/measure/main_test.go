package main

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const benchOut = `goos: linux
BenchmarkToolRound-2   	44	23569726 ns/op	99122 B/round	1134 allocs/round	471395 ns/round	4956098 B/op	56723 allocs/op
BenchmarkToolRound-2   	44	23000000 ns/op	99122 B/round	1000 allocs/round	400000 ns/round	4956098 B/op	50000 allocs/op
BenchmarkToolRound-2   	44	23000000 ns/op	99122 B/round	1200 allocs/round	500000 ns/round	4956098 B/op	50000 allocs/op
BenchmarkLayer1_1MB-2  	100	12500000 ns/op	0 B/op	0 allocs/op
BenchmarkLayer1_1MB-2  	100	12000000 ns/op	0 B/op	0 allocs/op
BenchmarkLayer1_1MB-2  	100	99000000 ns/op	0 B/op	0 allocs/op
BenchmarkLayer2_200KB_1KB_CJK-2	10	90000000 ns/op	5 B/op	7 allocs/op
BenchmarkLayer2_200KB_1KB-2	10	3000000 ns/op	5 B/op	7 allocs/op
PASS
`

func TestParseBench(t *testing.T) {
	tests := []struct {
		want           string
		name           string
		ns, allocs     float64
		notMeasuredErr bool
	}{
		{`^BenchmarkToolRound$`, "BenchmarkToolRound (ns/round, allocs/round)", 471395, 1134, false},
		{`^BenchmarkLayer1\w*1MB$`, "BenchmarkLayer1_1MB (ns/op, allocs/op)", 12500000, 0, false},
		{`^BenchmarkLayer2_200KB_1KB$`, "BenchmarkLayer2_200KB_1KB (ns/op, allocs/op)", 3000000, 7, false},
		{`^BenchmarkFirstPaint10k$`, "", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			name, ns, allocs, err := parseBench(benchOut, regexp.MustCompile(tt.want))
			if tt.notMeasuredErr {
				if !errors.Is(err, errNotMeasured) {
					t.Fatalf("err = %v, want errNotMeasured", err)
				}
				return
			}
			if err != nil || name != tt.name || ns != tt.ns || allocs != tt.allocs {
				t.Fatalf("got %q %v %v %v, want %q %v %v", name, ns, allocs, err, tt.name, tt.ns, tt.allocs)
			}
		})
	}
}

func TestWriteFlagsOverBudget(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	res := Results{Date: "2026-11-26T17:00:00Z", Commit: "abc", LoadAvg: "1 1 1 -> 2 2 2", CPUs: 2, Rows: []Row{
		{Name: "within", Value: v(0.8), Unit: "s", Budget: 1, Measured: true},
		{Name: "over", Value: v(36), Unit: "MB", Budget: 25, Over: true, Measured: true},
		{Name: "none", Value: v(250), Unit: "MB", Measured: true},
		{Name: "missing", Unit: "ms", Budget: 300, Note: "not measured: no benchmark"},
	}}
	dir := t.TempDir()
	if err := write(dir, res); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| within | 0.800 s | ≤ 1 s | ok |",
		"| over | 36.0 MB | ≤ 25 MB | **OVER BUDGET** |",
		"| none | 250 MB | - | no budget |",
		"| missing | - | ≤ 300 ms | not measured | not measured: no benchmark |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	var back Results
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &back); err != nil || len(back.Rows) != 4 || !back.Rows[1].Over || back.Rows[3].Value != nil {
		t.Fatalf("results.json: %v %+v", err, back)
	}
}

// TestParseOpen reads open.mjs's output: the figures of its last line, an error naming the
// output when it printed none, and errNotMeasured when it timed no run.
func TestParseOpen(t *testing.T) {
	tests := []struct {
		name, out      string
		total, backend float64
		wantErr        bool
		notMeasuredErr bool
	}{
		{"figures", `{"runs":[{"total":120,"exchanges":3},{"total":140,"exchanges":13}],"total":130,"backend":40,"render":90,"settled":210.4}`, 130, 40, false, false},
		{"after a warning", "(node:1) Warning: something\n" + `{"runs":[{"total":99,"exchanges":1}],"total":99,"backend":9,"render":90}` + "\n", 99, 9, false, false},
		{"no JSON", "Error: browser closed\n", 0, 0, true, false},
		{"no run", `{"runs":[],"total":0,"backend":0,"render":0}`, 0, 0, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseOpen([]byte(tt.out))
			if (err != nil) != tt.wantErr || errors.Is(err, errNotMeasured) != tt.notMeasuredErr {
				t.Fatalf("err = %v, want error %v (not measured %v)", err, tt.wantErr, tt.notMeasuredErr)
			}
			if err == nil && (o.Total != tt.total || o.Backend != tt.backend || o.Render != tt.total-tt.backend) {
				t.Fatalf("got %+v", o)
			}
		})
	}
	o, _ := parseOpen([]byte(tests[0].out))
	if got, want := o.note(), "runs 120, 140 ms; 13 exchanges in the list at the paint; newest History page painted at 210 ms"; got != want {
		t.Fatalf("note %q, want %q", got, want)
	}
}

// TestBenchMetrics: the research-speed benchmark's custom metrics are read by unit, the
// median over its runs; a benchmark that did not run is not measured.
func TestBenchMetrics(t *testing.T) {
	out := "BenchmarkResearchSpeed-2   \t       1\t11351320735 ns/op\t         8.009 one-by-one-s\t         0.3935 ratio\t         3.151 together-s\n" +
		"BenchmarkResearchSpeed-2   \t       1\t11000000000 ns/op\t         8.5 one-by-one-s\t         0.40 ratio\t         3.4 together-s\n" +
		"BenchmarkResearchSpeed-2   \t       1\t11000000000 ns/op\t         7.5 one-by-one-s\t         0.38 ratio\t         2.9 together-s\nPASS\n"
	m, err := benchMetrics(out, regexp.MustCompile(`^BenchmarkResearchSpeed$`))
	if err != nil || m["ratio"] != 0.3935 || m["together-s"] != 3.151 || m["one-by-one-s"] != 8.009 {
		t.Fatalf("metrics %v, %v", m, err)
	}
	if _, err := benchMetrics("PASS\n", regexp.MustCompile(`^BenchmarkResearchSpeed$`)); !errors.Is(err, errNotMeasured) {
		t.Fatalf("err = %v, want errNotMeasured", err)
	}
}

// TestParseTimeline: the Go side's slog lines and the page's JSON line are put on one time
// line from the process start, in time order, with quoted step names unquoted; output
// without any timeline is reported as not measured.
func TestParseTimeline(t *testing.T) {
	start := time.UnixMicro(1_764_000_000_000_000)
	lines := []string{
		`time=2026-11-29T12:00:00.000Z level=INFO msg=timeline step="database open" at_us=1764000000250000 pid=7`,
		`Overriding existing handler for signal 10.`,
		`time=2026-11-29T12:00:00.000Z level=INFO msg=timeline step=wails.Run at_us=1764000000300000 pid=7`,
		`artifactflow: usable`,
		`artifactflow: timeline [{"step":"page: first data painted","at":1764000000900.5},{"step":"page: bundle evaluated","at":1764000000600}]`,
	}
	got, err := parseTimeline(lines, start)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{{"database open", 250}, {"wails.Run", 300}, {"page: bundle evaluated", 600}, {"page: first data painted", 900.5}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || math.Abs(got[i].MS-want[i].MS) > 1e-6 {
			t.Errorf("step %d = %v, want %v", i, got[i], want[i])
		}
	}
	if _, err := parseTimeline([]string{"artifactflow: usable"}, start); !errors.Is(err, errNotMeasured) {
		t.Errorf("no timeline: err = %v, want errNotMeasured", err)
	}
}

func TestFreshCopies(t *testing.T) {
	src := t.TempDir()
	cli := filepath.Join(src, "artifactflow")
	win := filepath.Join(src, "artifactflow-window")
	for _, f := range []struct{ path, body string }{{cli, "cli build"}, {win, "window build"}} {
		if err := os.WriteFile(f.path, []byte(f.body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(src, "wailshello")
	a, b, c := cli, win, missing
	dir, err := freshCopies(&a, &b, &c)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tests := []struct {
		got, wantPath, wantBody string
	}{
		{a, filepath.Join(dir, "artifactflow"), "cli build"},
		{b, filepath.Join(dir, "artifactflow-window"), "window build"}, // beside the CLI copy, as the hand-over needs
	}
	for _, tt := range tests {
		if tt.got != tt.wantPath {
			t.Errorf("copy at %s, want %s", tt.got, tt.wantPath)
			continue
		}
		body, err := os.ReadFile(tt.got)
		if err != nil || string(body) != tt.wantBody {
			t.Errorf("%s holds %q (%v), want %q", tt.got, body, err, tt.wantBody)
		}
		if st, err := os.Stat(tt.got); err != nil || st.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s is not executable (%v)", tt.got, err)
		}
	}
	if c != missing {
		t.Errorf("a binary that does not exist became %s; want its path left as it was", c)
	}
}
