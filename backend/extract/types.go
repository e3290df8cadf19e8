package extract

// Supported reports whether Text reads files named name (only the extension counts,
// compared without case): text, Markdown, data formats, source code, HTML, PDF and DOCX.
// It returns the content type Text gives such a file (Result.ContentType) and true, or ""
// and false for any other name, a name without an extension included. The local-file
// index (backend/localfiles) uses it to pick the files it reads.
func Supported(name string) (string, bool) {
	ext := extension(name)
	if lang, ok := languages[ext]; ok {
		return lang, true
	}
	if ft, ok := types[ext]; ok {
		return ft.contentType, true
	}
	return "", false
}
