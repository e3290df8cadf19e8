package llmtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
)

// waitEnd returns how the response to call ended, failing the test after 10 seconds.
func waitEnd(t *testing.T, srv *Server, call int) End {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	end, err := srv.WaitEnd(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	return end
}

// postCtx posts a streaming request with ctx; the body is closed when the test ends.
func postCtx(t *testing.T, ctx context.Context, srv *Server) (*http.Response, error) {
	t.Helper()
	b, _ := json.Marshal(streamBody("hi"))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		t.Cleanup(func() { _ = resp.Body.Close() })
	}
	return resp, err
}

func TestWaitEnd(t *testing.T) {
	srv := NewServer(t, Script(Reply{Content: "0123456789"}, Reply{Content: "0123456789", BreakAfter: 2}))
	_, _ = io.Copy(io.Discard, post(t, srv, streamBody("1")).Body)
	_, _ = io.Copy(io.Discard, post(t, srv, streamBody("2")).Body)
	if end := waitEnd(t, srv, 0); end.Reason != EndComplete || end.Written == 0 {
		t.Errorf("call 0 ended %+v, want complete with bytes written", end)
	}
	if end := waitEnd(t, srv, 1); end.Reason != EndBroken {
		t.Errorf("call 1 ended %+v, want broken", end)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := srv.WaitEnd(ctx, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting for a call never made: %v, want the context's error", err)
	}
}

// TestHang: each hang point sends exactly what it promises, then holds the connection
// silent until the client gives up, which the server reports as the client gone.
func TestHang(t *testing.T) {
	tests := []struct {
		name       string
		hang       HangPoint
		wantStatus int // 0: no response at all
		wantEvents int
	}{
		{"before headers", HangBeforeHeaders, 0, 0},
		{"after headers", HangAfterHeaders, http.StatusOK, 0},
		{"mid-stream", HangMidStream, http.StatusOK, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t, Script(Reply{Content: "0123456789abcdef", Hang: tt.hang}))
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			resp, err := postCtx(t, ctx, srv)
			if tt.wantStatus == 0 {
				if err == nil {
					t.Fatalf("got status %d; want no response", resp.StatusCode)
				}
			} else {
				if err != nil || resp.StatusCode != tt.wantStatus {
					t.Fatalf("response %v, %v; want status %d", resp, err, tt.wantStatus)
				}
				var events int
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "data: ") {
						events++
					}
				}
				if !errors.Is(sc.Err(), context.DeadlineExceeded) || events != tt.wantEvents {
					t.Errorf("body ended with %v after %d events; want the deadline after %d", sc.Err(), events, tt.wantEvents)
				}
			}
			if end := waitEnd(t, srv, 0); end.Reason != EndClientGone {
				t.Errorf("ended %q, want client gone", end.Reason)
			}
		})
	}
}

func TestNoChoices(t *testing.T) {
	srv := NewServer(t, Script(Reply{Content: "ignored", NoChoices: true}))
	events, err := readEvents(t, post(t, srv, streamBody("hi")))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || !strings.Contains(events[0], `"choices":[]`) || !strings.Contains(events[0], `"usage":{`) || events[1] != "[DONE]" {
		t.Errorf("events %q; want only the usage chunk and [DONE]", events)
	}
}

// TestFlood: every flood stays valid wire format and, at its safety net, ends as a
// complete stream (or error body) that a client could take as an answer.
func TestFlood(t *testing.T) {
	const limit = 100 << 10
	tests := []struct {
		name  string
		flood FloodKind
		// check gets the decoded chunks with choices and the comment count
		check func(t *testing.T, chunks []openai.ChatCompletionStreamResponse, comments int)
	}{
		{"content", FloodContent, func(t *testing.T, chunks []openai.ChatCompletionStreamResponse, _ int) {
			if n := textLen(chunks, func(d openai.ChatCompletionStreamChoiceDelta) string { return d.Content }); n < limit/4 {
				t.Errorf("%d bytes of content", n)
			}
		}},
		{"reasoning", FloodReasoning, func(t *testing.T, chunks []openai.ChatCompletionStreamResponse, _ int) {
			if n := textLen(chunks, func(d openai.ChatCompletionStreamChoiceDelta) string { return d.ReasoningContent }); n < limit/4 {
				t.Errorf("%d bytes of reasoning", n)
			}
		}},
		{"tool arguments", FloodToolArguments, func(t *testing.T, chunks []openai.ChatCompletionStreamResponse, _ int) {
			n := textLen(chunks, func(d openai.ChatCompletionStreamChoiceDelta) string {
				if len(d.ToolCalls) == 1 && *d.ToolCalls[0].Index == 0 {
					return d.ToolCalls[0].Function.Arguments
				}
				return ""
			})
			if n < limit/4 || chunks[0].Choices[0].Delta.ToolCalls[0].ID != "call_flood" {
				t.Errorf("%d bytes of arguments, first delta %+v", n, chunks[0].Choices[0].Delta)
			}
		}},
		{"tool calls", FloodToolCalls, func(t *testing.T, chunks []openai.ChatCompletionStreamResponse, _ int) {
			for i, c := range chunks[:len(chunks)-1] {
				if tc := c.Choices[0].Delta.ToolCalls; len(tc) != 1 || *tc[0].Index != i || tc[0].ID == "" {
					t.Fatalf("chunk %d: %+v; want a new call with index %d", i, c.Choices[0].Delta, i)
				}
			}
		}},
		{"empty chunks", FloodEmptyChunks, func(t *testing.T, chunks []openai.ChatCompletionStreamResponse, _ int) {
			if len(chunks) != 1 {
				t.Errorf("%d chunks with choices; want only the finish chunk", len(chunks))
			}
		}},
		{"comments", FloodComments, func(t *testing.T, _ []openai.ChatCompletionStreamResponse, comments int) {
			if comments < limit/len(": keep-alive\n")/2 {
				t.Errorf("%d comment lines", comments)
			}
		}},
		{"one line", FloodLine, func(t *testing.T, chunks []openai.ChatCompletionStreamResponse, _ int) {
			if len(chunks) != 2 || len(chunks[0].Choices[0].Delta.Content) < limit-100 {
				t.Errorf("%d chunks, the first with %d bytes of content; want one long line and the finish", len(chunks), len(chunks[0].Choices[0].Delta.Content))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t, Script(Reply{Flood: tt.flood, FloodLimit: limit}))
			resp := post(t, srv, streamBody("hi"))
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			var chunks []openai.ChatCompletionStreamResponse
			comments, done := 0, false
			for _, line := range strings.Split(string(body), "\n") {
				switch {
				case line == "":
				case strings.HasPrefix(line, ":"):
					comments++
				case line == "data: [DONE]":
					done = true
				case strings.HasPrefix(line, "data: "):
					var c openai.ChatCompletionStreamResponse
					if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &c); err != nil {
						t.Fatalf("chunk %.80q...: %v", line, err)
					}
					if len(c.Choices) > 0 {
						chunks = append(chunks, c)
					}
				default:
					t.Fatalf("line %.80q is not SSE", line)
				}
			}
			if !done || len(chunks) == 0 || chunks[len(chunks)-1].Choices[0].FinishReason != openai.FinishReasonStop {
				t.Fatalf("the flood did not end as a complete stream ([DONE] %v, %d chunks)", done, len(chunks))
			}
			tt.check(t, chunks, comments)
			if end := waitEnd(t, srv, 0); end.Reason != EndFloodLimit || end.Written < limit || end.Written != int64(len(body)) {
				t.Errorf("ended %+v after a %d-byte body; want the flood limit", end, len(body))
			}
		})
	}
}

func textLen(chunks []openai.ChatCompletionStreamResponse, text func(openai.ChatCompletionStreamChoiceDelta) string) int {
	n := 0
	for _, c := range chunks {
		n += len(text(c.Choices[0].Delta))
	}
	return n
}

func TestFloodErrorBody(t *testing.T) {
	const limit = 100 << 10
	srv := NewServer(t, Script(Reply{Status: 502, Flood: FloodErrorBody, FloodLimit: limit}))
	resp := post(t, srv, streamBody("hi"))
	var body struct {
		Error struct{ Message, Type string } `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 502 || len(body.Error.Message) < limit-100 || body.Error.Type != "server_error" {
		t.Errorf("status %d, %d-byte message of type %q", resp.StatusCode, len(body.Error.Message), body.Error.Type)
	}
}
