package browser

import (
	"encoding/json"
	"net/http"
	"testing"

	"artifactflow/app"
	"artifactflow/app/internal/apptest"
)

// TestBoundErrorCode shows the code crossing the boundary: the window's form (the text
// FormatBoundError gives Wails) and browser mode's JSON body, for a missing conversation
// and for invalid settings with their fields.
func TestBoundErrorCode(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core, srv, hs := newBrowserServer(t, w, "")
	_, err := core.Services().Conversations.Get("missing")
	var desktop app.AppError
	if jerr := json.Unmarshal([]byte(app.FormatBoundError(err).(string)), &desktop); jerr != nil || desktop.Code != app.CodeNotFound || desktop.Message == "" {
		t.Fatalf("window form of %v = %+v (%v)", err, desktop, jerr)
	}
	_, err = core.Services().Settings.Save(app.SettingsInput{MaxUploadMB: 99999})
	var settings app.AppError
	if jerr := json.Unmarshal([]byte(app.FormatBoundError(err).(string)), &settings); jerr != nil ||
		settings.Code != app.CodeInvalidSettings || settings.Fields["max_upload_mb"] == "" {
		t.Fatalf("window form of %v = %+v (%v)", err, settings, jerr)
	}
	for _, tc := range []struct{ path, body, code, field string }{
		{"/api/bind/ConversationService/Get", `["missing"]`, app.CodeNotFound, ""},
		{"/api/bind/SettingsService/Save", `[{"max_upload_mb":99999}]`, app.CodeInvalidSettings, "max_upload_mb"},
	} {
		status, body := apptest.Post(t, hs.URL+tc.path, srv.Token(), tc.body)
		var got struct {
			app.AppError
			Error string `json:"error"`
		}
		if status != http.StatusInternalServerError || json.Unmarshal([]byte(body), &got) != nil || got.Code != tc.code ||
			got.Error == "" || (tc.field != "" && got.Fields[tc.field] == "") {
			t.Fatalf("%s -> %d %s, want 500 with code %s", tc.path, status, body, tc.code)
		}
	}
}
