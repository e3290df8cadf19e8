package config

import (
	"encoding/json"
	"testing"
)

func TestVisionByName(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  bool
	}{
		{"gpt-4o", true}, {"gpt-4o-mini", true}, {"GPT-4.1-mini", true}, {"gpt-5", true}, {"o3", true}, {"o4-mini", true},
		{"qwen-vl-max", true}, {"qwen2.5-vl-72b-instruct", true}, {"Qwen/Qwen2.5-VL-7B-Instruct", true}, {"qvq-72b-preview", true},
		{"llava:13b", true}, {"llama3.2-vision:11b", true}, {"gemma3:27b", true}, {"minicpm-v", true},
		{"claude-3-5-sonnet", true}, {"anthropic/claude-sonnet-4", true}, {"gemini-2.5-pro", true}, {"glm-4v-plus", true},
		{"pixtral-12b", true}, {"deepseek-vl2", true},
		{"gpt-3.5-turbo", false}, {"deepseek-chat", false}, {"qwen2.5:7b", false}, {"llama3.1:8b", false}, {"", false},
		{"mistral-large", false}, {"qwen3-32b", false}, {"o1-mini", false}, {"o3-mini", false}, {"openai/o1-preview", false}, {"o1", true},
	} {
		if got := VisionByName(tc.model); got != tc.want {
			t.Errorf("VisionByName(%q) = %v, want %v", tc.model, got, tc.want)
		}
	}
}

// The user's switch wins over the name, survives a change of the model's context window,
// and a switch equal to the name's answer is not stored.
func TestVisionFor(t *testing.T) {
	var s Settings
	if !s.VisionFor("gpt-4o") || s.VisionFor("deepseek-chat") {
		t.Fatal("without a choice, vision follows the name")
	}
	s = s.WithModelVision("gpt-4o", false).WithModelVision("deepseek-chat", true)
	if s.VisionFor("gpt-4o") || !s.VisionFor("deepseek-chat") {
		t.Fatalf("the user's switch does not win: %+v", s.Models)
	}
	mc := s.Models["gpt-4o"]
	mc.ContextWindow = 64000
	s = s.WithModelContext("gpt-4o", mc)
	if s.VisionFor("gpt-4o") {
		t.Error("setting the context window lost the vision switch")
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Settings
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.VisionFor("gpt-4o") || !back.VisionFor("deepseek-chat") {
		t.Errorf("the switch does not survive config.json: %s", b)
	}
	back = back.WithModelVision("deepseek-chat", false)
	if _, ok := back.Models["deepseek-chat"]; ok {
		t.Errorf("a switch equal to the name's answer is stored: %+v", back.Models)
	}
}
