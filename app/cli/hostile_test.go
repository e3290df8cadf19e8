package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/testdocs"
)

// hostileInput is one page or upload that crashed or hung the app before it was hardened.
type hostileInput struct {
	name        string
	contentType string // served with this type when fetched; "" for an upload
	data        func() []byte
	fetchHas    string // what web_fetch's result (page text or error) must say
}

// hostileInputs are the pages web_fetch reads and the files the user uploads in
// TestHostileInputsUnderMemoryLimit.
var hostileInputs = []hostileInput{
	{"page-pdf-count-bomb", "application/pdf", testdocs.PDFCountBomb, "one real page"},
	{"page-pdf-parent-cycle", "application/pdf", testdocs.PDFParentCycle, "text behind a loop"},
	{"page-table-padding", "text/html", testdocs.TablePaddingHTML, "HHHHHHHH"},
	{"page-table-wide", "text/html", testdocs.WideTableHTML, "c | c | c"},
	{"page-table-spans", "text/html", testdocs.SpanTableHTML, "| a | b |"},
	{"page-table-10mb", "text/html", func() []byte { return testdocs.BigTableHTML(10 << 20) }, "HHHHHHHH"},
	{"upload-wide.docx", "", testdocs.WideTableDOCX, ""},
	{"upload-padding.html", "", testdocs.TablePaddingHTML, ""},
	{"upload-count-bomb.pdf", "", testdocs.PDFCountBomb, ""},
	{"upload-parent-cycle.pdf", "", testdocs.PDFParentCycle, ""},
	{"stop-during-pdf", "application/pdf", testdocs.PDFParentCycle, ""},
}

// envHostile names the input a child process of TestHostileInputsUnderMemoryLimit handles.
const envHostile = "AF_HOSTILE_INPUT"

// peakRE matches the peak-memory line a child prints.
var peakRE = regexp.MustCompile(`PEAK-RSS (\S+) self=(\d+)KB children=(\d+)KB`)

// TestHostileInputsUnderMemoryLimit runs, for each hostile page and upload, a research run
// (`ask`) or an upload in a process limited to 2 GB of address space (`ulimit -v`): each
// must end with a clear result, the process alive. A run whose crawl reads the looping PDF
// is stopped mid-read and must end within a second. Each child prints its peak RSS and
// that of its largest child (the PDF reader), logged here (go test -v).
func TestHostileInputsUnderMemoryLimit(t *testing.T) {
	if name := os.Getenv(envHostile); name != "" {
		hostileChild(t, name)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -v is tested on Linux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range hostileInputs {
		t.Run(in.name, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", `ulimit -v 2097152 && exec "$0" "$@"`, exe,
				"-test.run=^TestHostileInputsUnderMemoryLimit$", "-test.v", "-test.count=1", "-test.timeout=120s")
			cmd.Env = append(os.Environ(), envHostile+"="+in.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child for %s under a 2 GB limit: %v\n%s", in.name, err, out)
			}
			m := peakRE.FindSubmatch(out)
			if m == nil {
				t.Fatalf("child printed no peak:\n%s", out)
			}
			self, _ := strconv.Atoi(string(m[2]))
			kids, _ := strconv.Atoi(string(m[3]))
			t.Logf("%s: peak RSS %d MB, largest child %d MB", in.name, self>>10, kids>>10)
		})
	}
}

// hostileChild handles one input in the limited child process.
func hostileChild(t *testing.T, name string) {
	var in hostileInput
	for _, h := range hostileInputs {
		if h.name == name {
			in = h
		}
	}
	switch {
	case in.name == "":
		t.Fatalf("unknown hostile input %q", name)
	case strings.HasPrefix(name, "upload-"):
		hostileUpload(t, in)
	default:
		hostileFetch(t, in)
	}
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	fmt.Printf("PEAK-RSS %s self=%dKB children=%dKB\n", name, self.Maxrss, kids.Maxrss)
}

// hostileUpload uploads the input as a file of its name and checks that it is stored,
// readable or with the reason it is not.
func hostileUpload(t *testing.T, in hostileInput) {
	core := newTestCore(t, apptest.EchoWorld(t))
	file := strings.TrimPrefix(in.name, "upload-")
	res, err := core.Services().Artifacts.Upload("", []app.UploadFile{{Name: file, Data: in.data()}})
	if err != nil || len(res) != 1 || res[0].Error != "" {
		t.Fatalf("upload %s: %+v, %v", file, res, err)
	}
	if !res[0].Readable && res[0].Note == "" {
		t.Errorf("upload %s is unreadable without a reason: %+v", file, res[0])
	}
}

// hostileFetch runs `ask` whose crawl agent fetches the input from a loopback site, and
// checks that the run completes and that web_fetch's result says what in.fetchHas says.
// For "stop-during-pdf" the run is cancelled as soon as the site has served the PDF and
// must end within a second with exit code 130.
func hostileFetch(t *testing.T, in hostileInput) {
	stop := in.name == "stop-during-pdf"
	served := make(chan struct{}, 1)
	site := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", in.contentType)
		_, _ = rw.Write(in.data())
		select {
		case served <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(site.Close)
	pageURL := site.URL + "/" + in.name
	var crawlResult string
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			results := apptest.ToolResults(req)
			switch apptest.AgentOf(req) {
			case "crawl_agent":
				if len(results) == 0 {
					return w.ToolCall("web_fetch", map[string]any{"url": pageURL})
				}
				crawlResult = results[0]
				return llmtest.Reply{Content: "Read it."}
			case "lead_agent":
				if len(results) == 0 {
					return w.ToolCall("call_subagent", map[string]any{"agent_name": "crawl_agent", "instruction": "Read " + pageURL})
				}
				return llmtest.Reply{Content: "Done reading the page."}
			}
			return llmtest.Reply{Content: "?"}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelledAt time.Time
	if stop {
		go func() {
			select {
			case <-served:
				time.Sleep(50 * time.Millisecond) // the PDF reader is running now
				cancelledAt = time.Now()
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	code, stdout, stderr := ask(ctx, w, "--allow-private-network", "Read the page")
	if stop {
		if code != ExitCancelled {
			t.Fatalf("exit %d after Stop, want %d; stderr:\n%s", code, ExitCancelled, stderr)
		}
		if d := time.Since(cancelledAt); cancelledAt.IsZero() || d > time.Second {
			t.Errorf("the run ended %v after Stop (cancelled: %v), want within a second", d, !cancelledAt.IsZero())
		}
		return
	}
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "Done reading the page.") {
		t.Errorf("answer = %q", stdout)
	}
	if !strings.Contains(crawlResult, in.fetchHas) {
		t.Errorf("web_fetch result lacks %q: %.300q", in.fetchHas, crawlResult)
	}
}
