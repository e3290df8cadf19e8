package export

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkdown(t *testing.T) {
	tests := []struct {
		name string
		doc  Doc
		want string
	}{
		{"markdown is returned byte for byte",
			Doc{Title: "T", ContentType: "markdown", Content: "# Hi\r\n\x01<script>x</script>\n"},
			"# Hi\r\n\x01<script>x</script>\n"},
		{"empty content type means markdown",
			Doc{Title: "T", Content: "*a*"}, "*a*"},
		{"text/markdown with parameters",
			Doc{Title: "T", ContentType: "Text/Markdown; charset=utf-8", Content: "*a*"}, "*a*"},
		{"python becomes a fenced block under the title",
			Doc{Title: "main.py", ContentType: "python", Content: "print(1)\n"},
			"# main.py\n\n```python\nprint(1)\n```\n"},
		{"missing final newline is added before the fence",
			Doc{Title: "data", ContentType: "text/csv", Content: "a,b\n1,2"},
			"# data\n\n```csv\na,b\n1,2\n```\n"},
		{"backticks in content lengthen the fence",
			Doc{Title: "md in code", ContentType: "text/plain", Content: "```go\nx\n```\n"},
			"# md in code\n\n````text\n```go\nx\n```\n````\n"},
		{"markdown punctuation in the title is escaped",
			Doc{Title: "a *b* [c](d) <e> #1\nline2", ContentType: "json", Content: "{}\n"},
			"# a \\*b\\* \\[c\\](d) \\<e\\> \\#1 line2\n\n```json\n{}\n```\n"},
		{"blank title gives no heading",
			Doc{Title: "  ", ContentType: "html", Content: "<b>x</b>\n"},
			"```html\n<b>x</b>\n```\n"},
		{"unsafe content type gives no language",
			Doc{Title: "x", ContentType: "py\"><script>", Content: "1\n"},
			"# x\n\n```\n1\n```\n"},
		{"empty non-markdown content",
			Doc{Title: "x", ContentType: "csv"},
			"# x\n\n```csv\n```\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Markdown(tt.doc)); got != tt.want {
				t.Errorf("Markdown() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCodeLanguage(t *testing.T) {
	tests := []struct{ contentType, want string }{
		{"python", "python"},
		{"text/x-python", "python"},
		{"application/json", "json"},
		{"application/ld+json", "json"},
		{"image/svg+xml", "xml"},
		{"text/plain", "text"},
		{"HTML", "html"},
		{"c++", "c++"},
		{"text/csv; header=present", "csv"},
		{"shell script", ""},
		{"<script>", ""},
		{strings.Repeat("a", 33), ""},
	}
	for _, tt := range tests {
		if got := codeLanguage(tt.contentType); got != tt.want {
			t.Errorf("codeLanguage(%q) = %q, want %q", tt.contentType, got, tt.want)
		}
	}
}

func TestIsMarkdown(t *testing.T) {
	tests := []struct {
		contentType string
		want        bool
	}{
		{"", true}, {"markdown", true}, {"Markdown", true}, {"md", true}, {"text/markdown", true},
		{"text/x-markdown", true}, {"gfm", true}, {" text/markdown;charset=utf-8 ", true},
		{"python", false}, {"text/plain", false}, {"html", false}, {"markdown-ish", false},
	}
	for _, tt := range tests {
		if got := isMarkdown(tt.contentType); got != tt.want {
			t.Errorf("isMarkdown(%q) = %v, want %v", tt.contentType, got, tt.want)
		}
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"clean text is unchanged", "a\tb\nc 中文 😀 é", "a\tb\nc 中文 😀 é"},
		{"CRLF and CR become LF", "a\r\nb\rc\r", "a\nb\nc\n"},
		{"C0 controls are removed", "a\x00b\x01c\x0bd\x0ce\x1bf\x1f", "abcdef"},
		{"DEL and C1 controls are removed", "a\x7fb\u0085c\u009f", "abc"},
		{"noncharacters FFFE and FFFF are removed", "a\uFFFEb\uFFFFc", "abc"},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cleanText(tt.in)
			if got != tt.want {
				t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("cleanText(%q) is not valid UTF-8", tt.in)
			}
		})
	}
}

func TestFilename(t *testing.T) {
	long := strings.Repeat("研", 100)
	tests := []struct{ name, title, ext, want string }{
		{"spaces become underscores", "Market  research\treport", "docx", "Market_research_report.docx"},
		{"extension with dot", "Notes", ".md", "Notes.md"},
		{"no extension", "Notes", "", "Notes"},
		{"CJK letters are kept", "人工智能 研究报告", "html", "人工智能_研究报告.html"},
		{"path separators and dots are dropped", "../../etc/passwd", "md", "etcpasswd.md"},
		{"punctuation dropped, dash and underscore kept", `a:b*c?"d"<e>|f-g_h!`, "md", "abcdef-g_h.md"},
		{"digits kept", "Q3 2025 results", "docx", "Q3_2025_results.docx"},
		{"combining marks kept", "नमस्ते", "md", "नमस्ते.md"},
		{"emoji and controls dropped", "😀 report\x00\x1b", "md", "report.md"},
		{"leading and trailing separators trimmed", " --_x_-- ", "md", "x.md"},
		{"empty title falls back", "", "docx", "artifact.docx"},
		{"only symbols falls back", "!!! ??? ...", "html", "artifact.html"},
		{"80 runes at most", long, "md", strings.Repeat("研", 80) + ".md"},
		{"truncation does not end with underscore", strings.Repeat("a", 79) + " b", "md", strings.Repeat("a", 79) + ".md"},
		{"windows device name", "con", "docx", "con_.docx"},
		{"windows COM port", "COM1", "md", "COM1_.md"},
		{"not a device name", "console", "md", "console.md"},
		{"extension is sanitized", "x", "./d*o/cx", "x.docx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Filename(tt.title, tt.ext)
			if got != tt.want {
				t.Errorf("Filename(%q, %q) = %q, want %q", tt.title, tt.ext, got, tt.want)
			}
			stem := strings.TrimSuffix(got, "."+strings.TrimPrefix(tt.ext, "."))
			if n := utf8.RuneCountInString(stem); n > maxFilenameRunes+1 { // +1: device-name suffix
				t.Errorf("stem %q has %d runes", stem, n)
			}
		})
	}
}
