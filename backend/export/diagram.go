package export

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Mermaid diagrams in the HTML export. Mermaid needs a browser (it measures text), so the
// page that asks for an export draws the diagrams and sends their SVG along (Doc.Diagrams);
// this file puts each in place of its ```mermaid block after cleaning it. The SVG is
// untrusted (any page or local-API client can send anything), so it passes an allow-list
// of SVG elements and attributes and loses whatever could run or load something.

const (
	// MaxDiagrams is how many diagrams one HTML export draws; later ```mermaid blocks are
	// exported as their source.
	MaxDiagrams = 50
	// MaxDiagramBytes is the largest diagram SVG accepted, in bytes; a larger one is
	// ignored and its block exported as its source.
	MaxDiagramBytes = 1 << 20
)

// DiagramKey is the key of a ```mermaid block's source in Doc.Diagrams: the source as
// cleanText leaves it (CRLF and CR become LF, characters XML forbids removed) with
// spaces, tabs and newlines trimmed at both ends. HTML applies it both to the keys of
// Doc.Diagrams and to each block, so a caller may send the block's text as its
// Markdown parser gives it.
func DiagramKey(source string) string {
	return strings.Trim(cleanText(source), " \t\n")
}

// isMermaidInfo reports whether a fenced block's info string names Mermaid: its first
// word is "mermaid" in any case, the rule the app's Markdown renderer uses.
func isMermaidInfo(info []byte) bool {
	f := bytes.Fields(info)
	return len(f) > 0 && strings.EqualFold(string(f[0]), "mermaid")
}

// kindDiagram is the AST node a drawn ```mermaid block is replaced with.
var kindDiagram = ast.NewNodeKind("Diagram")

// diagramNode is a drawn diagram: its cleaned SVG markup.
type diagramNode struct {
	ast.BaseBlock
	svg string
}

func (n *diagramNode) Kind() ast.NodeKind { return kindDiagram }

func (n *diagramNode) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// diagramExtension renders diagramNode as <figure class="diagram"><svg …></figure>.
type diagramExtension struct{}

func (diagramExtension) Extend(m goldmark.Markdown) {
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(diagramHTMLRenderer{}, 100)))
}

type diagramHTMLRenderer struct{}

func (diagramHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindDiagram, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString(`<figure class="diagram">` + n.(*diagramNode).svg + "</figure>\n")
		}
		return ast.WalkSkipChildren, nil
	})
}

// placeDiagrams replaces each ```mermaid fenced block under root whose source
// (DiagramKey) has a diagram in diagrams with that diagram, cleaned (cleanDiagramSVG),
// in document order, at most MaxDiagrams of them. A block without a diagram, or whose
// diagram is too large or holds no <svg>, stays a code block.
func placeDiagrams(root ast.Node, src []byte, diagrams map[string]string) {
	if len(diagrams) == 0 {
		return
	}
	byKey := make(map[string]string, len(diagrams))
	for k, v := range diagrams {
		if len(v) <= MaxDiagramBytes {
			byKey[DiagramKey(k)] = v
		}
	}
	var blocks []*ast.FencedCodeBlock
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if b, ok := n.(*ast.FencedCodeBlock); ok && entering && b.Info != nil && isMermaidInfo(b.Info.Segment.Value(src)) {
			blocks = append(blocks, b)
		}
		return ast.WalkContinue, nil
	})
	drawn := 0
	for _, b := range blocks {
		if drawn == MaxDiagrams {
			return
		}
		var source bytes.Buffer
		lines := b.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			source.Write(seg.Value(src))
		}
		raw, ok := byKey[DiagramKey(source.String())]
		if !ok {
			continue
		}
		svg, ok := cleanDiagramSVG(raw, "diagram"+strconv.Itoa(drawn+1)+"-")
		if !ok {
			continue
		}
		drawn++
		b.Parent().ReplaceChild(b.Parent(), b, &diagramNode{svg: svg})
	}
}

// svgElements are the SVG elements a diagram keeps (names as the HTML parser spells
// them): shapes, text, groups, markers, definitions, gradients, filters and <style>.
// Anything else (script, foreignObject, image, a, use of another file, HTML) is
// dropped with everything in it.
var svgElements = toSet(`svg g defs style marker symbol use path rect circle ellipse line polyline polygon
	text tspan textPath title desc clipPath mask pattern linearGradient radialGradient stop
	filter feBlend feColorMatrix feComponentTransfer feComposite feDropShadow feFlood feFuncA feFuncB
	feFuncG feFuncR feGaussianBlur feMerge feMergeNode feMorphology feOffset`)

// svgAttributes are the attributes a diagram's elements keep besides data-* and aria-*:
// geometry, presentation and text attributes, ids and classes, and href (only a
// #fragment; see cleanSVGAttrs). Event handlers and everything else are dropped.
var svgAttributes = toSet(`id class style role transform d x y x1 y1 x2 y2 cx cy r rx ry fx fy width height
	viewBox preserveAspectRatio points pathLength xmlns version href
	fill fill-opacity fill-rule stroke stroke-width stroke-dasharray stroke-dashoffset stroke-linecap
	stroke-linejoin stroke-miterlimit stroke-opacity opacity color visibility display overflow
	clip-path clip-rule mask filter marker-start marker-mid marker-end vector-effect shape-rendering
	text-rendering transform-origin
	font-family font-size font-weight font-style font-variant text-anchor dominant-baseline
	alignment-baseline baseline-shift dx dy rotate textLength lengthAdjust letter-spacing word-spacing
	text-decoration writing-mode
	markerWidth markerHeight markerUnits refX refY orient
	gradientUnits gradientTransform spreadMethod offset stop-color stop-opacity
	patternUnits patternContentUnits patternTransform clipPathUnits maskUnits maskContentUnits
	filterUnits primitiveUnits in in2 result stdDeviation flood-color flood-opacity operator
	k1 k2 k3 k4 mode type values tableValues slope intercept amplitude exponent radius`)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// cleanDiagramSVG returns raw's first top-level <svg> element cleaned for an exported
// page, or false when raw is larger than MaxDiagramBytes or holds no <svg>:
//   - only svgElements stay; a <style> keeps only its text, with @import and every
//     url(…) other than url(#…) removed (dropped whole if it would still load something);
//   - only svgAttributes, data-* and aria-* stay; href and xlink:href only when they are a
//     #fragment; a style attribute is cleaned like <style>; any other value that would
//     load something (a url(…) not to a #fragment) is dropped;
//   - every id gets prefix (and every #id reference in hrefs, url(#…), aria-labelledby,
//     aria-describedby and the <style> rules follows), so the ids of two diagrams on one
//     page, and their <style> rules (Mermaid scopes them by the root's #id), stay apart.
//
// The result is parsed and re-serialised by golang.org/x/net/html, so it is well-formed
// in an HTML page: text and attribute values are escaped, nothing can close the <svg>.
func cleanDiagramSVG(raw, prefix string) (string, bool) {
	if len(raw) > MaxDiagramBytes || !utf8.ValidString(raw) {
		return "", false
	}
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(cleanText(raw)), body)
	if err != nil {
		return "", false
	}
	var root *html.Node
	for _, n := range nodes {
		if n.Type == html.ElementNode && n.Namespace == "svg" && n.Data == "svg" {
			root = n
			break
		}
	}
	if root == nil {
		return "", false
	}
	root.Parent, root.PrevSibling, root.NextSibling = nil, nil, nil
	cleanSVGAttrs(root)
	cleanSVGChildren(root)
	prefixIDs(root, prefix)
	var out strings.Builder
	if err := html.Render(&out, root); err != nil {
		return "", false
	}
	return out.String(), true
}

// cleanSVGChildren removes from under n every node that is not text or an allowed SVG
// element, and cleans the attributes of those that stay.
func cleanSVGChildren(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.TextNode:
		case c.Type == html.ElementNode && c.Namespace == "svg" && svgElements[c.Data]:
			cleanSVGAttrs(c)
			if c.Data == "style" {
				cleanStyleElement(c)
			} else {
				cleanSVGChildren(c)
			}
		default:
			n.RemoveChild(c)
		}
		c = next
	}
}

// cleanStyleElement replaces the children of a <style> with its text, cleaned by
// cleanCSS, or removes the <style> when cleaning cannot make it safe.
func cleanStyleElement(n *html.Node) {
	var css strings.Builder
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.TextNode {
			css.WriteString(c.Data)
		}
		n.RemoveChild(c)
		c = next
	}
	clean, ok := cleanCSS(css.String())
	if !ok {
		n.Parent.RemoveChild(n)
		return
	}
	n.AppendChild(&html.Node{Type: html.TextNode, Data: clean})
}

// cleanSVGAttrs keeps n's allowed attributes (see cleanDiagramSVG).
func cleanSVGAttrs(n *html.Node) {
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		key := strings.ToLower(a.Key)
		switch {
		case a.Namespace == "xlink" && key == "href", a.Namespace == "" && key == "href":
			if !strings.HasPrefix(strings.TrimSpace(a.Val), "#") {
				continue
			}
		case a.Namespace == "xml" && key == "space":
		case a.Namespace == "xmlns" && key == "xlink":
		case a.Namespace != "":
			continue
		case key == "style":
			clean, ok := cleanCSS(a.Val)
			if !ok {
				continue
			}
			a.Val = clean
		case strings.HasPrefix(key, "on"):
			continue
		case svgAttributes[a.Key], strings.HasPrefix(key, "data-"), strings.HasPrefix(key, "aria-"):
		default:
			continue
		}
		if key != "style" && loadsSomething(a.Val) {
			continue
		}
		kept = append(kept, a)
	}
	n.Attr = kept
}

var (
	cssComment = regexp.MustCompile(`/\*[\s\S]*?\*/`)
	cssImport  = regexp.MustCompile(`(?i)@import\b[^;{}]*;?`)
	// cssURL is a url(…) with its target: group 1 the quoted or bare target.
	cssURL     = regexp.MustCompile(`(?i)url\(\s*("[^"]*"|'[^']*'|[^)]*)\)`)
	cssLoads   = regexp.MustCompile(`(?i)@import|url\(\s*["']?\s*[^#"'\s]|url\(\s*["']?\s*$|(?:image-set|image|src|cross-fade)\(`)
	cssEscape  = regexp.MustCompile(`\\([0-9a-fA-F]{1,6})\s?`)
	cssEscape1 = regexp.MustCompile(`\\([\s\S])`)
	// idRef is a #name as CSS selectors and url(#…) write it.
	idRef = regexp.MustCompile(`#([A-Za-z0-9_-]+)`)
)

// cleanCSS removes comments, @import rules and every url(…) whose target is not a
// #fragment (it becomes "none") from css; ok is false when what is left would still load
// something once CSS escapes are decoded (see loadsSomething).
func cleanCSS(css string) (clean string, ok bool) {
	out := cssComment.ReplaceAllString(css, "")
	out = cssImport.ReplaceAllString(out, "")
	out = cssURL.ReplaceAllStringFunc(out, func(u string) string {
		target := strings.Trim(strings.TrimSpace(cssURL.FindStringSubmatch(u)[1]), `"'`)
		if strings.HasPrefix(strings.TrimSpace(target), "#") {
			return u
		}
		return "none"
	})
	if loadsSomething(out) {
		return "", false
	}
	return out, true
}

// loadsSomething reports whether CSS (or a presentation attribute's value) refers to
// something to load once its escapes are decoded and comments dropped: an @import, a
// url(…) other than a #fragment, or a function that takes a string as an image address.
func loadsSomething(value string) bool {
	if !strings.ContainsAny(value, `\(@`) {
		return false
	}
	plain := cssEscape.ReplaceAllStringFunc(value, func(m string) string {
		cp, err := strconv.ParseUint(strings.TrimSpace(m[1:]), 16, 32)
		if err != nil || cp == 0 || cp > utf8.MaxRune {
			return "\uFFFD"
		}
		return string(rune(cp))
	})
	plain = cssEscape1.ReplaceAllString(plain, "$1")
	plain = cssComment.ReplaceAllString(plain, "")
	return cssLoads.MatchString(plain)
}

// prefixIDs puts prefix before every id under root and rewrites the references to them:
// href="#id", url(#id) in attributes, aria-labelledby and aria-describedby lists, and
// #id in <style> text. A #name that is no id of the diagram (a colour such as #333) is
// left alone.
func prefixIDs(root *html.Node, prefix string) {
	ids := map[string]bool{}
	walkElements(root, func(n *html.Node) {
		for _, a := range n.Attr {
			if a.Namespace == "" && a.Key == "id" && a.Val != "" {
				ids[a.Val] = true
			}
		}
	})
	if len(ids) == 0 {
		return
	}
	refs := func(s string) string {
		return idRef.ReplaceAllStringFunc(s, func(m string) string {
			if ids[m[1:]] {
				return "#" + prefix + m[1:]
			}
			return m
		})
	}
	walkElements(root, func(n *html.Node) {
		for i, a := range n.Attr {
			switch {
			case a.Namespace == "" && a.Key == "id" && a.Val != "":
				n.Attr[i].Val = prefix + a.Val
			case a.Key == "href":
				n.Attr[i].Val = refs(a.Val)
			case a.Namespace == "" && (a.Key == "aria-labelledby" || a.Key == "aria-describedby"):
				f := strings.Fields(a.Val)
				for j, id := range f {
					if ids[id] {
						f[j] = prefix + id
					}
				}
				n.Attr[i].Val = strings.Join(f, " ")
			case strings.Contains(a.Val, "url("):
				n.Attr[i].Val = refs(a.Val)
			}
		}
		if n.Data == "style" {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					c.Data = refs(c.Data)
				}
			}
		}
	})
}

// walkElements calls f on n and every element under it, in document order.
func walkElements(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkElements(c, f)
	}
}
