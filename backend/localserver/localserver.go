// Package localserver finds model servers running on this computer: it asks the usual
// ports of Ollama, LM Studio, llama.cpp and vLLM on the loopback address 127.0.0.1 for
// their model lists, all at once, each request bounded by a short timeout, and reports the
// ones that answered with a model list. It never asks any other address.
package localserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Host is the only address probed: the IPv4 loopback address.
const Host = "127.0.0.1"

// DefaultTimeout bounds each probe request (connect, headers and body together).
const DefaultTimeout = 300 * time.Millisecond

// maxBody caps a model list read from a probe, in bytes; a server answering with more is
// not a model server worth offering.
const maxBody = 4 << 20

// Candidate is one server to look for: its display name, its port on Host, and whether it
// is Ollama, whose native model list (GET /api/tags) is asked when GET /v1/models fails.
type Candidate struct {
	Name   string
	Port   int
	Ollama bool
}

// Candidates are the usual local model servers on their default ports: Ollama 11434, LM
// Studio 1234, llama.cpp's server 8080, vLLM 8000.
func Candidates() []Candidate {
	return []Candidate{
		{Name: "Ollama", Port: 11434, Ollama: true},
		{Name: "LM Studio", Port: 1234},
		{Name: "llama.cpp", Port: 8080},
		{Name: "vLLM", Port: 8000},
	}
}

// Server is a local server that answered: the candidate's name, the OpenAI-compatible base
// URL to use ("http://127.0.0.1:<port>/v1") and the ids of the models it lists, sorted
// (empty when it lists none, as a server with no model loaded does).
type Server struct {
	Name    string   `json:"name"`
	BaseURL string   `json:"base_url"`
	Models  []string `json:"models"`
}

// Find probes every candidate on Host at once (GET /v1/models; for Ollama also GET
// /api/tags when that fails), each request bounded by timeout (0 = DefaultTimeout), and
// returns the servers that answered 200 with a model list ({"data":[{"id":…}]} or Ollama's
// {"models":[{"name":…}]}), in the candidates' order. A port that is closed, answers
// something else or does not answer within the timeout is left out; redirects are not
// followed and no proxy is used, so nothing but Host is contacted. Find returns when every
// probe has ended or ctx is done, whichever is first.
func Find(ctx context.Context, candidates []Candidate, timeout time.Duration) []Server {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	defer client.CloseIdleConnections()
	found := make([]*Server, len(candidates))
	var wg sync.WaitGroup
	for i, c := range candidates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i] = probe(ctx, client, c, timeout)
		}()
	}
	wg.Wait()
	out := []Server{}
	for _, s := range found {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// probe asks one candidate for its models; nil when it did not answer with a list.
func probe(ctx context.Context, client *http.Client, c Candidate, timeout time.Duration) *Server {
	if c.Port <= 0 || c.Port > 65535 {
		return nil
	}
	root := "http://" + Host + ":" + strconv.Itoa(c.Port)
	models, err := list(ctx, client, root+"/v1/models", timeout, openAIModels)
	if err != nil && c.Ollama {
		models, err = list(ctx, client, root+"/api/tags", timeout, ollamaModels)
	}
	if err != nil {
		return nil
	}
	slices.Sort(models)
	return &Server{Name: c.Name, BaseURL: root + "/v1", Models: slices.Compact(models)}
}

// errNotList is returned for an answer that is not a model list.
var errNotList = errors.New("not a model list")

// list GETs url within timeout and parses the body with parse.
func list(ctx context.Context, client *http.Client, url string, timeout time.Duration, parse func([]byte) ([]string, error)) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxBody {
		return nil, errNotList
	}
	return parse(body)
}

// openAIModels parses GET /v1/models: {"data":[{"id":"…"}, …]}.
func openAIModels(body []byte) ([]string, error) {
	var v struct {
		Data *[]struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Data == nil {
		return nil, errNotList
	}
	out := []string{}
	for _, m := range *v.Data {
		if m.ID != "" {
			out = append(out, m.ID)
		}
	}
	return out, nil
}

// ollamaModels parses Ollama's GET /api/tags: {"models":[{"name":"…"}, …]}.
func ollamaModels(body []byte) ([]string, error) {
	var v struct {
		Models *[]struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Models == nil {
		return nil, errNotList
	}
	out := []string{}
	for _, m := range *v.Models {
		if name := m.Name; name != "" {
			out = append(out, name)
		} else if m.Model != "" {
			out = append(out, m.Model)
		}
	}
	return out, nil
}
