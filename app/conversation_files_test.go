package app

import (
	"archive/zip"
	"artifactflow/backend/engine"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/convfile"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/store"
)

const (
	hiQuestion = "Just say hi"
	notesMD    = "# My notes\n\nThe Moon is far.\n"
	reportFile = "# Workspace report\n\nWritten next to the conversation.\n"
)

// researchWithLinks is World.Research with two record_artifact calls before the lead's
// answer (a link, and a file of the workspace); hiQuestion gets the report revised (its
// second version) and a short answer.
func researchWithLinks(w *apptest.World) llmtest.Handler {
	research := w.Research()
	return func(req openai.ChatCompletionRequest, call int) llmtest.Reply {
		if apptest.AgentOf(req) == "lead_agent" {
			if apptest.LastUser(req) == hiQuestion {
				if len(apptest.ToolResults(req)) == 0 {
					return w.ToolCall("update_artifact", map[string]any{"id": "research_report", "old_str": "# Moon distance", "new_str": "# Moon distance (revised)"})
				}
				return llmtest.Reply{Content: "Hi."}
			}
			switch len(apptest.ToolResults(req)) {
			case 7:
				return w.ToolCall("record_artifact", map[string]any{"title": "Moon facts page", "url": w.PageURL, "kind": "link"})
			case 8:
				return w.ToolCall("record_artifact", map[string]any{"title": "Workspace report", "workspacePath": "out/report.md"})
			}
		}
		return research(req, call)
	}
}

// conversationFixture makes, through the bound services and a real engine run with the
// scripted model, a conversation with an upload, a picture the first question carries, a whole research (plan and report with
// several versions, sources, a declared link and a declared workspace file), a second
// branch (the first question edited), and a feedback event on the research's answer. It
// returns the conversation's id.
func conversationFixture(t *testing.T, core *Core) string {
	t.Helper()
	ctx := context.Background()
	chat, arts := &ChatService{core}, &ArtifactService{core}
	up, err := arts.Upload("", []UploadFile{{Name: "notes.md", Data: []byte(notesMD)}})
	if err != nil || up[0].Error != "" {
		t.Fatalf("upload = %+v, %v", up, err)
	}
	conv := up[0].ConversationID
	pic, err := arts.Upload(conv, []UploadFile{{Name: "chart.png", Data: tinyPNG(t)}})
	if err != nil || pic[0].Error != "" || pic[0].ContentType != "image" {
		t.Fatalf("picture upload = %+v, %v", pic, err)
	}
	ws, err := core.Workspace(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "out", "report.md"), []byte(reportFile), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := chat.Send(SendRequest{ConversationID: conv, Content: apptest.Question, Images: []string{pic[0].ArtifactID}})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(core, conv)
	second, err := chat.Send(SendRequest{ConversationID: conv, Content: hiQuestion, EditOf: first.MessageID})
	if err != nil || second.MessageID == "" {
		t.Fatalf("no second branch: %+v, %v", second, err)
	}
	waitIdle(core, conv)
	db := core.Store()
	convs := &ConversationService{core}
	if _, err := convs.SetFeedback(conv, first.MessageID, "down", "too long"); err != nil {
		t.Fatal(err)
	}
	if _, err := convs.SetFeedback(conv, first.MessageID, "up", "useful, 有用"); err != nil {
		t.Fatal(err)
	}
	if _, err := convs.SetFeedback(conv, second.MessageID, "down", ""); err != nil {
		t.Fatal(err)
	}
	// The fixture must hold what the round trip is about.
	for q, min := range map[string]int{
		`SELECT count(*) FROM messages WHERE conversation_id = ?`:                                                 2,
		`SELECT count(*) FROM messages WHERE conversation_id = ? AND parent_id IS NULL`:                           2, // two branches
		`SELECT count(*) FROM artifact_versions WHERE session_id = ?`:                                             3,
		`SELECT count(*) FROM artifact_versions WHERE session_id = ? AND artifact_id = 'research_report'`:         2,
		`SELECT count(*) FROM sources WHERE conversation_id = ?`:                                                  1,
		`SELECT count(*) FROM source_keys WHERE conversation_id = ?`:                                              1,
		`SELECT count(*) FROM declared_artifacts WHERE conversation_id = ? AND storage = 'external_url'`:          1,
		`SELECT count(*) FROM declared_artifacts WHERE conversation_id = ? AND storage = 'workspace'`:             1,
		`SELECT count(*) FROM declared_changes WHERE conversation_id = ?`:                                         2,
		`SELECT count(*) FROM artifacts WHERE session_id = ? AND json_extract(metadata, '$.blob') != ''`:          2,
		`SELECT count(*) FROM messages WHERE conversation_id = ? AND json_array_length(metadata, '$.images') = 1`: 1,
		`SELECT count(*) FROM message_events WHERE conversation_id = ? AND type = 'feedback'`:                     3,
		`SELECT count(*) FROM message_events WHERE conversation_id = ? AND type = 'artifact_changed'`:             1,
	} {
		var n int
		if err := db.SQL().QueryRow(q, conv).Scan(&n); err != nil || n < min {
			t.Fatalf("fixture: %s = %d, %v; want at least %d", q, n, err, min)
		}
	}
	return conv
}

// compareFeedback compares the ratings of every run of conversation old of src with
// those of new of dst, as the page reads them (ConversationService.Get on each branch):
// the same runs (matched by question) carry the same rating, note and time.
func compareFeedback(t *testing.T, src, dst *Core, old, new string) {
	t.Helper()
	ratings := func(c *Core, conv string) map[string]FeedbackView {
		convs := &ConversationService{c}
		d, err := convs.Get(conv)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]FeedbackView{}
		for _, id := range d.Messages[0].SiblingIDs {
			b, err := convs.SwitchBranch(conv, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range b.Messages {
				if m.Feedback != nil {
					out[m.Content] = *m.Feedback
				}
			}
		}
		return out
	}
	want, got := ratings(src, old), ratings(dst, new)
	if len(want) != 2 {
		t.Fatalf("the original has %d rated runs, want 2: %+v", len(want), want)
	}
	for q, f := range want {
		g, ok := got[q]
		if !ok || g.Rating != f.Rating || g.Note != f.Note || !g.At.Equal(f.At) {
			t.Errorf("feedback of %q in the copy = %+v (%v), want %+v", q, g, ok, f)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the copy has %d rated runs, want %d", len(got), len(want))
	}
}

// transferTable is a table compared by the round trip: the column naming the
// conversation, and the columns a copy cannot keep: ids the receiving database numbers
// itself, and what belongs to the process or computer that wrote the rows.
type transferTable struct {
	name, conv string
	drop       []string
}

var comparedTables = []transferTable{
	{"conversations", "id", []string{"workspace"}},
	{"artifact_sessions", "id", nil},
	{"messages", "conversation_id", []string{"owner", "started_by", "stop_requested_at"}},
	{"message_events", "conversation_id", []string{"id"}},
	{"artifacts", "session_id", nil},
	{"artifact_versions", "session_id", []string{"id"}},
	{"artifact_drafts", "conversation_id", nil},
	{"sources", "conversation_id", nil},
	{"source_keys", "conversation_id", nil},
	{"declared_artifacts", "conversation_id", nil},
	{"declared_changes", "conversation_id", []string{"seq"}},
}

// tableRows returns the rows of table t of conversation id as sorted JSON texts, each
// string value mapped through ids (a value that is an old id, or a JSON text naming one
// as a string, takes the new one).
func tableRows(t *testing.T, db *store.DB, tt transferTable, id string, ids map[string]string) []string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT * FROM `+tt.name+` WHERE `+tt.conv+` = ?`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := map[string]any{}
		for i, c := range cols {
			if slices.Contains(tt.drop, c) {
				continue
			}
			v := vals[i]
			if s, ok := v.(string); ok {
				if to, ok := ids[s]; ok {
					v = to
				} else {
					for from, to := range ids {
						s = strings.ReplaceAll(s, `"`+from+`"`, `"`+to+`"`)
					}
					v = s
				}
			}
			row[c] = v
		}
		b, _ := json.Marshal(row)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// idMapping derives, independently of the importer, which new id each old id of
// conversation old became in conversation new: messages are matched by creation time
// and text, declared artifacts by identity.
func idMapping(t *testing.T, src, dst *store.DB, old, new string) map[string]string {
	t.Helper()
	ids := map[string]string{old: new}
	key := func(db *store.DB, id string) map[string]string {
		out := map[string]string{}
		rows, err := db.SQL().Query(`SELECT id, created_at || ' ' || content FROM messages WHERE conversation_id = ?`, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var mid, k string
			if err := rows.Scan(&mid, &k); err != nil {
				t.Fatal(err)
			}
			if _, dup := out[k]; dup {
				t.Fatalf("two messages share %q", k)
			}
			out[k] = mid
		}
		return out
	}
	newByKey := key(dst, new)
	for k, mid := range key(src, old) {
		if newByKey[k] == "" || newByKey[k] == mid {
			t.Fatalf("message %s (%s) has no new copy: %q", mid, k, newByKey[k])
		}
		ids[mid] = newByKey[k]
	}
	decl, err := src.ListDeclared(context.Background(), old)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decl {
		ids[d.ID] = store.DeclaredID(new + strings.TrimPrefix(d.IdentityKey, old))
		ids[d.IdentityKey] = new + strings.TrimPrefix(d.IdentityKey, old)
	}
	return ids
}

// compareConversations compares conversation old of src with new of dst table by table
// through the id mapping, then the upload originals and the workspace files.
func compareConversations(t *testing.T, src, dst *Core, old, new string) {
	t.Helper()
	ids := idMapping(t, src.Store(), dst.Store(), old, new)
	for _, tt := range comparedTables {
		want := tableRows(t, src.Store(), tt, old, ids)
		got := tableRows(t, dst.Store(), tt, new, nil)
		if len(want) == 0 && tt.name != "artifact_drafts" {
			t.Errorf("%s: the original has no rows", tt.name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s differs:\n got %s\nwant %s", tt.name, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
	}
	blobs, err := src.Store().ConversationBlobs(context.Background(), old)
	if err != nil || len(blobs) == 0 {
		t.Fatalf("blobs of the original: %v, %v", blobs, err)
	}
	for _, b := range blobs {
		a, _ := os.ReadFile(filepath.Join(src.DataDir(), config.BlobsDir, b))
		c, err := os.ReadFile(filepath.Join(dst.DataDir(), config.BlobsDir, b))
		if err != nil || !bytes.Equal(a, c) || len(a) == 0 {
			t.Errorf("upload original %s: %q, %v; want %q", b, c, err, a)
		}
	}
	ws, err := dst.Workspace(context.Background(), new)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out", "report.md")); err != nil || string(b) != reportFile {
		t.Errorf("declared workspace file in the copy: %q, %v", b, err)
	}
}

// fileDialogs is the window's save and open dialogs in a test: it records the folder
// each opened in and answers with a path in dir.
type fileDialogs struct {
	mu         sync.Mutex
	dir        string // where the answers are
	saved      string // the answer of the save dialog
	opened     string // the answer of the open dialog
	savedIn    []string
	openedIn   []string
	saveTitles []string
}

func (d *fileDialogs) SaveFile(dir, name string) (string, error) {
	return d.SaveFileAs("", dir, name, "", "")
}

func (d *fileDialogs) SaveFileAs(title, dir, _, _, pattern string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.savedIn, d.saveTitles = append(d.savedIn, dir), append(d.saveTitles, title+" "+pattern)
	return d.saved, nil
}

func (d *fileDialogs) OpenFileOf(_, dir, _, _ string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.openedIn = append(d.openedIn, dir)
	return d.opened, nil
}

// TestConversationFileRoundTrip is the acceptance test of conversation files: a
// conversation made by real runs (two branches, artifact versions, sources, a declared
// link and workspace file, an upload, a feedback event) is exported as browser mode does
// and imported into a FRESH data directory; every table's rows are equal through the id
// mapping, the upload originals and the workspace file are there, and the copy is in the
// conversation list and opens with both branches. Importing the same file again gives a
// second copy; importing it into the data directory it came from leaves the original
// untouched.
func TestConversationFileRoundTrip(t *testing.T) {
	w := apptest.NewWorld(t, "native", researchWithLinks)
	src := newCore(t, w)
	conv := conversationFixture(t, src)
	exp, err := (&ConversationService{src}).Export(conv)
	if err != nil {
		t.Fatal(err)
	}
	title := engine.QuestionTitle(apptest.Question) // its first file came first, but the first question names it
	if exp.SavedPath != "" || len(exp.Data) == 0 || exp.Filename != "How_far_away_is_the_Moon.artifactflow.zip" || exp.MIME != "application/zip" {
		t.Fatalf("export = %+v (%d bytes)", exp.Filename, len(exp.Data))
	}

	fresh := apptest.NewWorld(t, "native", nil)
	dst := newCore(t, fresh)
	convs := &ConversationService{dst}
	imp, err := convs.Import(UploadFile{Name: exp.Filename, Data: exp.Data})
	if err != nil {
		t.Fatal(err)
	}
	if imp.ConversationID == "" || imp.ConversationID == conv || imp.Title != title || imp.Messages != 2 ||
		imp.Uploads != 2 || imp.Files != 1 || imp.Artifacts < 3 {
		t.Errorf("import = %+v", imp)
	}
	compareConversations(t, src, dst, conv, imp.ConversationID)
	compareFeedback(t, src, dst, conv, imp.ConversationID)

	list, err := convs.List()
	if err != nil || len(list) != 1 || list[0].ID != imp.ConversationID || list[0].Title != title {
		t.Fatalf("conversation list after import = %+v, %v", list, err)
	}
	d, err := convs.Get(imp.ConversationID)
	if err != nil || len(d.Messages) != 1 || d.Messages[0].Content != hiQuestion || len(d.Messages[0].SiblingIDs) != 2 {
		t.Fatalf("imported conversation = %+v, %v", d, err)
	}
	d, err = convs.SwitchBranch(imp.ConversationID, d.Messages[0].SiblingIDs[0])
	if err != nil || d.Messages[0].Content != apptest.Question || d.Messages[0].Response != apptest.FinalReply {
		t.Fatalf("the research branch of the copy = %+v, %v", d, err)
	}
	// The question's picture came along: named with the question, its original readable.
	if ims := d.Messages[0].Images; len(ims) != 1 || ims[0].Name != "chart.png" || ims[0].MIME != "image/png" {
		t.Fatalf("the copy's question pictures = %+v", ims)
	} else if im, err := (&ArtifactService{dst}).Image(imp.ConversationID, ims[0].ArtifactID); err != nil || !bytes.Equal(im.Data, tinyPNG(t)) {
		t.Errorf("the copy's picture = %d bytes, %v", len(im.Data), err)
	}

	again, err := convs.Import(UploadFile{Name: exp.Filename, Data: exp.Data})
	if err != nil || again.ConversationID == imp.ConversationID {
		t.Fatalf("second import = %+v, %v; want a second copy", again, err)
	}
	if list, _ := convs.List(); len(list) != 2 {
		t.Errorf("after a second import the list holds %d conversations, want 2", len(list))
	}
	compareConversations(t, src, dst, conv, again.ConversationID)

	before := tableRows(t, src.Store(), comparedTables[3], conv, nil)
	home, err := (&ConversationService{src}).Import(UploadFile{Data: exp.Data})
	if err != nil {
		t.Fatal(err)
	}
	if after := tableRows(t, src.Store(), comparedTables[3], conv, nil); !slices.Equal(after, before) {
		t.Error("importing into the data directory it came from changed the original's events")
	}
	compareConversations(t, src, src, conv, home.ConversationID)
	for _, c := range []*Core{src, dst} {
		if err := c.Store().IntegrityCheck(context.Background()); err != nil {
			t.Error(err)
		}
	}
}

// TestConversationFileDialogs: in the window, Export opens the save dialog in the
// Documents folder (never the conversation's workspace or the data directory) and writes
// the file where the user chose, which RevealExport may then show; ImportFile opens the
// open dialog in Documents and imports the chosen file; a cancelled dialog writes and
// imports nothing; browser mode refuses ImportFile (it has no open dialog).
func TestConversationFileDialogs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	docs := filepath.Join(home, "Documents")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	w := apptest.EchoWorld(t)
	core := newCore(t, w)
	res, err := (&ChatService{core}).Send(SendRequest{Content: "Keep this"})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(core, res.ConversationID)
	convs := &ConversationService{core}

	if _, err := convs.ImportFile(); !errors.Is(err, ErrNoFolderDialog) {
		t.Errorf("ImportFile without a dialog = %v, want desktop_only", err)
	}
	d := &fileDialogs{}
	core.SetDialogs(d)
	out, err := convs.Export(res.ConversationID)
	if err != nil || out.SavedPath != "" || len(out.Data) != 0 {
		t.Fatalf("cancelled export = %+v, %v", out, err)
	}
	d.saved = filepath.Join(t.TempDir(), "chosen.artifactflow.zip")
	out, err = convs.Export(res.ConversationID)
	if err != nil || out.SavedPath != d.saved {
		t.Fatalf("export = %+v, %v", out, err)
	}
	ws, _ := core.Workspace(context.Background(), res.ConversationID)
	for _, dir := range d.savedIn {
		if dir != docs || strings.HasPrefix(dir, core.DataDir()) || dir == ws {
			t.Errorf("save dialog opened in %q, want %q", dir, docs)
		}
	}
	if !strings.Contains(d.saveTitles[0], "Export conversation") || !strings.Contains(d.saveTitles[0], "*.zip") {
		t.Errorf("save dialog = %q", d.saveTitles[0])
	}
	if err := core.revealExport(out.SavedPath, func(context.Context, string, bool) error { return nil }); err != nil {
		t.Errorf("RevealExport of the exported file: %v", err)
	}

	if got, err := convs.ImportFile(); err != nil || got.ConversationID != "" {
		t.Fatalf("cancelled import = %+v, %v", got, err)
	}
	d.opened = out.SavedPath
	got, err := convs.ImportFile()
	if err != nil || got.ConversationID == "" || got.Title != "Keep this" {
		t.Fatalf("import = %+v, %v", got, err)
	}
	if len(d.openedIn) != 2 || d.openedIn[1] != docs {
		t.Errorf("open dialog opened in %q, want %q", d.openedIn, docs)
	}
	d.opened = filepath.Join(t.TempDir(), "not-a-conversation.zip")
	if err := os.WriteFile(d.opened, []byte("PK garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = convs.ImportFile()
	ae := ToAppError(err)
	if ae == nil || ae.Code != CodeInvalidRequest || ae.Fields["reason"] != "invalid_file" || !errors.Is(err, convfile.ErrInvalidFile) ||
		ae.Message != "The file is not a valid ArtifactFlow conversation file, or it is damaged: not a zip archive (zip: not a valid zip file)" ||
		ae.Detail != "not a zip archive (zip: not a valid zip file)" {
		t.Errorf("import of a bad file = %#v, want invalid_request, reason invalid_file, naming the problem", ae)
	}
	if list, _ := convs.List(); len(list) != 2 {
		t.Errorf("list holds %d conversations, want the original and one copy", len(list))
	}
}

// TestExportWhileRunning: a conversation exported while its run writes is the state of
// one instant: its running message comes in as interrupted, and the file imports.
func TestExportWhileRunning(t *testing.T) {
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	w := apptest.NewWorld(t, "native", func(w *apptest.World) llmtest.Handler {
		return func(req openai.ChatCompletionRequest, _ int) llmtest.Reply {
			if len(apptest.ToolResults(req)) == 0 {
				return w.ToolCall("create_artifact", map[string]any{"id": "notes", "content_type": "markdown", "title": "Notes", "content": "# Notes"})
			}
			once.Do(func() { close(held) })
			<-release
			return llmtest.Reply{Content: "done"}
		}
	})
	core := newCore(t, w)
	res, err := (&ChatService{core}).Send(SendRequest{Content: "Write notes"})
	if err != nil {
		t.Fatal(err)
	}
	<-held
	defer func() { close(release); waitIdle(core, res.ConversationID) }()
	var buf bytes.Buffer
	if _, err := core.ExportConversation(context.Background(), res.ConversationID, &buf); err != nil {
		t.Fatal(err)
	}
	if core.Engine().Active(res.ConversationID) == nil {
		t.Fatal("the run ended before the export: the test proves nothing")
	}
	imp, err := core.ImportConversation(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&ConversationService{core}).Get(imp.ConversationID)
	if err != nil || len(d.Messages) != 1 || d.Messages[0].Status != store.StatusInterrupted {
		t.Fatalf("copy of a running conversation = %+v, %v", d, err)
	}
	if d.Conversation.Running {
		t.Error("the copy shows as running")
	}
}

// TestImportErrorMessages: a file that cannot be imported gives invalid_request with the
// kind of problem in Fields["reason"] (the page words it in the user's language), what
// exactly is wrong in Detail, and a sentence with both in Message.
func TestImportErrorMessages(t *testing.T) {
	core := newCore(t, apptest.EchoWorld(t))
	zipOf := func(name, body string) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create(name)
		_, _ = w.Write([]byte(body))
		_ = zw.Close()
		return buf.Bytes()
	}
	cases := []struct {
		name, reason, detail string
		file                 []byte
		err                  error
	}{
		{"not a zip", "invalid_file", "not a zip archive (zip: not a valid zip file)", []byte("hello"), nil},
		{"a zip without a manifest", "invalid_file", "it has no manifest.json", zipOf("notes.txt", "x"), nil},
		{"a newer version", "too_new", "file version 9, this one reads up to 1",
			zipOf("manifest.json", `{"format":"artifactflow-conversation","version":9,"schema":8}`), nil},
		{"too large", "too_large", "entry \"x\" inflates to 9 bytes, the limit is 8", nil,
			fmt.Errorf("convfile: import: %w: entry \"x\" inflates to 9 bytes, the limit is 8", convfile.ErrTooLarge)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err
			if err == nil {
				_, err = core.ImportConversation(context.Background(), bytes.NewReader(c.file), int64(len(c.file)))
			} else {
				err = importError(err)
			}
			ae := ToAppError(err)
			if ae.Code != CodeInvalidRequest || ae.Fields["reason"] != c.reason || ae.Detail != c.detail || !strings.HasSuffix(ae.Message, ": "+c.detail) {
				t.Errorf("got %#v, want reason %s, detail %q", ae, c.reason, c.detail)
			}
		})
	}
	if err := importError(context.Canceled); !errors.Is(err, context.Canceled) || ToAppError(err).Code != CodeCancelled {
		t.Errorf("a cancelled import = %v, want it as it is", err)
	}
}

// tinyPNG is a 3×2 PNG picture.
func tinyPNG(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
