package export

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"regexp"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// TeX math in exported Markdown. The delimiters and the rules for what stays
// text are the app's (frontend/src/math.ts): `$…$` and `\(…\)` inline,
// `$$…$$` and `\[…\]` display (`\[…\]` only as a block opening a line, as
// an escaped citation "\[1\]" is common in a paragraph); a `$` that opens before a space, closes after
// one or is followed by a digit ("$5 and $10") is text, as are code spans,
// code blocks and a backslash-escaped `\$`.

// kindMath is the goldmark node kind of a formula (inline or display).
var kindMath = ast.NewNodeKind("Math")

// mathNode is a formula: TeX is the source between the delimiters; Display is
// true for `$$…$$` and `\[…\]`. As a block (a display formula on lines of its
// own) it is a child of the document; inline, of a paragraph.
type mathNode struct {
	ast.BaseInline
	TeX     string
	Display bool
	block   bool
}

// Kind implements ast.Node.
func (n *mathNode) Kind() ast.NodeKind { return kindMath }

// IsBlock reports whether n is a display formula on lines of its own.
func (n *mathNode) IsBlock() bool { return n.block }

// Dump implements ast.Node.
func (n *mathNode) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"TeX": n.TeX}, nil)
}

// mathBlock wraps a display formula standing as a block.
type mathBlock struct {
	ast.BaseBlock
	math *mathNode
}

var kindMathBlock = ast.NewNodeKind("MathBlock")

// Kind implements ast.Node.
func (n *mathBlock) Kind() ast.NodeKind { return kindMathBlock }

// IsRaw implements ast.Node: the lines are TeX, not Markdown.
func (n *mathBlock) IsRaw() bool { return true }

// Dump implements ast.Node.
func (n *mathBlock) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

var (
	inlineDouble = regexp.MustCompile(`^\$\$([^$][\s\S]*?)\$\$`)
	inlineParen  = regexp.MustCompile(`^\\\(([\s\S]+?)\\\)`)
	// "\[1\]" on a line of its own is an escaped citation, not a formula.
	citationOnly = regexp.MustCompile(`^[\d\s,\-–]*$`)
	inlineDollar = regexp.MustCompile(`^\$([^\s$](?:(?:\\.|[^\\$\n])*?[^\s\\])?)\$`)
)

type mathInlineParser struct{}

func (mathInlineParser) Trigger() []byte { return []byte{'$', '\\'} }

func (mathInlineParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	try := func(re *regexp.Regexp, display, dollar bool) ast.Node {
		m := re.FindSubmatch(line)
		if m == nil {
			return nil
		}
		// A closing single dollar followed by a digit is a price ("$5 and $10").
		if dollar && len(line) > len(m[0]) && line[len(m[0])] >= '0' && line[len(m[0])] <= '9' {
			return nil
		}
		block.Advance(len(m[0]))
		return &mathNode{TeX: string(bytes.TrimSpace(m[1])), Display: display}
	}
	if n := try(inlineDouble, true, false); n != nil {
		return n
	}
	if n := try(inlineParen, false, false); n != nil {
		return n
	}
	return try(inlineDollar, false, true)
}

type mathBlockParser struct{}

func (mathBlockParser) Trigger() []byte { return []byte{'$', '\\'} }

// mathOpener returns the closing delimiter of a display block opened by line
// (at most three spaces in), or "" when line opens none.
func mathOpener(line []byte) string {
	t := bytes.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	switch {
	case bytes.HasPrefix(t, []byte("$$")):
		return "$$"
	case bytes.HasPrefix(t, []byte(`\[`)):
		return `\]`
	}
	return ""
}

func (mathBlockParser) Open(_ ast.Node, reader text.Reader, _ parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	closer := mathOpener(line)
	if closer == "" {
		return nil, parser.NoChildren
	}
	start := bytes.Index(line, []byte(map[string]string{"$$": "$$", `\]`: `\[`}[closer])) + 2
	rest := bytes.TrimRight(line[start:], " \t\r\n")
	b := &mathBlock{math: &mathNode{Display: true, block: true}}
	b.SetAttributeString("closer", closer)
	if bytes.HasSuffix(rest, []byte(closer)) && len(rest) >= len(closer) {
		// "$$ x $$" on one line: nothing may follow the closer.
		b.math.TeX = string(bytes.TrimSpace(rest[:len(rest)-len(closer)]))
		if citationOnly.MatchString(b.math.TeX) {
			return nil, parser.NoChildren
		}
		reader.AdvanceToEOL()
		b.SetAttributeString("closed", true)
		return b, parser.Close
	}
	if bytes.Contains(rest, []byte(closer)) {
		return nil, parser.NoChildren // "$$a$$ text": inline math in a paragraph
	}
	b.math.TeX = string(rest)
	reader.AdvanceToEOL()
	return b, parser.NoChildren
}

func (mathBlockParser) Continue(node ast.Node, reader text.Reader, _ parser.Context) parser.State {
	b := node.(*mathBlock)
	if _, ok := b.AttributeString("closed"); ok {
		return parser.Close
	}
	line, _ := reader.PeekLine()
	if line == nil {
		return parser.Close
	}
	closer := b.closer()
	trimmed := bytes.TrimRight(line, " \t\r\n")
	if i := bytes.Index(trimmed, []byte(closer)); i >= 0 {
		b.math.TeX = string(bytes.TrimSpace([]byte(b.math.TeX + "\n" + string(trimmed[:i]))))
		reader.AdvanceToEOL()
		b.SetAttributeString("closed", true)
		return parser.Close
	}
	b.math.TeX += "\n" + string(bytes.TrimRight(line, "\r\n"))
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

// closer is the closing delimiter of b: `\]` for a block opened by `\[`.
func (b *mathBlock) closer() string {
	if v, ok := b.AttributeString("closer"); ok {
		return v.(string)
	}
	return "$$"
}

func (mathBlockParser) Close(node ast.Node, _ text.Reader, _ parser.Context) {
	b := node.(*mathBlock)
	b.math.TeX = string(bytes.TrimSpace([]byte(b.math.TeX)))
}

func (mathBlockParser) CanInterruptParagraph() bool { return true }
func (mathBlockParser) CanAcceptIndentedLine() bool { return false }

// mathExtension adds the math parsers and the HTML renderer to goldmark.
type mathExtension struct{}

func (mathExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithBlockParsers(util.Prioritized(mathBlockParser{}, 150)),
		parser.WithInlineParsers(util.Prioritized(mathInlineParser{}, 150)),
	)
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(mathHTMLRenderer{}, 100)))
}

// mathHTMLRenderer writes formulas as MathML (see mathML).
type mathHTMLRenderer struct{}

func (mathHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindMath, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			m := n.(*mathNode)
			_, _ = w.WriteString(mathHTML(m.TeX, m.Display))
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(kindMathBlock, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			m := n.(*mathBlock).math
			_, _ = w.WriteString(`<div class="math-display">` + mathHTML(m.TeX, true) + "</div>\n")
		}
		return ast.WalkSkipChildren, nil
	})
}

// mathHTML is one formula as MathML (typeset by KaTeX), or, should KaTeX fail
// to run, its TeX source escaped in <code class="math">.
func mathHTML(tex string, display bool) string {
	out, err := mathML(tex, display)
	if err != nil {
		return `<code class="math">` + template.HTMLEscapeString(tex) + `</code>`
	}
	return out
}

//go:embed katex/katex.min.js
var katexJS string

// katexVM is one JavaScript VM with KaTeX loaded, made on the first formula
// (about 0.3 s) and kept; goja VMs are not safe for concurrent use, hence mu.
// mathTimeout bounds the typesetting of one formula in an export; errMathTimeout is the
// cause of a formula stopped at it.
var (
	mathTimeout    = 5 * time.Second
	errMathTimeout = errors.New("formula took too long to typeset")
)

// mathWatch starts the time limit of one formula on vm: after mathTimeout it interrupts
// the VM with errMathTimeout. The returned function ends the watch.
var mathWatch = func(vm *goja.Runtime) (stop func() bool) {
	return time.AfterFunc(mathTimeout, func() { vm.Interrupt(errMathTimeout) }).Stop
}

var katexVM struct {
	once   sync.Once
	mu     sync.Mutex
	render func(tex string, display bool) (string, error)
	err    error
}

// mathML typesets tex with KaTeX (run in goja, a JavaScript interpreter in
// Go) as MathML only: browsers draw MathML themselves, so the exported file
// needs no script, no stylesheet and no font. KaTeX runs with trust off (no
// \href, \url or HTML extensions) and expansion and size limits; a formula
// that does not parse comes back as KaTeX's inline error (the source in red),
// not as an error. The error is non-nil only if the VM cannot be made.
func mathML(tex string, display bool) (string, error) {
	katexVM.once.Do(func() {
		vm := goja.New()
		if _, err := vm.RunString("var window = undefined; var module = undefined; var exports = undefined; var define = undefined;\n" + katexJS); err != nil {
			katexVM.err = fmt.Errorf("export: load katex: %w", err)
			return
		}
		fn, ok := goja.AssertFunction(vm.Get("katex").ToObject(vm).Get("renderToString"))
		if !ok {
			katexVM.err = fmt.Errorf("export: load katex: renderToString missing")
			return
		}
		katex := vm.Get("katex")
		katexVM.render = func(tex string, display bool) (string, error) {
			opts := vm.NewObject()
			for k, v := range map[string]any{"displayMode": display, "throwOnError": false, "output": "mathml", "trust": false, "strict": "ignore", "maxExpand": 1000, "maxSize": 20} {
				_ = opts.Set(k, v)
			}
			// A formula that keeps KaTeX busy too long is stopped, not waited for: the VM is
			// shared, and every export would queue behind it.
			stop := mathWatch(vm)
			v, err := fn(katex, vm.ToValue(tex), opts)
			stop()
			vm.ClearInterrupt()
			if err != nil {
				return "", fmt.Errorf("export: katex: %w", err)
			}
			return v.String(), nil
		}
	})
	if katexVM.err != nil {
		return "", katexVM.err
	}
	katexVM.mu.Lock()
	defer katexVM.mu.Unlock()
	return katexVM.render(tex, display)
}
