// Package extract turns an uploaded file into text an agent can read (an
// uploaded file becomes an artifact whose content is its text). It knows plain text,
// Markdown, data formats and source code (with charset detection), HTML (to Markdown), PDF
// (text layer) and DOCX (to Markdown); anything else is reported as unreadable.
package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"

	"artifactflow/backend/sandbox"
	"artifactflow/backend/web"
)

// ContentTypeBinary is Result.ContentType for a file whose text could not be read.
const ContentTypeBinary = "binary"

// Result is the text of one file.
type Result struct {
	// Text is the file's text as valid UTF-8 with LF line ends (CRLF and lone CR become LF)
	// and no byte-order mark; "" when Readable is false.
	Text string
	// ContentType is the artifact content_type to store: "markdown" for .md, .markdown and
	// for what HTML, DOCX and PDF were converted to; "text" for .txt, .text and .log; the
	// format for data files ("csv", "tsv", "json", "yaml", "xml", "toml", "ini"); the
	// language for source code ("python", "go", "typescript" ...); ContentTypeBinary when
	// Readable is false.
	ContentType string
	// Encoding is the charset the text was decoded from, as an IANA name such as "UTF-8",
	// "UTF-16LE", "GB18030" (which covers GBK), "Big5", "Shift_JIS", "EUC-KR" or
	// "windows-1252"; pure ASCII is reported as "UTF-8". It is "" for PDF and DOCX (whose
	// text is not stored in a charset of the file's choosing) and when Readable is false.
	Encoding string
	// Readable reports whether text was extracted. It is false for an unsupported file
	// type, binary content (NUL bytes, or more than 1% control or undecodable characters in
	// every charset tried), and a file its parser rejects (broken or scanned PDF, broken
	// DOCX, oversized DOCX).
	Readable bool
	// Reason says why Readable is false, in words fit for the user, e.g. "PDF has 3
	// page(s) but no text layer (scanned images?)"; "" when Readable is true.
	Reason string
	// ReasonCode names Reason's kind for a UI that words it in its own language:
	// ReasonUnsupportedType (the extension, with its dot, is Ext), ReasonNoExtension, or ""
	// for any other reason (the UI shows Reason).
	ReasonCode string
	// Ext is the file's lower-case extension with its dot (".png"), "" when it has none.
	Ext string
}

// Values of Result.ReasonCode.
const (
	ReasonUnsupportedType = "unsupported_type"
	ReasonNoExtension     = "no_extension"
)

// format is how a file type is turned into text.
type format int

const (
	formatText format = iota // decoded text, kept as is
	formatHTML               // decoded, then converted to Markdown
	formatPDF                // text layer
	formatDOCX               // word/document.xml to Markdown
)

type fileType struct {
	format      format
	contentType string
}

// types maps lower-case file extensions to how they are read.
var types = map[string]fileType{
	".md": {formatText, "markdown"}, ".markdown": {formatText, "markdown"},
	".txt": {formatText, "text"}, ".text": {formatText, "text"}, ".log": {formatText, "text"},
	".csv": {formatText, "csv"}, ".tsv": {formatText, "tsv"}, ".json": {formatText, "json"},
	".yaml": {formatText, "yaml"}, ".yml": {formatText, "yaml"}, ".xml": {formatText, "xml"},
	".toml": {formatText, "toml"}, ".ini": {formatText, "ini"}, ".cfg": {formatText, "ini"},
	".html": {formatHTML, "markdown"}, ".htm": {formatHTML, "markdown"}, ".xhtml": {formatHTML, "markdown"},
	".pdf":  {formatPDF, "markdown"},
	".docx": {formatDOCX, "markdown"},
}

// languages maps lower-case source-code extensions to the language stored as content type.
var languages = map[string]string{
	".py": "python", ".pyi": "python", ".go": "go",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
	".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".groovy": "groovy",
	".c": "c", ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
	".cs": "csharp", ".rs": "rust", ".rb": "ruby", ".php": "php", ".pl": "perl", ".lua": "lua",
	".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ps1": "powershell",
	".sql": "sql", ".css": "css", ".scss": "scss", ".less": "less",
	".swift": "swift", ".m": "objective-c", ".mm": "objective-c", ".r": "r", ".jl": "julia",
	".dart": "dart", ".hs": "haskell", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang",
	".clj": "clojure", ".vue": "vue", ".svelte": "svelte", ".tex": "latex", ".proto": "protobuf",
}

// docxJob is the sandbox job that turns a DOCX into Markdown in a child process.
const docxJob = "extract.docx"

// docxLimits bound that child: 30 s, 768 MB (the XML part may be 50 MB uncompressed), and
// twice the XML limit of output.
var docxLimits = sandbox.Limits{Timeout: 30 * time.Second, MaxMemory: 768 << 20, MaxOutput: 2 * MaxDOCXXMLBytes}

func init() {
	sandbox.Handle(docxJob, func(data []byte) ([]byte, error) {
		md, err := docxToMarkdown(data)
		return []byte(md), err
	})
}

// Text extracts the text of a file named name (only its extension matters, compared
// without case) whose bytes are data.
//
// A file that is not readable text, for any reason owed to the file (unsupported type,
// binary content, a parser rejecting it, a parser panicking on it), gives
// Result{Readable: false, ContentType: ContentTypeBinary, Reason: why} and a nil error. An
// empty file of any type is readable with empty text. The error is non-nil only when this
// package itself fails (a panic outside the third-party parsers); the Result is then
// unreadable as well, so a caller may store the file as binary and log the error, or when
// ctx ended while a parser ran (the error then wraps ctx's error). Text never panics.
//
// Text files, source code and HTML are decoded by: a byte-order mark (UTF-8, UTF-16 and
// UTF-32, either byte order); else NUL bytes mean binary; else valid UTF-8; else, for HTML,
// the <meta charset> declaration; else the candidates of a statistical detector
// (github.com/gogs/chardet, a port of ICU's) in order of confidence, the first whose
// decoding through golang.org/x/text is clean text winning. HTML is then converted to
// Markdown by web.HTMLToMarkdown, PDF read by web.PDFToText and DOCX by docxToMarkdown,
// each in a child process (backend/sandbox) that ctx or its deadline kills and whose
// memory is capped, so a hostile file cannot crash or hang the app.
func Text(ctx context.Context, name string, data []byte) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res = unreadable("internal error while reading the file")
			err = fmt.Errorf("extract %q: internal error: %v", name, r)
		}
	}()
	ext := extension(name)
	ft, ok := types[ext]
	if lang, isCode := languages[ext]; isCode {
		ft, ok = fileType{formatText, lang}, true
	}
	if len(data) == 0 {
		if !ok {
			ft.contentType = "text"
		}
		return Result{ContentType: ft.contentType, Encoding: "UTF-8", Readable: true}, nil
	}
	if !ok {
		if ext == "" {
			r := unreadable("files without an extension are not read as text")
			r.ReasonCode = ReasonNoExtension
			return r, nil
		}
		r := unreadable(fmt.Sprintf("%s files are not supported", ext))
		r.ReasonCode, r.Ext = ReasonUnsupportedType, ext
		return r, nil
	}
	var text, enc string
	switch ft.format {
	case formatText, formatHTML:
		var why string
		if text, enc, why = decode(data, ft.format == formatHTML); why != "" {
			return unreadable(why), nil
		}
		if ft.format == formatHTML {
			if _, text, err = web.HTMLToMarkdown(ctx, []byte(text), "text/html; charset=utf-8", ""); err != nil {
				if ctx.Err() != nil {
					return unreadable("reading stopped"), fmt.Errorf("extract %q: %w", name, err)
				}
				return unreadable("the HTML could not be converted: " + err.Error()), nil
			}
		}
	case formatPDF:
		if _, text, err = web.PDFToText(ctx, data); err != nil {
			if ctx.Err() != nil {
				return unreadable("reading stopped"), fmt.Errorf("extract %q: %w", name, err)
			}
			return unreadable(err.Error()), nil
		}
	case formatDOCX:
		out, err := sandbox.Run(ctx, docxJob, data, docxLimits)
		if err != nil {
			if ctx.Err() != nil {
				return unreadable("reading stopped"), fmt.Errorf("extract %q: %w", name, err)
			}
			var jobErr *sandbox.JobError
			if !errors.As(err, &jobErr) {
				err = fmt.Errorf("the reader %w", err)
			}
			return unreadable("the Word document could not be read: " + err.Error()), nil
		}
		text = string(out)
	}
	return Result{Text: normalize(text), ContentType: ft.contentType, Encoding: enc, Readable: true}, nil
}

func unreadable(reason string) Result {
	return Result{ContentType: ContentTypeBinary, Reason: reason}
}

// extension returns the lower-case extension of the last element of name ('/' and '\'
// both separate), "" when there is none; a leading dot (".bashrc") is not an extension.
func extension(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return strings.ToLower(name[i:])
	}
	return ""
}

// safely runs fn, a call into a third-party parser, turning a panic into an error.
func safely(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			slog.Warn("extract: parser panicked", "parser", what, "panic", r)
			err = fmt.Errorf("the %s failed on this file", what)
		}
	}()
	return fn()
}

// normalize strips a leading byte-order mark and turns CRLF and lone CR into LF.
func normalize(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

// boms are the byte-order marks recognized, UTF-32 before UTF-16 (FF FE 00 00 starts both).
var boms = []struct {
	mark []byte
	name string
	enc  encoding.Encoding
}{
	{[]byte{0xEF, 0xBB, 0xBF}, "UTF-8", unicode.UTF8BOM},
	{[]byte{0x00, 0x00, 0xFE, 0xFF}, "UTF-32BE", utf32.UTF32(utf32.BigEndian, utf32.UseBOM)},
	{[]byte{0xFF, 0xFE, 0x00, 0x00}, "UTF-32LE", utf32.UTF32(utf32.LittleEndian, utf32.UseBOM)},
	{[]byte{0xFE, 0xFF}, "UTF-16BE", unicode.UTF16(unicode.BigEndian, unicode.UseBOM)},
	{[]byte{0xFF, 0xFE}, "UTF-16LE", unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)},
}

// detectSample is how many leading bytes the charset detector looks at.
const detectSample = 64 << 10

// decode returns data as UTF-8 and the name of the charset it was decoded from, or a
// reason why it is not text. isHTML adds the <meta charset> declaration as a candidate.
func decode(data []byte, isHTML bool) (text, charsetName, reason string) {
	for _, b := range boms {
		if bytes.HasPrefix(data, b.mark) {
			text, err := b.enc.NewDecoder().String(string(data))
			if err != nil {
				return "", "", fmt.Errorf("it starts with a %s byte-order mark but is not %s: %w", b.name, b.name, err).Error()
			}
			if why := textProblem(text); why != "" {
				return "", "", why
			}
			return text, b.name, ""
		}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", "", "it is binary (it contains NUL bytes)"
	}
	if utf8.Valid(data) {
		text := string(data)
		if why := textProblem(text); why != "" {
			return "", "", why
		}
		return text, "UTF-8", ""
	}

	var candidates []string
	if isHTML {
		if _, name, _ := charset.DetermineEncoding(data, "text/html"); name != "windows-1252" { // windows-1252 is its fallback guess
			candidates = append(candidates, name)
		}
	}
	detector := chardet.NewTextDetector()
	if isHTML {
		detector = chardet.NewHtmlDetector()
	}
	sample := data[:min(len(data), detectSample)]
	var found []chardet.Result
	if err := safely("charset detector", func() (err error) { found, err = detector.DetectAll(sample); return err }); err == nil {
		for _, r := range found {
			candidates = append(candidates, r.Charset)
		}
	}
	reason = "its character encoding could not be recognized"
	for _, name := range candidates {
		enc := encodingFor(name)
		if enc == nil {
			continue
		}
		text, err := enc.NewDecoder().String(string(data))
		if err != nil {
			continue
		}
		if why := textProblem(text); why != "" {
			reason = fmt.Sprintf("read as %s, %s", name, why)
			continue
		}
		return text, name, ""
	}
	return "", "", reason
}

// encodingFor returns the golang.org/x/text decoder for a charset name reported by the
// detector or declared in HTML (WHATWG labels, so "ISO-8859-1" decodes as its superset
// windows-1252), or nil when there is none. Decoders replace invalid bytes with U+FFFD.
func encodingFor(name string) encoding.Encoding {
	switch strings.ToUpper(name) {
	case "UTF-32BE":
		return utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)
	case "UTF-32LE":
		return utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)
	}
	enc, err := htmlindex.Get(name)
	if err != nil || enc == encoding.Replacement {
		return nil
	}
	return enc
}

// textProblem returns why s does not look like text, or "": it contains NUL, or more than
// 1% of its characters are control characters other than tab, line feed, vertical tab,
// form feed, carriage return and escape (ANSI colours in logs), or U+FFFD (undecodable).
func textProblem(s string) string {
	var total, bad int
	for _, r := range s {
		total++
		switch {
		case r == 0:
			return "it is binary (it contains NUL characters)"
		case r == '\t', r == '\n', r == '\v', r == '\f', r == '\r', r == 0x1B:
		case r < 0x20, r >= 0x7F && r <= 0x9F, r == utf8.RuneError:
			bad++
		}
	}
	if bad*100 > total {
		return fmt.Sprintf("it is binary (%d of %d characters are control or undecodable characters)", bad, total)
	}
	return ""
}
