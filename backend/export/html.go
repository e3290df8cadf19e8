package export

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// HTML returns d as a standalone HTML5 document: UTF-8, the title in <title>
// (and as an <h1> unless the content opens with one, see parse), inline CSS
// (light theme, readable measure, print rules), a Content-Security-Policy that
// allows no script, no frame and no form, and an optional footer with the
// version and export time.
//
// Markdown is rendered by goldmark with GFM. Raw HTML in the Markdown is
// omitted ("<!-- raw HTML omitted -->"), javascript:/vbscript:/data: link
// targets are dropped by goldmark, and every link gets
// rel="noopener noreferrer". Non-Markdown content is rendered as an escaped
// <pre><code class="language-…"> block under the title.
//
// A ```mermaid block whose source has a diagram in d.Diagrams becomes
// <figure class="diagram"> holding that SVG inline, cleaned by an allow-list (see
// cleanDiagramSVG: no script, event handler, foreignObject, image or address other
// than a #fragment; ids prefixed per diagram); any other stays its source in a
// code block.
//
// The error is non-nil only if rendering fails, which goldmark does not do
// for any input; it is wrapped with context.
func HTML(d Doc) ([]byte, error) {
	p := parse(d)
	placeDiagrams(p.root, p.src, d.Diagrams)
	var body bytes.Buffer
	body.Grow(len(p.src) * 3 / 2)
	if err := md.Renderer().Render(&body, p.src, p.root); err != nil {
		return nil, fmt.Errorf("export: render markdown to html: %w", err)
	}
	page := htmlPage{
		Title:     p.title,
		ShowTitle: p.showTitle,
		Body:      template.HTML(body.String()), // goldmark output, raw HTML omitted
		Version:   d.Version,
	}
	if page.Title == "" {
		page.Title = "Untitled"
	}
	if !d.Exported.IsZero() {
		page.Exported = d.Exported.UTC().Format("2006-01-02 15:04 UTC")
	}
	var out bytes.Buffer
	out.Grow(body.Len() + 4096)
	if err := htmlTemplate.Execute(&out, page); err != nil {
		return nil, fmt.Errorf("export: render html page: %w", err)
	}
	return out.Bytes(), nil
}

// htmlPage is the data of htmlTemplate.
type htmlPage struct {
	Title     string
	ShowTitle bool
	Body      template.HTML
	Version   int
	Exported  string
}

// linkRelTransformer adds rel="noopener noreferrer" to every link and
// autolink so an exported page opened in a browser gives linked pages neither
// window.opener nor a Referer. goldmark renders the attribute through
// LinkAttributeFilter, which allows rel.
type linkRelTransformer struct{}

// Transform implements parser.ASTTransformer.
func (linkRelTransformer) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && (n.Kind() == ast.KindLink || n.Kind() == ast.KindAutoLink) {
			n.SetAttributeString("rel", []byte("noopener noreferrer"))
		}
		return ast.WalkContinue, nil
	})
}

var htmlTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src * data:; form-action 'none'">
<meta name="color-scheme" content="light">
<meta name="generator" content="ArtifactFlow">
<title>{{.Title}}</title>
<style>
:root { color-scheme: light; }
html { background: #fff; }
body { margin: 0; color: #1f2328; background: #fff;
  font: 16px/1.65 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial,
    "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", sans-serif;
  -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
main { max-width: 46rem; margin: 0 auto; padding: 2.5rem 1.5rem 3rem; overflow-wrap: break-word; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.6em 0 .6em; font-weight: 600; }
h1 { font-size: 2em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0; }
h2 { font-size: 1.5em; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0; }
h3 { font-size: 1.25em; } h4 { font-size: 1em; } h5 { font-size: .875em; }
h6 { font-size: .85em; color: #59636e; }
main > :first-child { margin-top: 0; }
p, ul, ol, blockquote, pre, table { margin: 0 0 1em; }
ul, ol { padding-left: 2em; }
li + li, li > ul, li > ol { margin-top: .25em; }
li > ul, li > ol { margin-bottom: 0; }
li:has(> input[type=checkbox]) { list-style: none; }
li > input[type=checkbox] { margin: 0 .4em 0 -1.4em; vertical-align: middle; }
a { color: #0969da; text-decoration: underline; text-underline-offset: .15em; }
code, pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  font-size: .875em; }
code { background: #eff2f5; border-radius: 4px; padding: .15em .35em; }
pre { background: #f6f8fa; border: 1px solid #d1d9e0; border-radius: 6px; padding: .9em 1em;
  overflow-x: auto; line-height: 1.45; }
pre code { background: none; padding: 0; font-size: inherit; }
blockquote { padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
hr { height: 0; border: 0; border-top: 1px solid #d1d9e0; margin: 1.8em 0; }
table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #d1d9e0; padding: .4em .8em; }
th { background: #f6f8fa; font-weight: 600; }
tr:nth-child(2n) td { background: #fafbfc; }
img { max-width: 100%; height: auto; }
figure.diagram { margin: 0 0 1em; overflow-x: auto; text-align: center; }
figure.diagram svg { max-width: 100%; height: auto; }
footer { max-width: 46rem; margin: 0 auto; padding: 1rem 1.5rem 2rem; color: #59636e; font-size: .85em;
  border-top: 1px solid #d1d9e0; }
@media print {
  @page { margin: 2cm; }
  body { font-size: 11pt; }
  main, footer { max-width: none; padding: 0; }
  footer { margin-top: 2em; padding-top: .5em; }
  a { color: inherit; }
  a[href^="http"]::after { content: " (" attr(href) ")"; font-size: .85em; color: #59636e; word-break: break-all; }
  pre { white-space: pre-wrap; overflow: visible; }
  table { display: table; }
  pre, blockquote, tr, img, figure { break-inside: avoid; }
  h1, h2, h3, h4, h5, h6 { break-after: avoid; }
}
</style>
</head>
<body>
<main>
{{if .ShowTitle}}<h1>{{.Title}}</h1>
{{end}}{{.Body}}</main>
{{if or .Version .Exported}}<footer>{{if .Version}}Version {{.Version}}{{end}}{{if and .Version .Exported}} · {{end}}{{if .Exported}}Exported {{.Exported}}{{end}}</footer>
{{end}}</body>
</html>
`))
