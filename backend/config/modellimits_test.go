package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestModelCallLimits: the model idle timeout (seconds) and the answer size cap (MiB) are
// 0 (the default) or within their bounds; a bad value is invalid_settings naming its
// field, and WithDefaults fills in and clamps what a hand-edited config.json holds.
func TestModelCallLimits(t *testing.T) {
	valid := []struct {
		name string
		s    Settings
		bad  string // the field named in the error; "" = valid
	}{
		{"defaults", Settings{}, ""},
		{"shortest idle timeout", Settings{ModelIdleTimeoutSeconds: MinModelIdleTimeoutSeconds}, ""},
		{"longest idle timeout", Settings{ModelIdleTimeoutSeconds: MaxModelIdleTimeoutSeconds}, ""},
		{"idle timeout too short", Settings{ModelIdleTimeoutSeconds: MinModelIdleTimeoutSeconds - 1}, "model_idle_timeout_seconds"},
		{"idle timeout too long", Settings{ModelIdleTimeoutSeconds: MaxModelIdleTimeoutSeconds + 1}, "model_idle_timeout_seconds"},
		{"negative idle timeout", Settings{ModelIdleTimeoutSeconds: -1}, "model_idle_timeout_seconds"},
		{"smallest answer cap", Settings{MaxAnswerMB: 1}, ""},
		{"largest answer cap", Settings{MaxAnswerMB: MaxAnswerMBLimit}, ""},
		{"answer cap too large", Settings{MaxAnswerMB: MaxAnswerMBLimit + 1}, "max_answer_mb"},
		{"negative answer cap", Settings{MaxAnswerMB: -4}, "max_answer_mb"},
	}
	for _, tc := range valid {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate()
			if tc.bad == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			ie := (*InvalidError)(nil)
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &ie) {
				t.Fatalf("Validate() = %v, want an InvalidError", err)
			}
			if _, ok := ie.Fields()[tc.bad]; !ok || len(ie.Fields()) != 1 {
				t.Fatalf("fields %v, want only %s", ie.Fields(), tc.bad)
			}
			if err := Save(t.TempDir(), tc.s); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Save = %v, want ErrInvalid", err)
			}
		})
	}

	files := []struct {
		file           string
		idle, answerMB int
	}{
		{`{}`, DefaultModelIdleTimeoutSeconds, DefaultMaxAnswerMB},
		{`{"model_idle_timeout_seconds": 30, "max_answer_mb": 8}`, 30, 8},
		{`{"model_idle_timeout_seconds": -3, "max_answer_mb": -1}`, DefaultModelIdleTimeoutSeconds, DefaultMaxAnswerMB},
		{`{"model_idle_timeout_seconds": 1, "max_answer_mb": 100000}`, MinModelIdleTimeoutSeconds, MaxAnswerMBLimit},
		{`{"model_idle_timeout_seconds": 999999}`, MaxModelIdleTimeoutSeconds, DefaultMaxAnswerMB},
	}
	for _, tc := range files {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(tc.file), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if d := s.WithDefaults(); d.ModelIdleTimeoutSeconds != tc.idle || d.MaxAnswerMB != tc.answerMB {
			t.Errorf("%s: idle %d s, answer cap %d MiB; want %d, %d", tc.file, d.ModelIdleTimeoutSeconds, d.MaxAnswerMB, tc.idle, tc.answerMB)
		}
	}
}
