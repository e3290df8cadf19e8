package export

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PublishCSP is the Content-Security-Policy of a published page (SelfContainedHTML), the
// one the app's preview of an HTML artifact runs under (its own inline styles and data:
// images and fonts, nothing loaded from anywhere, no script) and no form sending anywhere,
// since a published file is opened outside the app's sandbox.
const PublishCSP = "default-src 'none'; img-src data: blob:; style-src 'unsafe-inline'; font-src data:; form-action 'none'"

// SelfContainedHTML returns an HTML artifact's page (content, as the model wrote it) as one
// self-contained file that opens anywhere without fetching anything: a UTF-8 charset and a
// Content-Security-Policy (PublishCSP) first in <head>, so the page can neither run script
// nor contact a server when opened; <script>, <base>, <noscript>, frames, objects and
// embeds, meta refreshes and every <link> (a stylesheet or font elsewhere is not fetched:
// the page keeps its inline <style>) are removed; an image that is not a data: URL is left
// as a link to it (<a href> with its alt text), so nothing is lost and nothing loads on
// open; event-handler attributes (on…) and javascript: links are dropped. title becomes
// the <title> when the page has none. The error is html's, wrapped; the parser accepts
// any input, so it means a write failed.
func SelfContainedHTML(title, content string) ([]byte, error) {
	doc, err := html.Parse(strings.NewReader(content))
	if err != nil {
		return nil, fmt.Errorf("export: parse html: %w", err)
	}
	head, hasTitle := cleanTree(doc)
	if head == nil { // html.Parse always builds <html><head><body>; be safe anyway
		return nil, fmt.Errorf("export: the page has no head")
	}
	csp := &html.Node{Type: html.ElementNode, Data: "meta", DataAtom: atom.Meta, Attr: []html.Attribute{
		{Key: "http-equiv", Val: "Content-Security-Policy"}, {Key: "content", Val: PublishCSP}}}
	charset := &html.Node{Type: html.ElementNode, Data: "meta", DataAtom: atom.Meta, Attr: []html.Attribute{{Key: "charset", Val: "utf-8"}}}
	head.InsertBefore(csp, head.FirstChild)
	head.InsertBefore(charset, head.FirstChild)
	if !hasTitle && strings.TrimSpace(title) != "" {
		t := &html.Node{Type: html.ElementNode, Data: "title", DataAtom: atom.Title}
		t.AppendChild(&html.Node{Type: html.TextNode, Data: title})
		head.AppendChild(t)
	}
	var out bytes.Buffer
	out.WriteString("<!DOCTYPE html>\n")
	for c := doc.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.DoctypeNode {
			continue
		}
		if err := html.Render(&out, c); err != nil {
			return nil, fmt.Errorf("export: render html: %w", err)
		}
	}
	return out.Bytes(), nil
}

// cleanTree removes from the tree under n what could run or load something (see
// SelfContainedHTML) and returns the <head> and whether a <title> with text is there.
func cleanTree(n *html.Node) (head *html.Node, hasTitle bool) {
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				switch c.DataAtom {
				case atom.Script, atom.Base, atom.Noscript, atom.Iframe, atom.Frame, atom.Frameset, atom.Object, atom.Embed,
					atom.Link:
					n.RemoveChild(c)
					c = next
					continue
				case atom.Meta:
					if strings.EqualFold(attrOf(c, "http-equiv"), "refresh") || strings.EqualFold(attrOf(c, "http-equiv"), "content-security-policy") ||
						attrOf(c, "charset") != "" {
						n.RemoveChild(c)
						c = next
						continue
					}
				case atom.Img:
					if src := strings.TrimSpace(attrOf(c, "src")); !strings.HasPrefix(strings.ToLower(src), "data:") {
						n.InsertBefore(imageLink(src, attrOf(c, "alt")), c)
						n.RemoveChild(c)
						c = next
						continue
					}
				case atom.Head:
					head = c
				case atom.Title:
					hasTitle = hasTitle || strings.TrimSpace(nodeText(c)) != ""
				}
				dropActive(c)
			}
			walk(c)
			c = next
		}
	}
	walk(n)
	return head, hasTitle
}

// imageLink is what an image that is not a data: URL becomes: a link to it showing its
// alt text (or its address), or just the alt text when src is not a web address.
func imageLink(src, alt string) *html.Node {
	label := strings.TrimSpace(alt)
	if label == "" {
		label = src
	}
	low := strings.ToLower(src)
	if !strings.HasPrefix(low, "http://") && !strings.HasPrefix(low, "https://") {
		return &html.Node{Type: html.TextNode, Data: label}
	}
	a := &html.Node{Type: html.ElementNode, Data: "a", DataAtom: atom.A, Attr: []html.Attribute{
		{Key: "href", Val: src}, {Key: "rel", Val: "noopener noreferrer"}}}
	a.AppendChild(&html.Node{Type: html.TextNode, Data: label})
	return a
}

// dropActive removes event-handler attributes and javascript:/vbscript: addresses from n.
func dropActive(n *html.Node) {
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		k := strings.ToLower(a.Key)
		v := strings.ToLower(strings.TrimSpace(a.Val))
		if strings.HasPrefix(k, "on") || k == "srcset" || k == "formaction" ||
			((k == "href" || k == "src" || k == "action" || k == "xlink:href") && (strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "vbscript:"))) {
			continue
		}
		kept = append(kept, a)
	}
	n.Attr = kept
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

func nodeText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}
