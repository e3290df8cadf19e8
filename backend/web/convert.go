package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"artifactflow/backend/sandbox"
)

// HTMLToMarkdown converts an HTML document held in memory (an uploaded .html file, say) to
// Markdown with the same extraction web_fetch uses: the main content found by
// Readability (see htmlToPage), or the whole <body> when that finds too little, with GFM
// tables. Like every conversion of a document of unknown origin it runs in a child process
// (see convertHTML) that ctx or its 30 s deadline kills.
//
// data is decoded to UTF-8 from, in order, a byte-order mark, the charset parameter of
// contentType (e.g. "text/html; charset=gbk"; "" for none), UTF-8 when the bytes are valid
// UTF-8 with some above 0x7F, a <meta charset> in the document's head (see decodeText),
// else UTF-8 when valid and Windows-1252 otherwise. baseURL, when not "", must
// be an absolute http(s) URL; relative links are resolved against it (or against a
// <base href> in the document). With baseURL "" they are resolved against "/", so
// "other.html" becomes "/other.html" (such links point nowhere outside their site anyway).
//
// It returns the document title (white space collapsed; "" when there is none) and the
// Markdown with surrounding white space trimmed. Errors: a baseURL that is not an absolute
// http(s) URL wraps ErrBadURL; a document over MaxHTMLBytes wraps ErrTooLarge; a converter
// that fails, takes too long or needs too much memory gives an error saying so (wrapping
// the sandbox sentinel); ctx's error when ctx ended first.
func HTMLToMarkdown(ctx context.Context, data []byte, contentType, baseURL string) (title, markdown string, err error) {
	base := &url.URL{}
	if baseURL != "" {
		base, err = url.Parse(baseURL)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
			return "", "", fmt.Errorf("html to markdown: base URL %q: %w: want an absolute http(s) URL", baseURL, ErrBadURL)
		}
	}
	return convertHTML(ctx, data, contentType, base)
}

// htmlJob is the job of the child process (backend/sandbox) that converts HTML; pdf.go
// has the PDF job.
const htmlJob = "web.html"

func init() {
	sandbox.Handle(htmlJob, htmlWorker)
}

// htmlLimits bound the child process that converts one HTML document: 30 s, 1 GB of
// memory (a 10 MB page takes about 550 MB), and the Markdown cap plus room for JSON.
var htmlLimits = sandbox.Limits{Timeout: 30 * time.Second, MaxMemory: 1 << 30, MaxOutput: 2*MaxMarkdownBytes + 1<<20}

// docResult is what a converting child process returns.
type docResult struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// htmlRequest heads the input of the HTML job, on a line of its own before the document.
type htmlRequest struct {
	ContentType string `json:"content_type"`
	BaseURL     string `json:"base_url"`
}

// convertHTML decodes and converts body (see HTMLToMarkdown; links resolve against base)
// in a child process under htmlLimits. A body over MaxHTMLBytes is refused before it is
// sent (ErrTooLarge).
func convertHTML(ctx context.Context, body []byte, contentType string, base *url.URL) (title, markdown string, err error) {
	if len(body) > MaxHTMLBytes {
		return "", "", fmt.Errorf("%w: the HTML is %d MB, over the %d MB limit", ErrTooLarge, len(body)>>20, MaxHTMLBytes>>20)
	}
	head, err := json.Marshal(htmlRequest{ContentType: contentType, BaseURL: base.String()})
	if err != nil {
		return "", "", fmt.Errorf("html to markdown: %w", err)
	}
	input := make([]byte, 0, len(head)+1+len(body))
	input = append(append(append(input, head...), '\n'), body...)
	res, err := runConverter(ctx, htmlJob, "the HTML converter", "the page could not be converted", input, htmlLimits)
	return res.Title, res.Text, err
}

// htmlWorker is the HTML sandbox job: an htmlRequest line and the document in, a JSON
// docResult out.
func htmlWorker(input []byte) ([]byte, error) {
	head, body, _ := bytes.Cut(input, []byte("\n"))
	var req htmlRequest
	if err := json.Unmarshal(head, &req); err != nil {
		return nil, fmt.Errorf("html to markdown: bad request: %w", err)
	}
	base, err := url.Parse(req.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("html to markdown: base URL: %w", err)
	}
	title, md, err := htmlToPage(decodeText(body, req.ContentType), base)
	if err != nil {
		return nil, err
	}
	return json.Marshal(docResult{Title: title, Text: md})
}

// runConverter runs a converting job in the sandbox and decodes its docResult. A job
// error comes back as the job's own message; a child that took too long, needed too much
// memory or crashed gives "<failed>: <what> <the sandbox's reason>", wrapping the sandbox
// sentinel; ctx's error when ctx ended first.
func runConverter(ctx context.Context, job, what, failed string, input []byte, lim sandbox.Limits) (docResult, error) {
	out, err := sandbox.Run(ctx, job, input, lim)
	if err != nil {
		var jobErr *sandbox.JobError
		switch {
		case ctx.Err() != nil:
			return docResult{}, fmt.Errorf("%s: %w", failed, ctx.Err())
		case errors.As(err, &jobErr):
			return docResult{}, err
		}
		return docResult{}, fmt.Errorf("%s: %s %w", failed, what, err)
	}
	var res docResult
	if err := json.Unmarshal(out, &res); err != nil {
		return docResult{}, fmt.Errorf("%s: %s gave an unreadable answer: %w", failed, what, err)
	}
	return res, nil
}
