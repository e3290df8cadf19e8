package app

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/netcause"
)

// closedPort returns "127.0.0.1:N" where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestSettingsChecksSayWhatWentWrong: the dialog's checks tell a refused key from a server
// that is not running, by kind, so the dialog can say so in the UI's language: a 401 on
// Test connection and on the model list is a refused key (the model list used to call it
// a refused request, "check the model name"); a model endpoint or SearXNG with nothing
// listening is "refused" at that address, and a refused loopback endpoint on a local
// server's port names that server (Ollama on 11434).
func TestSettingsChecksSayWhatWentWrong(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core := newCore(t, w)
	svc := &SettingsService{core}
	refusing := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusUnauthorized)
		rw.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
	}))
	t.Cleanup(refusing.Close)

	res := svc.TestConnection(refusing.URL+"/v1", "sk-wrong", "test-model", false)
	if res.OK || res.Kind != TroubleAuth || res.Status != http.StatusUnauthorized {
		t.Errorf("Test connection on a 401 = %+v, want kind auth, status 401", res)
	}
	_, err := svc.ListModels(refusing.URL+"/v1", "sk-wrong", false)
	ae := ToAppError(err)
	if ae.Code != CodeModelAuth || ae.Fields["reason"] != TroubleAuth || ae.Fields["status"] != "401" {
		t.Errorf("model list on a 401 = %s %v (%s), want model_auth with reason auth", ae.Code, ae.Fields, ae.Message)
	}

	dead := "http://" + closedPort(t) + "/v1"
	res = svc.TestConnection(dead, "", "test-model", false)
	if res.Kind != netcause.Refused || res.Host != strings.TrimSuffix(dead, "/v1") || res.Server != "" {
		t.Errorf("Test connection with nothing listening = %+v, want refused at %s", res.Trouble, dead)
	}
	_, err = svc.ListModels(dead, "", false)
	if ae := ToAppError(err); ae.Code != CodeModelUnreachable || ae.Fields["reason"] != netcause.Refused || ae.Fields["host"] != strings.TrimSuffix(dead, "/v1") {
		t.Errorf("model list with nothing listening = %s %v", ae.Code, ae.Fields)
	}

	searx := "http://" + closedPort(t)
	sr := svc.TestSearch(config.ProviderSearXNG, "", searx)
	if sr.OK || sr.Kind != netcause.Refused || !strings.HasPrefix(sr.Error, "searxng search at "+strings.TrimPrefix(searx, "http://")+": connection refused") {
		t.Errorf("SearXNG test with nothing listening = %+v", sr)
	}
	if sr := svc.TestSearch(config.ProviderBrave, apptest.BadBraveKey, ""); sr.Kind != TroubleAuth {
		t.Errorf("Brave test with a refused key = %+v, want kind auth", sr)
	}
}

// TestModelTroubleNamesTheLocalServer: a refused connection to a loopback endpoint on a
// local server's usual port names that server, whatever the address was spelled as.
func TestModelTroubleNamesTheLocalServer(t *testing.T) {
	_, err := http.Get("http://" + closedPort(t) + "/v1/models")
	if err == nil {
		t.Fatal("a closed port answered")
	}
	for _, tc := range []struct{ base, server, host string }{
		{"http://localhost:11434/v1", "Ollama", "http://localhost:11434"},
		{"http://127.0.0.1:11434/v1", "Ollama", "http://127.0.0.1:11434"},
		{"http://127.0.0.1:1234/v1", "LM Studio", "http://127.0.0.1:1234"},
		{"http://127.0.0.1:9999/v1", "", "http://127.0.0.1:9999"},
		{"http://models.example:11434/v1", "", "http://models.example:11434"},
	} {
		tr := modelTrouble(err, tc.base)
		if tr.Kind != netcause.Refused || tr.Server != tc.server || tr.Host != tc.host {
			t.Errorf("modelTrouble(refused, %s) = %+v, want server %q at %s", tc.base, tr, tc.server, tc.host)
		}
	}
	if tr := modelTrouble(errors.New("boom"), "http://localhost:11434/v1"); tr.Kind != "" {
		t.Errorf("an error of no known kind gave %+v", tr)
	}
}
