package extract

import (
	"artifactflow/backend/testdocs"
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// Sample sentences long enough for statistical charset detection.
const (
	zhHans = "研究报告:人工智能在医疗领域的应用。本文讨论了机器学习模型的准确性和可解释性。"
	zhHant = "研究報告:人工智慧在醫療領域的應用。本文討論了機器學習模型的準確性與可解釋性。"
	ja     = "研究報告:人工知能の医療分野への応用。本稿では機械学習モデルの精度と説明可能性について議論する。"
	ko     = "연구 보고서: 의료 분야에서의 인공지능 응용. 이 논문은 기계 학습 모델의 정확성과 설명 가능성을 논의한다."
	fr     = "Café crème brûlée — “quoted” naïve façade, déjà vu; the résumé was reviewed."
)

func TestTextDecodesCharsets(t *testing.T) {
	tests := []struct {
		file     string
		data     []byte
		wantText string
		wantType string
		wantEnc  string
	}{
		{"notes.md", []byte("# Title\r\n\r\nline one\r\nline two\rold mac\n"), "# Title\n\nline one\nline two\nold mac\n", "markdown", "UTF-8"},
		{"plain.TXT", []byte("ascii only"), "ascii only", "text", "UTF-8"},
		{"bom.txt", append([]byte{0xEF, 0xBB, 0xBF}, "带 BOM 的文本"...), "带 BOM 的文本", "text", "UTF-8"},
		{"gbk.txt", encode(t, simplifiedchinese.GBK, zhHans), zhHans, "text", "GB18030"},
		{"big5.txt", encode(t, traditionalchinese.Big5, zhHant), zhHant, "text", "Big5"},
		{"sjis.txt", encode(t, japanese.ShiftJIS, ja), ja, "text", "Shift_JIS"},
		{"euckr.txt", encode(t, korean.EUCKR, ko), ko, "text", "EUC-KR"},
		{"cp1252.txt", encode(t, charmap.Windows1252, fr), fr, "text", "windows-1252"},
		{"utf16le.csv", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "名前,値\r\n数据,1\r\n"), "名前,値\n数据,1\n", "csv", "UTF-16LE"},
		{"utf16be.tsv", encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), "a\tb\n"), "a\tb\n", "tsv", "UTF-16BE"},
		{"utf32le.json", encode(t, utf32.UTF32(utf32.LittleEndian, utf32.UseBOM), `{"k":"值"}`), `{"k":"值"}`, "json", "UTF-32LE"},
		{"gbk.py", encode(t, simplifiedchinese.GBK, "# "+zhHans+"\nprint('你好')\n"), "# " + zhHans + "\nprint('你好')\n", "python", "GB18030"},
		{"config.yml", []byte("a: 1\n"), "a: 1\n", "yaml", "UTF-8"},
		{"feed.xml", []byte("<a/>"), "<a/>", "xml", "UTF-8"},
		{"server.log", []byte("\x1b[31mERROR\x1b[0m failed\n"), "\x1b[31mERROR\x1b[0m failed\n", "text", "UTF-8"},
		{"main.go", []byte("package main\n"), "package main\n", "go", "UTF-8"},
		{"dir/App.TSX", []byte("export {}"), "export {}", "tsx", "UTF-8"},
		{"lib.ts", []byte("let x = 1"), "let x = 1", "typescript", "UTF-8"},
		{"analysis.R", []byte("x <- 1"), "x <- 1", "r", "UTF-8"},
		{"empty.csv", nil, "", "csv", "UTF-8"},
		{"empty.pdf", []byte{}, "", "markdown", "UTF-8"},
		{"empty.bin", []byte{}, "", "text", "UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := Text(context.Background(), tc.file, tc.data)
			want := Result{Text: tc.wantText, ContentType: tc.wantType, Encoding: tc.wantEnc, Readable: true}
			if err != nil || got != want {
				t.Errorf("Text = %+v, %v\nwant %+v", got, err, want)
			}
		})
	}
}

func TestTextConverts(t *testing.T) {
	gbkHTML := encode(t, simplifiedchinese.GBK, `<html><head><meta charset="gbk"><title>报告</title></head><body><h1>结论</h1><p>`+zhHans+`</p></body></html>`)
	undeclaredGBKHTML := encode(t, simplifiedchinese.GBK, `<html><body><h2>摘要</h2><p>`+zhHans+zhHans+`</p></body></html>`)
	docx := buildDOCX(t,
		para(`<w:pStyle w:val="Title"/>`, "Annual Report")+
			para(`<w:pStyle w:val="Heading2"/><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs>`, "Scope  and   aims")+
			para(`<w:pStyle w:val="heading 6"/>`, "Deep")+
			`<w:p><w:r><w:t>First </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>bold</w:t></w:r><w:r><w:tab/><w:t>tabbed</w:t><w:br/><w:t>next line</w:t></w:r></w:p>`+
			para(`<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>`, "item one")+
			para(`<w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr>`, "nested item")+
			para(`<w:numPr><w:ilvl w:val="0"/><w:numId w:val="0"/></w:numPr>`, "numbering removed")+
			`<w:p><w:r><w:t xml:space="preserve">See </w:t></w:r><w:hyperlink r:id="rId9"><w:r><w:t>the source</w:t></w:r></w:hyperlink><w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del>`+
			`<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`+
			`<w:tbl><w:tblPr/><w:tr><w:tc><w:p><w:r><w:t>Name</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Value</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Note</w:t></w:r></w:p></w:tc></w:tr>`+
			`<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>a|b</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>two</w:t></w:r></w:p><w:p><w:r><w:t>paras</w:t></w:r></w:p></w:tc></w:tr>`+
			`<w:tr><w:tc><w:tbl><w:tr><w:tc><w:p><w:r><w:t>inner1</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>inner2</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc></w:tr></w:tbl>`+
			`<w:p><w:r><w:t>Anchor</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>box text</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>box text</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`+
			`<w:p/>`+para("", "Ünïcödé &amp; &lt;escaped&gt; 中文"))
	wantDOCX := "# Annual Report\n\n" +
		"## Scope and aims\n\n" +
		"###### Deep\n\n" +
		"First bold\ttabbed\nnext line\n\n" +
		"- item one\n" +
		"  - nested item\n\n" +
		"numbering removed\n\n" +
		"See the source\n\n" +
		"| Name | Value | Note |\n" +
		"| --- | --- | --- |\n" +
		`| a\|b |  | two paras |` + "\n" +
		"| inner1 inner2 |  |  |\n\n" +
		"Anchor box text\n\n" +
		"Ünïcödé & <escaped> 中文"

	tests := []struct {
		file     string
		data     []byte
		want     string // exact text; "" to check only wantSub
		wantSub  []string
		notSub   []string
		wantEnc  string
		wantType string
	}{
		{file: "page.html", data: []byte("<html><head><title>T</title></head><body><h2>Findings</h2><p>Growth was <b>strong</b>.</p><table><tr><th>q</th><th>n</th></tr><tr><td>Q1</td><td>5</td></tr></table><script>evil()</script></body></html>"),
			wantSub: []string{"## Findings", "**strong**", "| q | n |", "| Q1 | 5 |"}, notSub: []string{"evil", "<script"}, wantEnc: "UTF-8", wantType: "markdown"},
		{file: "gbk.htm", data: gbkHTML, wantSub: []string{"# 结论", zhHans}, wantEnc: "gbk", wantType: "markdown"},
		{file: "undeclared.html", data: undeclaredGBKHTML, wantSub: []string{"## 摘要", zhHans}, wantEnc: "GB18030", wantType: "markdown"},
		{file: "paper.pdf", data: testdocs.BuildPDF("Paper", "Abstract text here", "Second page"), want: "[Page 1]\nAbstract text here\n\n[Page 2]\nSecond page", wantType: "markdown"},
		{file: "report.docx", data: docx, want: wantDOCX, wantType: "markdown"},
		{file: "crlf.docx", data: buildDOCX(t, para("", "a\r\nb")), want: "a\nb", wantType: "markdown"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := Text(context.Background(), tc.file, tc.data)
			if err != nil || !got.Readable || got.ContentType != tc.wantType || got.Encoding != tc.wantEnc || got.Reason != "" {
				t.Fatalf("Text = %+v, %v; want readable %s in %q", got, err, tc.wantType, tc.wantEnc)
			}
			if tc.want != "" && got.Text != tc.want {
				t.Errorf("text:\n%s\nwant:\n%s", got.Text, tc.want)
			}
			for _, s := range tc.wantSub {
				if !strings.Contains(got.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, got.Text)
				}
			}
			for _, s := range tc.notSub {
				if strings.Contains(got.Text, s) {
					t.Errorf("text has %q:\n%s", s, got.Text)
				}
			}
		})
	}
}

func TestTextUnreadable(t *testing.T) {
	garbage := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00")
	var controls bytes.Buffer
	for i := 0; i < 100; i++ {
		controls.WriteString("ab\x01\x02\x7f")
	}
	var bomb bytes.Buffer
	bomb.WriteString(documentXML(""))
	bomb.Write(bytes.Repeat([]byte(" "), MaxDOCXXMLBytes))
	tests := []struct {
		file, reason string
		data         []byte
	}{
		{"photo.png", ".png files are not supported", garbage},
		{"README", "without an extension", []byte("hello")},
		{".bashrc", "without an extension", []byte("alias x=y")},
		{"nul.txt", "NUL", []byte("text\x00with nul")},
		{"controls.csv", "control or undecodable", controls.Bytes()},
		{"bad-bom.txt", "control or undecodable", append([]byte{0xFF, 0xFE}, "\x01\x00\x02\x00\x03\x00"...)},
		{"random.go", "binary", garbage},
		{"garbage.html", "binary", garbage},
		{"garbage.pdf", "PDF", garbage},
		{"truncated.pdf", "PDF", testdocs.BuildPDF("T", "text")[:200]},
		{"garbage.docx", "not a valid DOCX", garbage},
		{"truncated.docx", "not a valid DOCX", buildDOCX(t, para("", "x"))[:100]},
		{"no-document.docx", "word/document.xml is missing", buildZip(t, [2]string{"word/other.xml", "<a/>"})},
		{"malformed.docx", "word/document.xml", buildZip(t, [2]string{"word/document.xml", "<w:document><w:body><w:p>"})},
		{"mismatched.docx", "word/document.xml", buildZip(t, [2]string{"word/document.xml", documentXML("<w:p></w:tbl>")})},
		{"entity.docx", "word/document.xml", buildZip(t, [2]string{"word/document.xml", `<!DOCTYPE d [<!ENTITY a "aaaa">]><d>&a;&a;</d>`})},
		{"bomb.docx", "over the 50 MB limit", buildZip(t, [2]string{"word/document.xml", bomb.String()})},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := Text(context.Background(), tc.file, tc.data)
			if err != nil || got.Readable || got.ContentType != ContentTypeBinary || got.Text != "" || got.Encoding != "" {
				t.Fatalf("Text = %+v, %v; want unreadable binary", got, err)
			}
			if !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("reason %q does not mention %q", got.Reason, tc.reason)
			}
		})
	}
}

func TestExtension(t *testing.T) {
	for name, want := range map[string]string{
		"a.PDF": ".pdf", "archive.tar.gz": ".gz", ".env": "", "dir.d/file": "", `C:\dir.x\f.Md`: ".md", "noext": "", "trailing.": ".",
	} {
		if got := extension(name); got != want {
			t.Errorf("extension(%q) = %q, want %q", name, got, want)
		}
	}
}

func FuzzText(f *testing.F) {
	names := []string{"a.txt", "a.html", "a.pdf", "a.docx", "a.csv", "a.go", "a.bin"}
	f.Add(uint8(0), []byte("plain text\r\n"))
	f.Add(uint8(0), []byte(zhHans))
	f.Add(uint8(1), []byte("<html><body><p>x</p><table><tr><td>1</td></tr></table></body></html>"))
	f.Add(uint8(2), testdocs.BuildPDF("T", "hello"))
	f.Add(uint8(3), buildDOCX(f, para(`<w:numPr><w:ilvl w:val="2"/><w:numId w:val="3"/></w:numPr>`, "x")+`<w:tbl><w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl>`))
	f.Add(uint8(4), []byte{0xFF, 0xFE, 0x41, 0x00})
	f.Add(uint8(5), []byte{0x81, 0x40, 0xE3, 0x81})
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		st := time.Now()
		res, err := Text(context.Background(), names[int(kind)%len(names)], data)
		if time.Since(st) > 3*time.Second {
			t.Fatalf("slow: %v", time.Since(st))
		}
		if err != nil {
			t.Fatalf("error %v for a file's content", err)
		}
		if !utf8.ValidString(res.Text) || strings.ContainsAny(res.Text, "\r\x00") {
			t.Fatalf("text not normalized UTF-8: %q", res.Text)
		}
		if res.Readable == (res.Reason != "") || res.ContentType == "" || !res.Readable && res.ContentType != ContentTypeBinary {
			t.Fatalf("inconsistent result %+v", res)
		}
	})
}
