package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"artifactflow/backend/config"
	"artifactflow/backend/convfile"
	"artifactflow/backend/export"
	"artifactflow/backend/store"
)

// transferTimeout bounds an export, import or backup: they read or write every row and
// file of a conversation or of the whole data, which may take minutes for a large one.
const transferTimeout = 30 * time.Minute

// ConversationFileMIME is the MIME type of a conversation file (a zip archive).
const ConversationFileMIME = "application/zip"

// FileDialogs are the native dialogs that save and open conversation files and backups,
// with a title and a file type filter. The window's Dialogs implement them; browser mode
// and the command line have none (the page downloads and uploads the file instead).
type FileDialogs interface {
	// SaveFileAs asks where to save a file, starting in defaultDir with defaultName
	// filled in and files matching pattern (e.g. "*.zip", described by filterName)
	// listed; "" with a nil error means the user cancelled.
	SaveFileAs(title, defaultDir, defaultName, filterName, pattern string) (string, error)
	// OpenFileOf asks for one existing file to open, starting in defaultDir and listing
	// files matching pattern; "" with a nil error means the user cancelled.
	OpenFileOf(title, defaultDir, filterName, pattern string) (string, error)
}

// fileDialogs returns the window's FileDialogs, nil outside the window.
func (c *Core) fileDialogs() FileDialogs {
	c.mu.Lock()
	defer c.mu.Unlock()
	fd, _ := c.dialogs.(FileDialogs)
	return fd
}

// uiText returns zh when the user reads Chinese (Settings' language, else the system's),
// else en: for the few texts the backend shows itself (native dialog titles).
func (c *Core) uiText(en, zh string) string {
	if config.UILanguage(c.Settings().Language, os.Getenv) == config.LanguageChinese {
		return zh
	}
	return en
}

// ConversationImport is what importing a conversation file stored: the new conversation's
// id (a new id, whatever the file's; "" when the user cancelled the open dialog) and
// title, its number of messages (every branch), artifacts and uploaded originals, and the
// workspace files written into its workspace folder.
type ConversationImport struct {
	ConversationID string `json:"conversation_id"`
	Title          string `json:"title"`
	Messages       int    `json:"messages"`
	Artifacts      int    `json:"artifacts"`
	Uploads        int    `json:"uploads"`
	Files          int    `json:"files"`
}

// ConversationFilename is the file name a conversation titled title is exported under:
// the title made safe for every file system (export.Filename) and convfile.Ext.
func ConversationFilename(title string) string {
	return export.Filename(title, "") + convfile.Ext
}

// ExportConversation writes conversation id to w as a conversation file (package
// convfile, docs/ARCHITECTURE.md "Conversation files and backups"): every message of every
// branch, the events, the artifacts with every version, the sources, the declared links
// and files (the workspace files they point to, from the conversation's workspace folder),
// and the originals of its uploads. A run going on meanwhile is exported as it stood at one
// instant. Errors: store.ErrNotFound (wrapped) for an unknown conversation; w's and the
// database's errors.
func (c *Core) ExportConversation(ctx context.Context, id string, w io.Writer) (convfile.Manifest, error) {
	ws, err := c.Workspace(ctx, id)
	if err != nil {
		return convfile.Manifest{}, err
	}
	return convfile.Export(ctx, c.db, id, w, convfile.ExportOptions{BlobsDir: filepath.Join(c.dataDir, config.BlobsDir), Workspace: ws})
}

// ExportConversationFile is ExportConversation into the file at path, written under a
// temporary name in the same folder and renamed when complete (a failed export leaves
// no partial file, and an existing file is replaced only by a whole one).
func (c *Core) ExportConversationFile(ctx context.Context, id, path string) (convfile.Manifest, error) {
	var m convfile.Manifest
	err := writeAtomically(path, func(w io.Writer) error {
		var err error
		m, err = c.ExportConversation(ctx, id, w)
		return err
	})
	return m, err
}

// writeAtomically writes the file at path through write: into a temporary file beside it,
// synced and renamed over path when write succeeds, removed otherwise.
func writeAtomically(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // nothing left after the rename
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ImportConversation stores the conversation file in r (size bytes) as a new conversation
// (convfile.Import: new ids, so a file imported twice gives two copies and never merges
// with a conversation that is here already). The upload originals it lacks go to the data
// dir's blobs/ (under the blob lock), the declared workspace files into the new
// conversation's default workspace folder, which the local-file index then reads.
// Nothing is stored when anything in the file is wrong. Errors: for a file that is wrong,
// an *AppError with code invalid_request, Fields["reason"] invalid_file, too_new or
// too_large (convfile.ErrInvalidFile, ErrTooNew, ErrTooLarge, which it wraps), Detail what
// exactly is wrong, and Message a sentence saying both (importError); file system and
// database errors.
func (c *Core) ImportConversation(ctx context.Context, r io.ReaderAt, size int64) (ConversationImport, error) {
	res, err := convfile.Import(ctx, c.db, r, size, convfile.ImportOptions{
		BlobsDir:     filepath.Join(c.dataDir, config.BlobsDir),
		WorkspaceDir: func(id string) string { return filepath.Join(c.dataDir, "workspaces", id) },
		Lock:         &c.blobMu,
	})
	if err != nil {
		return ConversationImport{}, importError(err)
	}
	c.files.Refresh(res.ConversationID) // its uploads and workspace files become searchable
	return ConversationImport{ConversationID: res.ConversationID, Title: res.Title, Messages: res.Rows["messages"],
		Artifacts: res.Rows["artifacts"], Uploads: len(res.Manifest.Blobs), Files: res.Files}, nil
}

// importReasons are the kinds of bad conversation files, with what the user is told.
var importReasons = []struct {
	err     error
	reason  string
	message string
}{
	{convfile.ErrTooNew, "too_new", "A newer version of ArtifactFlow wrote this file: update ArtifactFlow to import it"},
	{convfile.ErrTooLarge, "too_large", "The file is larger than a conversation file may be"},
	{convfile.ErrInvalidFile, "invalid_file", "The file is not a valid ArtifactFlow conversation file, or it is damaged"},
}

// importError turns an error of convfile.Import about the file into an invalid_request
// AppError (see ImportConversation); other errors are returned as they are.
func importError(err error) error {
	for _, r := range importReasons {
		if !errors.Is(err, r.err) {
			continue
		}
		detail := err.Error()
		if _, after, ok := strings.Cut(detail, r.err.Error()); ok {
			detail = after
		}
		detail = strings.TrimPrefix(strings.TrimPrefix(detail, ":"), " ")
		for _, noise := range []string{"store: import: ", "convfile: import: ", ": " + store.ErrInvalid.Error(), ": " + store.ErrSchemaTooNew.Error()} {
			detail = strings.ReplaceAll(detail, noise, "")
		}
		msg := r.message
		if detail != "" {
			msg += ": " + detail
		}
		return &AppError{Code: CodeInvalidRequest, Message: msg, Detail: detail, Fields: map[string]string{"reason": r.reason}, err: err}
	}
	return err
}

// ImportConversationFile is ImportConversation of the file at path. Errors: a path that
// is not a regular file (ErrInvalidRequest), or cannot be opened; ImportConversation's.
func (c *Core) ImportConversationFile(ctx context.Context, path string) (ConversationImport, error) {
	f, err := os.Open(path)
	if err != nil {
		return ConversationImport{}, fmt.Errorf("import %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ConversationImport{}, fmt.Errorf("import %s: %w", filepath.Base(path), err)
	}
	if !st.Mode().IsRegular() {
		return ConversationImport{}, fmt.Errorf("%w: %s is not a file", ErrInvalidRequest, filepath.Base(path))
	}
	return c.ImportConversation(ctx, f, st.Size())
}

// Export saves conversation id as one conversation file (Core.ExportConversation). In the
// window the save dialog opens in the user's Documents folder (never a workspace folder)
// with the title as the file name, the file is written there and SavedPath names it (empty
// when the user cancelled; ArtifactService.RevealExport then shows it in its folder); in
// browser mode Data holds the file for the page to download.
func (s *ConversationService) Export(id string) (ExportResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), transferTimeout)
	defer cancel()
	cv, err := s.core.db.GetConversation(ctx, id)
	if err != nil {
		return ExportResult{}, err
	}
	name := ConversationFilename(cv.Title)
	fd := s.core.fileDialogs()
	if fd == nil {
		var buf bytes.Buffer
		if _, err := s.core.ExportConversation(ctx, id, &buf); err != nil {
			return ExportResult{}, err
		}
		return ExportResult{Filename: name, MIME: ConversationFileMIME, Data: buf.Bytes()}, nil
	}
	path, err := fd.SaveFileAs(s.core.uiText("Export conversation", "导出对话"), documentsDir(), name,
		s.core.uiText("ArtifactFlow conversation", "ArtifactFlow 对话"), "*.zip")
	if err != nil || path == "" {
		return ExportResult{Filename: name}, err
	}
	if _, err := s.core.ExportConversationFile(ctx, id, path); err != nil {
		return ExportResult{}, err
	}
	s.core.rememberExport(path)
	return ExportResult{Filename: name, MIME: ConversationFileMIME, SavedPath: path}, nil
}

// Import stores a conversation file the page sent (browser mode reads it with a file
// input) as a new conversation (Core.ImportConversation). Errors: as ImportConversation.
func (s *ConversationService) Import(file UploadFile) (ConversationImport, error) {
	ctx, cancel := context.WithTimeout(context.Background(), transferTimeout)
	defer cancel()
	return s.core.ImportConversation(ctx, bytes.NewReader(file.Data), int64(len(file.Data)))
}

// ImportFile asks for a conversation file with the window's open dialog (starting in
// Documents) and imports it (Core.ImportConversationFile); a cancelled dialog gives an
// empty result. Where there is no such dialog (browser mode refuses the method, the page
// uses Import) it fails with ErrNoFolderDialog (desktop_only).
func (s *ConversationService) ImportFile() (ConversationImport, error) {
	fd := s.core.fileDialogs()
	if fd == nil {
		return ConversationImport{}, ErrNoFolderDialog
	}
	path, err := fd.OpenFileOf(s.core.uiText("Import a conversation", "导入对话"), documentsDir(),
		s.core.uiText("ArtifactFlow conversation", "ArtifactFlow 对话"), "*.zip")
	if err != nil || path == "" {
		return ConversationImport{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), transferTimeout)
	defer cancel()
	return s.core.ImportConversationFile(ctx, path)
}
