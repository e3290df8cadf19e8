package app

import (
	openai "github.com/sashabaranov/go-openai"
)

// TestKillDashNine (SIGKILL mid-run, then recovery) is a window test now:
// app/windowtest/crash_test.go, run by make window-test against the built binary.

func lastUser(req openai.ChatCompletionRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == openai.ChatMessageRoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}
