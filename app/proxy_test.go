package app

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"artifactflow/app/internal/apptest"
	"artifactflow/backend/config"
	"artifactflow/backend/llm"
	"artifactflow/backend/llm/llmtest"
	"artifactflow/backend/netproxy/proxytest"
)

// renamed returns raw (a loopback URL of a test server) with its host replaced by name,
// so that only a proxy that maps name back to loopback can reach it.
func renamed(t *testing.T, raw, name string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = name + ":" + u.Port()
	return u.String()
}

// TestProxySettingCarriesEveryRequest: with a proxy in Settings, the model list, Test
// connection, a run's model call, web search and web_fetch all go through it. The world's
// servers are reached under names no resolver knows, which only the test proxy maps to
// loopback, so a request that bypassed the proxy would fail.
func TestProxySettingCarriesEveryRequest(t *testing.T) {
	w := apptest.NewWorld(t, "native", func(*apptest.World) llmtest.Handler {
		return func(openai.ChatCompletionRequest, int) llmtest.Reply { return llmtest.Reply{Content: "ok"} }
	})
	w.Model.SetModels("test-model")
	proxy := proxytest.New(t, map[string]string{"models.example": "127.0.0.1", "searx.example": "127.0.0.1", "pages.example": "127.0.0.1"})
	o := w.Overrides()
	o.BaseURL = renamed(t, w.Model.URL(), "models.example")
	o.SearxngURL = renamed(t, w.Searx.URL, "searx.example")
	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	svc := &SettingsService{core}
	page := renamed(t, w.PageURL, "pages.example")

	if _, err := svc.Save(SettingsInput{Proxy: new(proxy.URL().String()), Model: "test-model"}); err != nil {
		t.Fatal(err)
	}
	if ms, err := svc.ListModels("", "", false); err != nil || len(ms) != 1 || ms[0].ID != "test-model" {
		t.Fatalf("ListModels through the proxy = %v, %v", ms, err)
	}
	if res := svc.TestConnection("", "", "", false); !res.OK {
		t.Fatalf("TestConnection through the proxy: %s", res.Error)
	}
	if res := svc.TestSearch(config.ProviderSearXNG, "", ""); !res.OK || res.Results == 0 {
		t.Fatalf("TestSearch through the proxy: %+v", res)
	}
	d, err := core.deps()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := d.Fetcher.Fetch(context.Background(), page); err != nil || !strings.Contains(p.Content, apptest.Fact) {
		t.Fatalf("web_fetch through the proxy: %v", err)
	}
	if _, err := d.Model.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}, nil); err != nil {
		t.Fatalf("a run's model call through the proxy: %v", err)
	}
	if _, err := d.Searcher.Search(context.Background(), "moon", 3); err != nil {
		t.Fatalf("a run's web search through the proxy: %v", err)
	}
	seen := strings.Join(proxy.Seen(), " ")
	for _, host := range []string{"models.example", "searx.example", "pages.example"} {
		if !strings.Contains(seen, host) {
			t.Errorf("no request for %s went through the proxy (it saw %s)", host, seen)
		}
	}
}

// TestProxySettingInTheDialog: the dialog shows the proxy with its password hidden and
// where it comes from; a proxy left as shown keeps the stored password; a bad one is
// refused by Save with the field named and nothing written; --proxy holds the field.
func TestProxySettingInTheDialog(t *testing.T) {
	w := apptest.NewWorld(t, "native", nil)
	core, err := NewCore(context.Background(), Options{DataDir: w.DataDir, Overrides: w.Overrides()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.Close(context.Background()) })
	svc := &SettingsService{core}
	t.Setenv("HTTPS_PROXY", "")
	t.Setenv("https_proxy", "")
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("http_proxy", "")
	t.Setenv("ALL_PROXY", "")
	t.Setenv("all_proxy", "")

	v, err := svc.Save(SettingsInput{Proxy: new(" http://me:s3cret@127.0.0.1:7890 ")})
	if err != nil {
		t.Fatal(err)
	}
	if v.Proxy != "http://me:xxxxx@127.0.0.1:7890" || v.ProxySource != "setting" || v.ProxyInEffect != "http://me:xxxxx@127.0.0.1:7890" {
		t.Fatalf("view = %q %q %q", v.Proxy, v.ProxySource, v.ProxyInEffect)
	}
	if _, err := svc.Save(SettingsInput{Proxy: new(v.Proxy), Revision: v.Revision, MaxUploadMB: v.MaxUploadMB}); err != nil {
		t.Fatal(err)
	}
	if s, _ := config.Load(w.DataDir); s.Proxy != "http://me:s3cret@127.0.0.1:7890" {
		t.Fatalf("stored proxy after saving it as shown = %q", s.Proxy)
	}
	_, err = svc.Save(SettingsInput{Proxy: new("127.0.0.1:7890")})
	if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "proxy:") {
		t.Fatalf("Save of a proxy without scheme = %v", err)
	}
	if s, _ := config.Load(w.DataDir); s.Proxy != "http://me:s3cret@127.0.0.1:7890" {
		t.Fatalf("a refused save changed the stored proxy to %q", s.Proxy)
	}
	if v, _ := svc.Save(SettingsInput{Proxy: new("NONE")}); v.Proxy != "direct" || v.ProxySource != "direct" || v.ProxyInEffect != "" {
		t.Fatalf("none: view = %q %q %q", v.Proxy, v.ProxySource, v.ProxyInEffect)
	}
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
	if v, _ := svc.Save(SettingsInput{Proxy: new("")}); v.Proxy != "" || v.ProxySource != "environment" || v.ProxyInEffect != "http://127.0.0.1:3128" {
		t.Fatalf("system: view = %q %q %q", v.Proxy, v.ProxySource, v.ProxyInEffect)
	}

	o := w.Overrides()
	o.Proxy = "socks5://127.0.0.1:1080"
	flagged, err := NewCore(context.Background(), Options{DataDir: t.TempDir(), Overrides: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flagged.Close(context.Background()) })
	fv, err := (&SettingsService{flagged}).Get()
	if err != nil {
		t.Fatal(err)
	}
	if fv.Proxy != "socks5://127.0.0.1:1080" || fv.SetBy["proxy"] != "--proxy" {
		t.Fatalf("flag: proxy %q set by %q", fv.Proxy, fv.SetBy["proxy"])
	}
	if !slices.Contains([]string{"setting"}, fv.ProxySource) {
		t.Fatalf("flag: source %q", fv.ProxySource)
	}
}
