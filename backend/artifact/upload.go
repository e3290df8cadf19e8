package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"artifactflow/backend/extract"
	"artifactflow/backend/imaging"
	"artifactflow/backend/store"
)

// DefaultMaxUploadBytes is the upload size limit, in bytes, used when CreateFromUpload is
// given a limit of 0 or less.
const DefaultMaxUploadBytes = 20 << 20

// ErrTooLarge: an upload is over the size limit; nothing was written.
var ErrTooLarge = errors.New("file too large")

// Limits of upload ids and titles.
const (
	maxIDBytes     = 64  // an artifact id is at most 64 bytes (see validID)
	maxExtBytes    = 16  // a longer "extension" is treated as part of the name
	maxTitleRunes  = 200 // titles are cut to this many runes
	maxNameRunes   = 255 // the recorded original_name is cut to this many runes
	maxUploadTries = 1000
)

// Upload is one file the user uploaded: its name as the client gave it (a base name; any
// directory part is ignored) and its bytes.
type Upload struct {
	Name string
	Data []byte
}

// UploadResult describes the artifact an upload became. ArtifactID is the id it got
// (SanitizeID of the name, with a _1, _2 ... suffix on collision); Title is the original
// file name without directories (cut to 200 characters); ContentType is the stored content type (extract.Result.ContentType,
// "binary" when unreadable); Size is the file size in bytes; Readable reports whether its
// text was extracted; Note is a sentence for the user about anything unusual (renamed,
// unreadable, decoded from a legacy charset, already uploaded), "" when there is nothing
// to say. Existing reports that the conversation already had these exact bytes: nothing
// was stored and ArtifactID names the artifact that holds them.
type UploadResult struct {
	ArtifactID, Title, ContentType string
	Size                           int
	Readable                       bool
	Note                           string
	// NoteParts are Note's parts by kind, for a UI that words them in its own language.
	NoteParts []NotePart
	Existing  bool
}

// NotePart is one thing unusual about an upload (a part of UploadResult.Note): Code says
// what, Args its values.
//
//	NoteRenamed     {"id": the artifact id it got, "base": the id it would have had}
//	NoteUnreadable  {"reason": extract.Result.Reason, "reason_code": its ReasonCode, "ext": the extension}
//	NoteDecoded     {"encoding": the charset the text was decoded from}
//	NoteExisting    {"id": the artifact that already holds these bytes}
type NotePart struct {
	Code string
	Args map[string]string
}

// NotePart codes.
const (
	NoteRenamed    = "renamed"
	NoteUnreadable = "unreadable"
	NoteDecoded    = "decoded"
	NoteExisting   = "existing"
)

// uploadMetadata is the artifacts.metadata JSON of an uploaded artifact.
type uploadMetadata struct {
	// OriginalName is the base name given (baseName), cut to maxNameRunes runes.
	OriginalName string `json:"original_name"`
	Size         int    `json:"size"`     // bytes
	SHA256       string `json:"sha256"`   // hex
	MIME         string `json:"mime"`     // from the extension, else sniffed
	Encoding     string `json:"encoding"` // charset the text was decoded from; "" for PDF, DOCX and unreadable files
	Readable     bool   `json:"readable"`
	Blob         string `json:"blob"` // file name of the original under the blobs directory
	// Width and Height are a picture's size in pixels (imaging.Sniff); 0 for other files.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// ContentTypeImage is the content type of an uploaded picture (PNG, JPEG, GIF or WebP,
// recognised by its bytes): its content is ImageDescription's line and the picture itself
// is its original (UploadOriginal).
const ContentTypeImage = "image"

// ErrNotImage: an upload named as a picture (.png, .jpg, .jpeg, .gif, .webp) whose bytes
// are no such picture; nothing was written.
var ErrNotImage = errors.New("not a picture")

// ImageDescription is the text content of an uploaded picture, what an agent reads of it:
// `(image: cat.png, PNG, 640×480 pixels, 12 KB; the original file is kept)`.
func ImageDescription(title string, pic imaging.Info, size int) string {
	kind := strings.ToUpper(strings.TrimPrefix(pic.MIME, "image/"))
	return fmt.Sprintf("(image: %s, %s, %d×%d pixels, %s; the original file is kept)", title, kind, pic.Width, pic.Height, formatSize(int64(size)))
}

// SanitizeID turns an uploaded file name into an artifact id (as Python's
// re.sub(r'[^\w\-.]', '_', filename)). Any directory part ('/' or '\' separated) is
// dropped first; then every character that is not a letter or number of any script (as
// Python's Unicode \w: categories L and N), '_', '-' or '.' becomes '_', one per code
// point, so "报告 2024.pdf" gives "报告_2024.pdf" and an invalid UTF-8 byte gives '_'. An
// empty result or one made only of dots gives "upload". The id is cut to 64 bytes at a
// rune boundary, keeping an extension of up to 16 bytes.
func SanitizeID(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '-' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	id := b.String()
	if strings.Trim(id, ".") == "" {
		return "upload"
	}
	return withSuffix(id, 0)
}

// withSuffix returns id with "_n" inserted before its extension ("data.csv", 2 →
// "data_2.csv"; n 0 adds nothing), the stem cut at a rune boundary so the result fits in
// maxIDBytes.
func withSuffix(id string, n int) string {
	stem, ext := id, ""
	if i := strings.LastIndexByte(id, '.'); i > 0 && len(id)-i <= maxExtBytes {
		stem, ext = id[:i], id[i:]
	}
	suffix := ""
	if n > 0 {
		suffix = "_" + strconv.Itoa(n)
	}
	stem, _ = bytePrefix(stem, maxIDBytes-len(ext)-len(suffix))
	return stem + suffix + ext
}

// bytePrefix returns the longest prefix of s of at most n bytes that ends at a rune
// boundary, and whether s was cut.
func bytePrefix(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// CreateFromUpload stores an uploaded file as a new artifact at once: unlike Create it
// bypasses the write-back cache and commits through Store.CreateArtifact, with source
// "user_upload", update_type "upload" and version 1, so the artifact is listed as soon as
// the upload returns. Its content is the text extract.Text finds; a file whose text cannot
// be read is still stored, with content type "binary" and a one-line note naming the file,
// its size and why. The id is SanitizeID(up.Name), with "_1", "_2" ... before the extension
// when the id is taken in the database or in this manager's cache; a store.ErrDuplicate from
// a concurrent writer moves on to the next suffix too. The artifact joins the manager's view
// clean (not dirty), so List, Read and Create see it during a run.
//
// The name given is never used as a path: the title is its base name without directory
// parts ('/' or '\' separated, so "../x", "C:\x" and "/etc/passwd" give "x", "x" and
// "passwd"), without NUL, control and format characters (bidirectional overrides
// included; see UploadTitle), cut to 200 runes; the id is SanitizeID's; the recorded
// original_name is the same base name cut to 255 runes.
//
// The original bytes are first saved as blobsDir/<sha256 hex> (directory created 0700,
// file 0600, written to a temporary file and renamed; skipped when that blob exists), and
// the artifact's metadata records original_name, size, sha256, mime, encoding, readable
// and blob. If the database write fails, a blob this upload wrote is removed again (one
// that existed before belongs to another artifact and stays); callers serialise uploads
// into one blobs directory so that two uploads of the same bytes cannot race on it.
//
// The same bytes uploaded again into the same conversation (same SHA-256, whatever the
// name) store nothing: the result names the artifact that already holds them, with
// Existing set and the note `already in this conversation as "<id>"`. Different bytes
// under a taken name still get the next suffix.
//
// A picture (PNG, JPEG, GIF or WebP by its bytes, whatever its name) is stored with
// content type ContentTypeImage, ImageDescription as its content, and its media type by
// its bytes, width and height in the metadata; a file named as a picture whose bytes are
// not one is refused with ErrNotImage.
//
// maxBytes is the size limit in bytes (DefaultMaxUploadBytes when <= 0). Errors:
// ErrTooLarge, naming the file, its size and the limit, when up.Data is larger (nothing is
// written); ErrNotImage; an empty blobsDir; the context's error; blob and store errors, wrapped.
func (m *Manager) CreateFromUpload(ctx context.Context, blobsDir string, up Upload, maxBytes int64) (UploadResult, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxUploadBytes
	}
	name := baseName(up.Name)
	title := UploadTitle(up.Name)
	size := len(up.Data)
	if int64(size) > maxBytes {
		return UploadResult{}, fmt.Errorf("%w: %q is %s (%d bytes); the upload limit is %s", ErrTooLarge, title, formatSize(int64(size)), size, formatSize(maxBytes))
	}
	if blobsDir == "" {
		return UploadResult{}, fmt.Errorf("artifact: upload %q: no blobs directory given", title)
	}
	if err := ctx.Err(); err != nil {
		return UploadResult{}, fmt.Errorf("artifact: upload %q: %w", title, err)
	}

	sum := sha256.Sum256(up.Data)
	blob := hex.EncodeToString(sum[:])
	if res, found, err := m.existingUpload(ctx, blob, size); found || err != nil {
		return res, err
	}

	pic, picErr := imaging.Sniff(up.Data)
	if picErr != nil && imaging.HasImageName(name) {
		return UploadResult{}, fmt.Errorf("%w: %q is named as a picture, but its bytes are %v", ErrNotImage, title, imaging.ErrNotImage)
	}
	var text extract.Result
	var content string
	if picErr == nil { // a picture: kept as it is, shown by the window from its original
		text = extract.Result{ContentType: ContentTypeImage, Readable: true}
		content = ImageDescription(title, pic, size)
	} else {
		var err error
		text, err = extract.Text(ctx, name, up.Data)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return UploadResult{}, fmt.Errorf("artifact: upload %q: %w", title, ctxErr)
		}
		if err != nil { // text is unreadable then; keep the file anyway
			slog.Error("artifact: extracting the text of an upload failed", "name", title, "err", err)
		}
		content = text.Text
		if !text.Readable {
			content = fmt.Sprintf("(binary file: %s, %s; its text could not be read: %s)", title, formatSize(int64(size)), text.Reason)
		}
	}
	m.mu.Lock()
	blobLock := m.blobLock
	m.mu.Unlock()
	if blobLock != nil {
		blobLock.Lock()
		defer blobLock.Unlock() // after the deferred clean-up below: deferred calls run last in, first out
	}
	created, err := writeBlob(blobsDir, blob, up.Data)
	if err != nil {
		return UploadResult{}, fmt.Errorf("artifact: upload %q: save the original: %w", title, err)
	}
	stored := false
	defer func() {
		if !stored && created { // nothing refers to the blob this upload wrote
			if err := os.Remove(filepath.Join(blobsDir, blob)); err != nil {
				slog.Warn("artifact: removing the original of a failed upload", "name", title, "err", err)
			}
		}
	}()
	original, _ := runePrefix(name, maxNameRunes)
	um := uploadMetadata{OriginalName: original, Size: size, SHA256: blob,
		MIME: mimeType(name, up.Data), Encoding: text.Encoding, Readable: text.Readable, Blob: blob}
	if picErr == nil {
		um.MIME, um.Width, um.Height = pic.MIME, pic.Width, pic.Height // the bytes say what it is, not the name
	}
	meta, err := json.Marshal(um)
	if err != nil {
		return UploadResult{}, fmt.Errorf("artifact: upload %q: encode metadata: %w", title, err)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	// Again under the lock: an upload of the same bytes may have finished meanwhile (its
	// artifact refers to the blob, so the blob stays).
	if res, found, err := m.existingUpload(ctx, blob, size); found || err != nil {
		stored = found
		return res, err
	}
	base := SanitizeID(up.Name)
	for n := 0; n < maxUploadTries; n++ {
		id := withSuffix(base, n)
		if _, cached := m.cache[id]; cached {
			continue
		}
		a, err := m.st.CreateArtifact(ctx, store.ArtifactWrite{SessionID: m.sessionID, ID: id, ContentType: text.ContentType,
			Title: title, Content: content, Version: 1, UpdateType: store.UpdateUpload, Source: SourceUpload, Metadata: meta})
		if errors.Is(err, store.ErrDuplicate) {
			continue
		}
		if err != nil {
			return UploadResult{}, fmt.Errorf("artifact: upload %q as %q: %w", title, id, err)
		}
		m.cache[id] = &memory{id: id, contentType: a.ContentType, title: a.Title, content: a.Content, source: a.Source,
			version: a.CurrentVersion, lockVersion: a.LockVersion, updateType: store.UpdateUpload, updatedAt: a.UpdatedAt}
		stored = true
		note, parts := uploadNote(base, id, text)
		return UploadResult{ArtifactID: id, Title: title, ContentType: a.ContentType, Size: size, Readable: text.Readable,
			Note: note, NoteParts: parts}, nil
	}
	return UploadResult{}, fmt.Errorf("artifact: upload %q: %q and its first %d numbered variants are all taken", title, base, maxUploadTries-1)
}

// existingUpload looks for an artifact of the session that records an upload of the bytes
// with SHA-256 blob, and reports it as the result of uploading them again.
func (m *Manager) existingUpload(ctx context.Context, blob string, size int) (UploadResult, bool, error) {
	a, err := m.st.UploadBySHA256(ctx, m.sessionID, blob)
	if errors.Is(err, store.ErrNotFound) {
		return UploadResult{}, false, nil
	}
	if err != nil {
		return UploadResult{}, false, fmt.Errorf("artifact: upload: look for the same file: %w", err)
	}
	var meta uploadMetadata
	_ = json.Unmarshal(a.Metadata, &meta) // found by its metadata, so it is JSON
	return UploadResult{ArtifactID: a.ID, Title: a.Title, ContentType: a.ContentType, Size: size, Readable: meta.Readable,
		Note: fmt.Sprintf("already in this conversation as %q", a.ID), Existing: true,
		NoteParts: []NotePart{{Code: NoteExisting, Args: map[string]string{"id": a.ID}}}}, true, nil
}

// UploadTitle returns the title an upload named name gets (see CreateFromUpload): its base
// name without directory parts ('/' or '\' separated), as valid UTF-8 without control or
// format characters (NUL, bidirectional overrides and isolates, zero-width characters),
// trimmed, cut to 200 runes at a rune boundary; "upload" when nothing is left. It is safe
// to show, but it is not meant to be used as a path.
func UploadTitle(name string) string {
	title, _ := runePrefix(baseName(name), maxTitleRunes)
	return title
}

// baseName is the file name of an upload without any directory part ('/' or '\'
// separated), valid UTF-8, without control or format characters, and trimmed; "upload"
// when that leaves nothing. See cleanName.
func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(cleanName(name))
	if name == "" {
		return "upload"
	}
	return name
}

// cleanName returns name as valid UTF-8 without control characters (C0, DEL, C1) and
// format characters (Unicode category Cf: the bidirectional embeddings, overrides and
// isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E/U+200F, zero-width
// characters). A right-to-left override would show the file "gnp.md" as "dm.png".
func cleanName(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, "\uFFFD"))
}

// uploadNote tells the user what was unusual about an upload, "" when nothing was, and
// the same by parts (NotePart).
func uploadNote(base, id string, text extract.Result) (string, []NotePart) {
	var notes []string
	var parts []NotePart
	if id != base {
		notes = append(notes, fmt.Sprintf("saved as %q because %q already exists", id, base))
		parts = append(parts, NotePart{Code: NoteRenamed, Args: map[string]string{"id": id, "base": base}})
	}
	if !text.Readable {
		notes = append(notes, fmt.Sprintf("its text could not be read (%s); the original file is kept", text.Reason))
		parts = append(parts, NotePart{Code: NoteUnreadable, Args: map[string]string{"reason": text.Reason, "reason_code": text.ReasonCode, "ext": text.Ext}})
	} else if text.Encoding != "" && text.Encoding != "UTF-8" {
		notes = append(notes, "text decoded from "+text.Encoding)
		parts = append(parts, NotePart{Code: NoteDecoded, Args: map[string]string{"encoding": text.Encoding}})
	}
	return strings.Join(notes, "; "), parts
}

// mimeType returns the media type for the file's extension, else the sniffed one.
func mimeType(name string, data []byte) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		if t := mime.TypeByExtension(strings.ToLower(name[i:])); t != "" {
			return t
		}
	}
	return http.DetectContentType(data)
}

// formatSize renders a byte count for people: "512 bytes", "1.5 KB", "1.2 MB" (1 KB =
// 1024 bytes).
func formatSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KB"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MB"
}

// writeBlob saves data as dir/name (dir created 0700, file 0600) through a temporary file
// and a rename, so a blob is never seen half-written, and reports whether it wrote the
// file. An existing regular file of the same size is kept as it is: blobs are named by
// their SHA-256.
func writeBlob(dir, name string, data []byte) (created bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	path := filepath.Join(dir, name)
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		return false, nil
	}
	tmp, err := os.CreateTemp(dir, ".upload-*.tmp")
	if err != nil {
		return false, err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return false, err
	}
	if _, err := tmp.Write(data); err != nil {
		return false, err
	}
	if err := tmp.Sync(); err != nil {
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, err
	}
	done = true
	return true, nil
}
