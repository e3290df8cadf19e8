package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"artifactflow/app/internal/text"
	"artifactflow/backend/events"
	"artifactflow/backend/localfiles"
	"artifactflow/backend/store"
)

// FolderChooser is the native dialog that picks a folder. The window's Dialogs implement
// it; browser mode and the command line have none, and ChooseWorkspace then fails with
// ErrNoFolderDialog.
type FolderChooser interface {
	// ChooseFolder asks for a folder, starting in defaultDir when it is set; "" with a nil
	// error means the user cancelled.
	ChooseFolder(title, defaultDir string) (string, error)
}

// ErrNoFolderDialog: ChooseWorkspace was called where there is no native folder dialog
// (browser mode, the command line). Its text is the code the page's ApiError reads.
var ErrNoFolderDialog = errors.New("desktop_only")

// maxFailuresShown bounds the files WorkspaceFailures lists.
const maxFailuresShown = 500

// WorkspaceStatus is what the workspace bar shows of a conversation's workspace folder and
// its local-file index:
//
//   - Folder is the absolute folder; Chosen whether the user chose it (else it is the
//     default <data-dir>/workspaces/<conversation-id>, which may not exist); Exists
//     whether it is a folder on disk now.
//   - CanChoose whether a native folder dialog is at hand (the desktop window).
//   - Indexing whether a pass is running; Progress the last progress reported since the
//     app started (nil before the first), with Phase, Total, Done, Failed, Skipped and
//     Bytes (localfiles.Progress).
//   - Files, Uploads, Skipped, Failed, Bytes and ByExt count what the index holds now.
type WorkspaceStatus struct {
	ConversationID string               `json:"conversation_id"`
	Folder         string               `json:"folder"`
	Chosen         bool                 `json:"chosen"`
	Exists         bool                 `json:"exists"`
	CanChoose      bool                 `json:"can_choose"`
	Indexing       bool                 `json:"indexing"`
	Progress       *localfiles.Progress `json:"progress,omitempty"`
	Files          int                  `json:"files"`
	Uploads        int                  `json:"uploads"`
	Skipped        int                  `json:"skipped"`
	Failed         int                  `json:"failed"`
	Bytes          int64                `json:"bytes"`
	ByExt          map[string]int       `json:"by_ext"`
}

// IndexFailure is a file of the workspace the index left out: its workspace-relative Path,
// Status ("skipped" by policy: too large, binary, a link leading outside; or "failed": it
// could not be read) and the Reason in words.
type IndexFailure struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	Size   int64  `json:"size"`
}

// newFiles makes the local-file index of the core's database and its manager, whose
// progress reaches every sink as index_progress events.
func (c *Core) newFiles() (*localfiles.Manager, error) {
	ix, err := localfiles.New(localfiles.Options{DB: c.db, Workspace: c.workspace, Logger: c.log})
	if err != nil {
		return nil, err
	}
	return localfiles.NewManager(ix, localfiles.ManagerOptions{Report: c.emitIndexProgress}), nil
}

// emitIndexProgress sends an indexing pass's progress to every sink as an index_progress
// event of the conversation, with no message and seq 0 (it is not stored).
func (c *Core) emitIndexProgress(conversationID string, p localfiles.Progress) {
	data, err := json.Marshal(p)
	if err != nil {
		c.log.Error("app: encode index progress", "err", err)
		return
	}
	c.emit(events.Event{Type: events.IndexProgress, ConversationID: conversationID, CreatedAt: time.Now().UTC(), Data: data})
}

// Files returns the local-file index manager (for the command line and tests).
func (c *Core) Files() *localfiles.Manager { return c.files }

// setWorkspace makes dir (absolute; "" for the default folder) conversationID's
// workspace folder ("" conversation: a new conversation named after the folder), stops the
// old folder's pass and starts indexing the new one.
func (c *Core) setWorkspace(ctx context.Context, conversationID, dir string) (WorkspaceStatus, error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return WorkspaceStatus{}, fmt.Errorf("workspace folder %s: %w", dir, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return WorkspaceStatus{}, fmt.Errorf("workspace folder: %w", err)
		}
		if !fi.IsDir() {
			return WorkspaceStatus{}, fmt.Errorf("workspace folder: %s is not a folder", abs)
		}
		dir = abs
	}
	if conversationID == "" {
		if dir == "" {
			return WorkspaceStatus{}, fmt.Errorf("%w: no conversation and no folder", store.ErrInvalid)
		}
		conversationID = uuid.NewString()
		if err := c.db.CreateConversation(ctx, store.Conversation{ID: conversationID, Title: text.Clip("Folder: "+filepath.Base(dir), 60)}); err != nil {
			return WorkspaceStatus{}, err
		}
	}
	c.files.Stop(conversationID) // the old folder's pass must not write after the switch
	if err := c.db.SetConversationWorkspace(ctx, conversationID, dir); err != nil {
		return WorkspaceStatus{}, err
	}
	_ = c.db.TouchConversation(ctx, conversationID)
	c.files.Start(conversationID, false)
	return c.workspaceStatus(ctx, conversationID)
}

// workspaceStatus builds conversationID's WorkspaceStatus.
func (c *Core) workspaceStatus(ctx context.Context, conversationID string) (WorkspaceStatus, error) {
	chosen, err := c.db.ConversationWorkspace(ctx, conversationID)
	if err != nil {
		return WorkspaceStatus{}, err
	}
	folder, err := c.workspace(ctx, conversationID)
	if err != nil {
		return WorkspaceStatus{}, err
	}
	st := WorkspaceStatus{ConversationID: conversationID, Folder: folder, Chosen: chosen != "", ByExt: map[string]int{}}
	if fi, err := os.Stat(folder); err == nil && fi.IsDir() {
		st.Exists = true
	}
	c.mu.Lock()
	_, st.CanChoose = c.dialogs.(FolderChooser)
	c.mu.Unlock()
	p, running := c.files.Status(conversationID)
	st.Indexing = running
	if p.Phase != "" {
		st.Progress = &p
	}
	sum, err := c.files.Summary(ctx, conversationID)
	if err != nil {
		return WorkspaceStatus{}, err
	}
	if sum.Workspace == "" || sum.Workspace == folder { // an index of an older folder says nothing of this one
		st.Files, st.Uploads, st.Skipped, st.Failed, st.Bytes, st.ByExt = sum.Files, sum.Uploads, sum.Skipped, sum.Failed, sum.Bytes, sum.ByExt
	}
	return st, nil
}
