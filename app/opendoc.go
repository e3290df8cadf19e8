package app

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// documentExt is the allow-list of file types the app hands to the system's default
// application (see docs/ARCHITECTURE.md, "Security"). Anything not listed is only revealed
// in its folder: a list of what may run (programs, scripts, shortcuts, installers, disk
// images, help files, add-ins…) can never be complete, since every system keeps adding
// types its shell launches. What is here is data opened by a viewer or editor:
//   - text and data: the programs these open in show them as text (csv and tsv open in a
//     spreadsheet, which asks before it starts any external data link); xml is left out
//     because Windows may pass it to Office as an old Word/Excel XML document, a format
//     that can carry macros;
//   - html, htm and svg: they open in the default web browser, sandboxed as a local file
//     (scripts may run, as in any page, but start no program, and current browsers let a
//     local page read no other file);
//     workspace reports are often HTML, and refusing them would send every user to the
//     file manager for the common case;
//   - images, audio and video, without playlists (m3u, asx, wpl…) or Windows Media types
//     whose players follow script commands;
//   - office documents of the formats whose type forbids macros: OOXML docx/xlsx/pptx
//     (Office refuses to open one that holds a macro project) and OpenDocument
//     odt/ods/odp (LibreOffice runs no unsigned macro under its default security). The
//     legacy binary formats (doc, xls, ppt), rtf, and every macro-enabled or binary OOXML
//     type (docm, xlsm, pptm, xlsb, dotm, xltm, potm, ppsm…) are left out.
var documentExt = map[string]bool{
	// text and data
	".txt": true, ".md": true, ".markdown": true, ".csv": true, ".tsv": true, ".json": true, ".pdf": true,
	// web pages, in the browser
	".html": true, ".htm": true, ".svg": true,
	// images
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true, ".tif": true,
	".tiff": true, ".avif": true, ".heic": true,
	// audio
	".mp3": true, ".wav": true, ".ogg": true, ".oga": true, ".opus": true, ".flac": true, ".m4a": true, ".aac": true,
	// video
	".mp4": true, ".m4v": true, ".webm": true, ".mkv": true, ".mov": true, ".ogv": true, ".avi": true,
	// office documents that cannot hold macros
	".docx": true, ".xlsx": true, ".pptx": true, ".odt": true, ".ods": true, ".odp": true,
}

// opensAsDocument reports whether a file named name (its base name, without folders) with
// mode may be opened with the default application on the system goos (a GOOS value:
// "windows", "darwin", "linux"…); when false it is only revealed in its folder. It is pure
// (no file is read) so that every system's rule is tested on any system. The rule:
//   - only a regular file opens (a macOS .app bundle, any folder, device or link does not);
//   - outside Windows, a file with any execute bit does not open, whatever its name (a
//     program or a .desktop entry named report.pdf);
//   - the name is read as the system's shell reads it (shellName), and its extension,
//     case folded, must be in documentExt.
func opensAsDocument(goos, name string, mode fs.FileMode) bool {
	if !mode.IsRegular() {
		return false
	}
	if goos != "windows" && mode.Perm()&0o111 != 0 {
		return false
	}
	n, ok := shellName(goos, name)
	if !ok {
		return false
	}
	return documentExt[strings.ToLower(filepath.Ext(n))]
}

// shellName is name as the system goos resolves it when a file is opened, and false when
// it names something other than a plain file. On Windows: a colon names an alternate data
// stream (tool.exe::$DATA, report.pdf:x.exe, or x.exe:y.pdf, which opens x.exe's stream
// with a PDF reader's file type as its label) and is refused; trailing dots and spaces are
// dropped, as Windows drops them (tool.exe. and "tool.exe " are tool.exe). Elsewhere the
// name is taken as it is: a trailing dot or space is part of the name, so "report.pdf "
// has no listed extension and is revealed, never opened.
func shellName(goos, name string) (string, bool) {
	if goos != "windows" {
		return name, name != ""
	}
	if strings.ContainsRune(name, ':') {
		return "", false
	}
	n := strings.TrimRight(name, ". ")
	return n, n != ""
}
