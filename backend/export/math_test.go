package export

import (
	"strings"
	"testing"

	"github.com/dop251/goja"
	"golang.org/x/net/html"
)

// mathTeX returns the TeX annotation of every <math> in d, with its display attribute.
func mathTeX(d htmlDoc) []string {
	var out []string
	for _, m := range d.all("math") {
		disp, _ := attr(m, "display")
		tex := ""
		for _, a := range d.allUnder(m, "annotation") {
			tex = textOf(a)
		}
		out = append(out, disp+":"+tex)
	}
	return out
}

// allUnder returns the elements named tag under n.
func (d htmlDoc) allUnder(n *html.Node, tag string) []*html.Node {
	return htmlDoc{n}.all(tag)
}

func TestHTMLMath(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string // display:TeX of each <math>, in order
		text    string   // text that must be in the page as it is
	}{
		{"dollar inline", "Energy $E=mc^2$ here.", []string{":E=mc^2"}, ""},
		{"paren inline", `Energy \(E=mc^2\) here.`, []string{":E=mc^2"}, ""},
		{"dollar display block", "Sum:\n\n$$\n\\sum_{i=1}^n i\n$$\n\nafter", []string{"block:\\sum_{i=1}^n i"}, "after"},
		{"bracket display block", "Sum:\n\n\\[\n\\int_0^1 x\\,dx\n\\]\n", []string{"block:\\int_0^1 x\\,dx"}, ""},
		{"one-line display block", "$$a^2+b^2=c^2$$\n", []string{"block:a^2+b^2=c^2"}, ""},
		{"display inside a paragraph", "so $$a^2$$ holds", []string{"block:a^2"}, "holds"},
		{"single letter", "let $x$ be", []string{":x"}, "let"},
		{"prices", "It costs $5 and $10 at most.", nil, "It costs $5 and $10 at most."},
		{"prices with cents", "Between $5.99 and $10.50.", nil, "Between $5.99 and $10.50."},
		{"escaped dollars", `Use \$x\$ literally.`, nil, "Use $x$ literally."},
		{"dollar before a space", "from $ 5 to 10 $ total", nil, "from $ 5 to 10 $ total"},
		{"escaped citations", `Far \[1\] and \[2, 3\].`, nil, "Far [1] and [2, 3]."},
		{"escaped citation alone", "Text\n\n\\[1\\]\n", nil, "[1]"},
		{"code span", "Run `echo $HOME $x$` now.", nil, "echo $HOME $x$"},
		{"code block", "```sh\nprice=$5; echo \"$a$\"\n$$b$$\n```\n", nil, "price=$5; echo \"$a$\"\n$$b$$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := HTML(Doc{Title: "M", ContentType: "markdown", Content: tt.content})
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			d := parseHTML(t, out)
			if got := mathTeX(d); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("formulas = %q, want %q\n%s", got, tt.want, out)
			}
			if tt.text != "" && !strings.Contains(textOf(d.root), tt.text) {
				t.Errorf("page text lacks %q:\n%s", tt.text, out)
			}
			// Self-contained: MathML only, no script, no stylesheet or font to fetch.
			for _, tag := range []string{"script", "link"} {
				if len(d.all(tag)) > 0 {
					t.Errorf("export has <%s>", tag)
				}
			}
		})
	}
}

func TestHTMLMathUntrusted(t *testing.T) {
	out, err := HTML(Doc{Title: "M", ContentType: "markdown", Content: `$\href{javascript:alert(1)}{x}$ and $\url{https://evil.example}$ and $\frac{1}{$`})
	if err != nil {
		t.Fatalf("HTML: %v", err)
	}
	d := parseHTML(t, out)
	for _, n := range d.all("a") {
		t.Errorf("a formula made a link: %v", n.Attr)
	}
	// The untrusted commands are shown by name, not obeyed; the broken formula is
	// KaTeX's inline error showing its source.
	if got := len(d.all("math")); got != 2 {
		t.Errorf("%d formulas, want 2", got)
	}
	if !strings.Contains(string(out), `class="katex-error"`) || !strings.Contains(textOf(d.root), `\frac{1}{`) {
		t.Errorf("broken formula not shown as an error with its source:\n%s", out)
	}
}

func TestDOCXMath(t *testing.T) {
	data, err := DOCX(Doc{Title: "M", ContentType: "markdown", Content: "Energy $E=mc^2$ and $5 and $10.\n\n$$\n\\sum_{i=1}^n i\n$$\n"})
	if err != nil {
		t.Fatalf("DOCX: %v", err)
	}
	p := openDOCX(t, data)
	para := p.para(t, "Energy $E=mc^2$ and $5 and $10.")
	if got := runWithText(t, para, "$E=mc^2$").first("rStyle"); got == nil || got.attr("val") != "VerbatimChar" {
		t.Errorf("inline formula run style = %v, want VerbatimChar", got)
	}
	if got := runWithText(t, para, " and $5 and $10.").first("rStyle"); got != nil {
		t.Errorf("price text got style %q", got.attr("val"))
	}
	block := p.para(t, `\sum_{i=1}^n i`)
	if got := block.first("pStyle"); got == nil || got.attr("val") != "SourceCode" {
		t.Errorf("display formula paragraph style = %v, want SourceCode", got)
	}
}

// A formula KaTeX cannot typeset within mathTimeout is stopped and shown as its TeX
// source, and the shared VM goes on typesetting the next formula.
func TestMathTimeoutStopsFormula(t *testing.T) {
	if _, err := mathML("x", false); err != nil { // load KaTeX outside the short limit
		t.Fatal(err)
	}
	// The limit is reached at once: the watch interrupts the VM before the formula runs.
	was := mathWatch
	mathWatch = func(vm *goja.Runtime) func() bool {
		vm.Interrupt(errMathTimeout)
		return func() bool { return true }
	}
	got := mathHTML(`\sum_{i=1}^{n} i^2`, true)
	mathWatch = was
	if !strings.HasPrefix(got, `<code class="math">`) || !strings.Contains(got, `\sum_{i=1}^{n} i^2`) {
		t.Errorf("a formula past the time limit = %.200q, want its TeX source in <code class=\"math\">", got)
	}
	if got := mathHTML("x^2", false); !strings.Contains(got, "<math") {
		t.Errorf("the next formula = %.200q, want MathML (the VM must go on working)", got)
	}
}
