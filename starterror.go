package main

import (
	"html/template"
	"strings"

	"artifactflow/app"
	"artifactflow/backend/config"
)

// startErrorText is the wording of the page shown when the window cannot start, per
// config.UILanguage value ("" is English).
var startErrorText = map[string]struct{ Title, Hint string }{
	"": {"ArtifactFlow could not start",
		"Nothing was changed. Do what the message says, close this window and start ArtifactFlow again."},
	config.LanguageChinese: {"ArtifactFlow 无法启动",
		"没有任何文件被改动。请按上面的提示处理，然后关闭此窗口并重新启动 ArtifactFlow。"},
}

// startErrorTmpl is the page: the error's text (which names the file and the way out),
// selectable so it can be copied, and its code for a bug report.
var startErrorTmpl = template.Must(template.New("start-error").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;padding:32px 40px;background:#f8f9fb;color:#1f2328}
h1{font-size:20px;margin:0 0 16px;color:#b42318}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:12px 14px;font:13px/1.5 ui-monospace,monospace;user-select:text}
p{margin:16px 0 0}
code{color:#57606a}
</style></head>
<body><h1>{{.Title}}</h1><pre id="start-error" data-code="{{.Code}}">{{.Message}}</pre><p>{{.Hint}}</p><p><code>{{.Code}}</code></p></body></html>
`))

// startErrorPage returns the HTML page that tells the user why the window could not start:
// err's text (a damaged database or config.json names the file and what to do) and its
// code (app.ErrorCode, e.g. database_corrupt), in lang (a config.UILanguage value; anything
// but zh-CN gives English). The text is HTML-escaped.
func startErrorPage(err error, lang string) string {
	if lang != config.LanguageChinese {
		lang = config.LanguageEnglish
	}
	words, ok := startErrorText[lang]
	if !ok {
		words = startErrorText[""]
	}
	var b strings.Builder
	_ = startErrorTmpl.Execute(&b, map[string]string{ // a template of strings into a Builder cannot fail
		"Lang": lang, "Title": words.Title, "Hint": words.Hint, "Message": err.Error(), "Code": app.ErrorCode(err),
	})
	return b.String()
}
