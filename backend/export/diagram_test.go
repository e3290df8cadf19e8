package export

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// mermaidSVG is a flowchart as Mermaid 11 draws it with SVG text labels (htmlLabels
// off): root id id, a <style> scoped by #id, an arrow marker referenced by url(#…) and
// two labelled nodes.
func mermaidSVG(id, a, b string) string {
	return `<svg id="` + id + `" width="100%" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" class="flowchart" style="max-width: 120px;" viewBox="0 0 120 200" role="graphics-document document" aria-roledescription="flowchart-v2" aria-labelledby="chart-title-` + id + `">` +
		`<title id="chart-title-` + id + `">Flow</title>` +
		`<style>#` + id + `{font-family:"trebuchet ms",verdana,arial,sans-serif;font-size:16px;fill:#333;}#` + id + ` .node rect{fill:#ECECFF;stroke:#9370DB;stroke-width:1px;}#` + id + ` .marker{fill:#333333;}</style>` +
		`<g><marker id="` + id + `_flowchart-v2-pointEnd" class="marker flowchart-v2" viewBox="0 0 10 10" refX="5" refY="5" markerUnits="userSpaceOnUse" markerWidth="8" markerHeight="8" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowMarkerPath"></path></marker>` +
		`<g class="root"><g class="edgePaths"><path d="M60,50L60,150" id="L_A_B_0" class="edge-thickness-normal" data-edge="true" marker-end="url(#` + id + `_flowchart-v2-pointEnd)"></path></g>` +
		`<g class="nodes"><g class="node default" id="` + id + `-flowchart-A-0" transform="translate(60, 30)"><rect class="basic label-container" x="-40" y="-20" width="80" height="40"></rect>` +
		`<g class="label" transform="translate(0, -10)"><text y="-10.1"><tspan class="text-outer-tspan" x="0" y="-0.1em" dy="1.1em"><tspan class="text-inner-tspan" font-style="normal" font-weight="normal">` + a + `</tspan></tspan></text></g></g>` +
		`<g class="node default" id="` + id + `-flowchart-B-1" transform="translate(60, 170)"><rect class="basic label-container" x="-40" y="-20" width="80" height="40"></rect>` +
		`<g class="label" transform="translate(0, -10)"><text y="-10.1"><tspan class="text-outer-tspan" x="0" y="-0.1em" dy="1.1em"><tspan class="text-inner-tspan">` + b + `</tspan></tspan></text></g></g></g></g></g></svg>`
}

const flow = "graph TD\n  A[Start] --> B[End]"

// hostileSVG has one of everything an SVG can run or load with, around a drawn node.
const hostileSVG = `<svg id="mermaid-9" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)" viewBox="0 0 100 100" style="background:url(https://evil.example/bg.png)">` +
	`<script>alert(2)</script>` +
	`<style>@import url(https://evil.example/a.css); @import "https://evil.example/b.css"; #mermaid-9 .n{background:url(http://evil.example/c.png)} #mermaid-9 .m{fill:url(#grad)} #mermaid-9 .p{background:url( 'https://evil.example/e.png' )}</style>` +
	`<defs><linearGradient id="grad"><stop offset="0" stop-color="#fff"></stop></linearGradient></defs>` +
	`<foreignObject width="100" height="20"><div xmlns="http://www.w3.org/1999/xhtml" onclick="alert(3)">html label</div></foreignObject>` +
	`<a xlink:href="javascript:alert(4)"><text>click me</text></a>` +
	`<image xlink:href="https://evil.example/track.png" width="10" height="10"></image>` +
	`<use href="https://evil.example/sprite.svg#icon"></use><use xlink:href="#grad"></use>` +
	`<rect id="keep" width="10" height="10" fill="url(https://evil.example/p.svg#x)" stroke="url(#grad)" onmouseover="alert(5)" style="fill:url('http://evil.example/f')"></rect>` +
	`<text x="5" y="50" onclick="alert(6)">Visible label</text>` +
	`<iframe src="https://evil.example/"></iframe><embed src="https://evil.example/x"></embed><object data="https://evil.example/o"></object>` +
	`<set attributeName="onclick" to="alert(7)"></set><animate attributeName="href" to="javascript:alert(8)"></animate>` +
	`</svg>`

// assertCleanDiagram fails unless fig holds nothing that runs or loads: no element outside
// the kept SVG set, no on* attribute, no href other than #…, no url(…) other than url(#…)
// or @import in any attribute or <style>.
func assertCleanDiagram(t *testing.T, fig *html.Node) {
	t.Helper()
	foreignURL := regexp.MustCompile(`(?i)url\(\s*["']?\s*[^#"'\s]`)
	walkElements(fig, func(n *html.Node) {
		if n == fig {
			return
		}
		if n.Namespace != "svg" || !svgElements[n.Data] {
			t.Errorf("element <%s> (namespace %q) kept", n.Data, n.Namespace)
		}
		for _, a := range n.Attr {
			low := strings.ToLower(a.Val)
			switch {
			case strings.HasPrefix(strings.ToLower(a.Key), "on"):
				t.Errorf("<%s %s=%q> kept", n.Data, a.Key, a.Val)
			case a.Key == "href" && !strings.HasPrefix(a.Val, "#"):
				t.Errorf("<%s %s:href=%q> kept", n.Data, a.Namespace, a.Val)
			case foreignURL.MatchString(a.Val), strings.Contains(low, "@import"), strings.Contains(low, "javascript:"), strings.Contains(low, "evil.example"):
				t.Errorf("<%s %s=%q> kept", n.Data, a.Key, a.Val)
			}
		}
		if n.Data == "style" {
			css := textOf(n)
			if foreignURL.MatchString(css) || strings.Contains(strings.ToLower(css), "@import") || strings.Contains(css, "evil.example") {
				t.Errorf("<style> kept a load: %q", css)
			}
		}
	})
}

func figures(d htmlDoc) []*html.Node {
	var out []*html.Node
	for _, f := range d.all("figure") {
		if c, _ := attr(f, "class"); c == "diagram" {
			out = append(out, f)
		}
	}
	return out
}

// mermaidSources returns the text of every <code class="language-mermaid">.
func mermaidSources(d htmlDoc) []string {
	var out []string
	for _, c := range d.all("code") {
		if cl, _ := attr(c, "class"); cl == "language-mermaid" {
			out = append(out, textOf(c))
		}
	}
	return out
}

// TestHTMLDiagrams: a ```mermaid block whose source has a drawn diagram is exported as
// <figure class="diagram"> holding the SVG (labels as SVG text, ids prefixed so two
// diagrams stay apart); a block without one, or with one that is too large or no SVG,
// stays its source in a code block; whatever a hostile caller sends comes out without
// anything that runs or loads.
func TestHTMLDiagrams(t *testing.T) {
	many := strings.Builder{}
	manyDiagrams := map[string]string{}
	for i := range MaxDiagrams + 1 {
		src := fmt.Sprintf("graph LR\n  N%d --> M%d", i, i)
		fmt.Fprintf(&many, "```mermaid\n%s\n```\n\n", src)
		manyDiagrams[src] = mermaidSVG("mermaid-1", fmt.Sprint("N", i), fmt.Sprint("M", i))
	}
	tests := []struct {
		name     string
		doc      Doc
		figures  int
		sources  []string // the mermaid code blocks left, in order
		check    func(t *testing.T, d htmlDoc, figs []*html.Node)
		contains []string // substrings of the whole page
	}{
		{name: "a drawn diagram is inlined with its labels as SVG text",
			doc:     Doc{Title: "T", Content: "# T\n\n```mermaid\n" + flow + "\n```\n", Diagrams: map[string]string{flow: mermaidSVG("mermaid-1", "Start", "End")}},
			figures: 1,
			check: func(t *testing.T, d htmlDoc, figs []*html.Node) {
				var labels []string
				for _, n := range d.all("tspan") {
					if c, _ := attr(n, "class"); c == "text-inner-tspan" && hasAncestor(n, "figure") {
						labels = append(labels, textOf(n))
					}
				}
				if strings.Join(labels, ",") != "Start,End" {
					t.Errorf("labels = %q, want Start,End", labels)
				}
				if len(d.all("marker")) != 1 || len(d.all("rect")) != 2 {
					t.Errorf("markers %d, rects %d; want the diagram's shapes", len(d.all("marker")), len(d.all("rect")))
				}
			},
			contains: []string{`<svg id="diagram1-mermaid-1"`, `marker-end="url(#diagram1-mermaid-1_flowchart-v2-pointEnd)"`, `#diagram1-mermaid-1 .node rect{fill:#ECECFF`, `aria-labelledby="diagram1-chart-title-mermaid-1"`, `fill:#333;`}},
		{name: "the key ignores CRLF, the fence's info after mermaid and surrounding blank lines",
			doc:     Doc{Content: "```Mermaid title=x\r\n\r\n" + strings.ReplaceAll(flow, "\n", "\r\n") + "\r\n\r\n```\r\n", Diagrams: map[string]string{"\n  " + flow + "  \n": mermaidSVG("m", "Start", "End")}},
			figures: 1},
		{name: "no diagram: the source stays a code block",
			doc:     Doc{Content: "```mermaid\n" + flow + "\n```\n\n```mermaid\ngraph LR\n  X --> Y\n```\n", Diagrams: map[string]string{"graph LR\n  X --> Y": mermaidSVG("mermaid-2", "X", "Y")}},
			figures: 1, sources: []string{flow}},
		{name: "nil diagrams: every block is source, other code untouched",
			doc:     Doc{Content: "```mermaid\n" + flow + "\n```\n\n```go\nx := 1\n```\n"},
			sources: []string{flow}},
		{name: "a diagram for a non-mermaid block is not used",
			doc:     Doc{Content: "```text\n" + flow + "\n```\n", Diagrams: map[string]string{flow: mermaidSVG("m", "Start", "End")}},
			figures: 0},
		{name: "hostile SVG comes out clean, its shapes and text kept",
			doc:     Doc{Content: "```mermaid\n" + flow + "\n```\n", Diagrams: map[string]string{flow: hostileSVG}},
			figures: 1,
			check: func(t *testing.T, d htmlDoc, figs []*html.Node) {
				if d.withText("text", "Visible label") == nil || len(d.all("rect")) != 1 || len(d.all("linearGradient")) != 1 {
					t.Errorf("the drawn shapes and text were lost")
				}
				if len(d.all("script")) != 0 || len(d.all("foreignObject")) != 0 || len(d.all("image")) != 0 || len(d.all("iframe")) != 0 {
					t.Errorf("active element kept")
				}
			},
			contains: []string{`fill:url(#diagram1-grad)`, `stroke="url(#diagram1-grad)"`, `<use xlink:href="#diagram1-grad">`}},
		{name: "markup breaking out of the SVG is dropped",
			doc:     Doc{Content: "```mermaid\n" + flow + "\n```\n", Diagrams: map[string]string{flow: `<svg><style><img src=x onerror=alert(1)></style><text>a</text></svg><script>alert(2)</script><img src=y onerror=alert(3)>`}},
			figures: 1,
			check: func(t *testing.T, d htmlDoc, figs []*html.Node) {
				if len(d.all("img")) != 0 || len(d.all("script")) != 0 {
					t.Errorf("markup outside the <svg> kept")
				}
			}},
		{name: "a style that cannot be cleaned is dropped whole",
			doc:     Doc{Content: "```mermaid\n" + flow + "\n```\n", Diagrams: map[string]string{flow: `<svg><style>.a{background:image-set("https://evil.example/x.png" 1x)}</style><text>a</text></svg>`}},
			figures: 1,
			check: func(t *testing.T, d htmlDoc, figs []*html.Node) {
				if len(d.all("style")) != 1 { // the page's own
					t.Errorf("the diagram's <style> was kept")
				}
			}},
		{name: "a url( hidden by a CSS escape drops its style whole",
			doc:     Doc{Content: "```mermaid\n" + flow + "\n```\n", Diagrams: map[string]string{flow: `<svg><style>.a{fill:red}.o{background:\75 rl(http://evil.example/d.png)}</style><text style="background:\75 rl(http://evil.example/e.png)">a</text></svg>`}},
			figures: 1,
			check: func(t *testing.T, d htmlDoc, figs []*html.Node) {
				if len(d.all("style")) != 1 { // the page's own
					t.Errorf("the diagram's <style> was kept")
				}
			}},
		{name: "a diagram over the size limit is exported as source",
			doc:     Doc{Content: "```mermaid\n" + flow + "\n```\n", Diagrams: map[string]string{flow: mermaidSVG("m", strings.Repeat("x", MaxDiagramBytes), "End")}},
			sources: []string{flow}},
		{name: "markup that is no SVG is exported as source",
			doc:     Doc{Content: "```mermaid\n" + flow + "\n```\n", Diagrams: map[string]string{flow: `<div onclick="x()">not a diagram</div>`}},
			sources: []string{flow}},
		{name: "two diagrams drawn with the same ids keep distinct ids and rules",
			doc: Doc{Content: "```mermaid\n" + flow + "\n```\n\ntext\n\n```mermaid\ngraph LR\n  X --> Y\n```\n\n```mermaid\n" + flow + "\n```\n",
				Diagrams: map[string]string{flow: mermaidSVG("mermaid-1", "Start", "End"), "graph LR\n  X --> Y": mermaidSVG("mermaid-1", "X", "Y")}},
			figures: 3,
			check: func(t *testing.T, d htmlDoc, figs []*html.Node) {
				seen := map[string]bool{}
				walkElements(d.root, func(n *html.Node) {
					if id, ok := attr(n, "id"); ok {
						if seen[id] {
							t.Errorf("id %q twice", id)
						}
						seen[id] = true
					}
				})
				for i, f := range figs {
					var svg, style *html.Node
					walkElements(f, func(n *html.Node) {
						if n.Data == "svg" && svg == nil {
							svg = n
						}
						if n.Data == "style" {
							style = n
						}
					})
					id, _ := attr(svg, "id")
					if want := fmt.Sprintf("diagram%d-mermaid-1", i+1); id != want || !strings.Contains(textOf(style), "#"+want+" .node rect") {
						t.Errorf("diagram %d: id %q, style %q; want its own id %q in its rules", i+1, id, textOf(style), want)
					}
				}
			}},
		{name: "at most MaxDiagrams are drawn, the rest stay source",
			doc:     Doc{Content: many.String(), Diagrams: manyDiagrams},
			figures: MaxDiagrams, sources: []string{fmt.Sprintf("graph LR\n  N%d --> M%d", MaxDiagrams, MaxDiagrams)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := HTML(tt.doc)
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			d := parseHTML(t, out)
			figs := figures(d)
			if len(figs) != tt.figures {
				t.Fatalf("%d diagram figures, want %d:\n%s", len(figs), tt.figures, out)
			}
			if got := mermaidSources(d); strings.Join(got, "\x00") != strings.Join(tt.sources, "\x00") {
				t.Errorf("mermaid source blocks = %q, want %q", got, tt.sources)
			}
			for _, f := range figs {
				assertCleanDiagram(t, f)
			}
			for _, s := range tt.contains {
				if !strings.Contains(string(out), s) {
					t.Errorf("page lacks %q", s)
				}
			}
			if tt.check != nil {
				tt.check(t, d, figs)
			}
		})
	}
}
