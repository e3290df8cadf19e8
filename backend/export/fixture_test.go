package export

import "time"

// everyElement is a Markdown document with every element the exports map.
const everyElement = "# Heading One\n\n" +
	"## Heading Two\n\n### Heading Three\n\n#### Heading Four\n\n##### Heading Five\n\n###### Heading Six\n\n" +
	"Plain **bold text** and *italic text* and ~~struck text~~ and `inline code` with a \\* literal star & an &amp; entity.\n" +
	"Soft break here,\nhard break after this  \nnext line.\n\n" +
	"- bullet one\n  - nested bullet\n    - deeper bullet\n- bullet two\n\n" +
	"3. third\n4. fourth\n   1. nested numbered\n\n" +
	"- [ ] open task\n- [x] done task\n\n" +
	"| Left | Center | Right |\n|:-----|:------:|------:|\n| a1 | **b1** | c1 |\n| a2 | b2 | c2 |\n\n" +
	"```go\nfunc main() {\n\tprintln(\"<hi>\")\n}\n```\n\n" +
	"> Quoted wisdom\n> > nested quote\n\n" +
	"---\n\n" +
	"A [link to example](https://example.com/path?q=1&r=2 \"Example\") and <https://auto.example.org> and www.bare.example.net.\n\n" +
	"![Alt of image](https://img.example.com/pic.png)\n\n" +
	"中文段落：人工智能研究。日本語のテキスト。\n\n" +
	"<script>alert('xss')</script>\n\n" +
	"Inline <script>alert(2)</script> raw.\n"

var fixtureTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
