package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// This file writes the output files of `artifactflow eval` (eval-<timestamp>.md and
// .json), each replaced whole on every write.

// evalFiles are the two output files of one eval, reserved at its start.
type evalFiles struct{ md, json string }

// reserveEvalFiles creates dir when needed and reserves eval-<timestamp>.md and .json in
// it, the timestamp being now in local time (20060102-150405, then -2, -3 ... when taken),
// by creating both files empty: an unwritable directory fails before anything runs.
func reserveEvalFiles(dir string, now time.Time) (evalFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return evalFiles{}, fmt.Errorf("output directory: %w", err)
	}
	base := "eval-" + now.Format("20060102-150405")
	for i := 1; i < 1000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f := evalFiles{md: filepath.Join(dir, name+".md"), json: filepath.Join(dir, name+".json")}
		if err := createNew(f.md); err != nil {
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return evalFiles{}, err
		}
		if err := createNew(f.json); err != nil {
			_ = os.Remove(f.md)
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return evalFiles{}, err
		}
		return f, nil
	}
	return evalFiles{}, fmt.Errorf("output directory %s: no free name for %s", dir, base)
}

// createNew creates path empty, failing with os.ErrExist when it exists.
func createNew(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// write writes rep (its totals computed now) to both files, each replaced whole through
// a temporary file, so a reader never sees half a table.
func (f evalFiles) write(rep *evalReport) error {
	rep.Totals = totals(rep.Results)
	rep.FinishedAt = time.Now().UTC()
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# ArtifactFlow eval %s\n\n", rep.StartedAt.Local().Format("2006-01-02 15:04"))
	fmt.Fprintf(&md, "- questions: %s (%d run of %d)\n", mdCell(rep.QuestionsFile), len(rep.Results), rep.Questions)
	fmt.Fprintf(&md, "- model: %s at %s\n", mdCell(rep.Model), mdCell(rep.Endpoint))
	if rep.SubAgentModel != "" {
		fmt.Fprintf(&md, "- sub-agents' model: %s\n", mdCell(rep.SubAgentModel))
	}
	if rep.Judge {
		fmt.Fprintf(&md, "- judge: the same model, 0-10 against each reference\n")
	}
	md.WriteString("\n" + markdownTable(rep))
	if err := replaceFile(f.json, append(js, '\n')); err != nil {
		return err
	}
	return replaceFile(f.md, []byte(md.String()))
}

// replaceFile writes data to path through a temporary file in its directory and a rename.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
