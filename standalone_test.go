package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// citation matches what a reader of the repository cannot follow: a tracker's issue number
// (the word issue, optional s and #, then digits), the design document kept outside the
// repository, and the numbered seed design files (the word seed or seeds, then a three-digit
// number from 000). The pattern is assembled from parts so that this file does not match itself;
// TestCitationPattern lists examples.
var citation = regexp.MustCompile(`(?i)\bissues? #?[0-9]+\b|` + `DESIGN` + `\.md|\bseeds?[ /_-]?0[0-9]{2}\b`)

// skipDirs are folders whose files are not the repository's own words: third-party recorded
// pages and streams kept as test fixtures (each README beside them names its source), installed
// packages, build output and git's own data.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "testdata": true, "dist": true, "distgz": true, "bin": true, "package": true}

// TestRepositoryStandsAlone fails when a source file, comment or document cites an issue
// number, the design document or a seed file: the repository must explain itself to a reader
// who has only the repository, so code states its rule in its own words or points to a
// section of docs/ARCHITECTURE.md. Binary files, lock files and the folders in skipDirs are
// not read.
func TestRepositoryStandsAlone(t *testing.T) {
	var hits []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, "-lock.json") || strings.HasSuffix(name, ".sum") || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 {
			return nil // binary
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := citation.FindString(line); m != "" {
				hits = append(hits, path+":"+strconv.Itoa(i+1)+": "+m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking the repository: %v", err)
	}
	if len(hits) > 0 {
		t.Errorf("%d lines cite an issue number, the design document or a seed file; state the rule itself or point to a section of docs/ARCHITECTURE.md:\n%s",
			len(hits), strings.Join(hits, "\n"))
	}
}

// TestCitationPattern checks the pattern on the forms the repository once used and on
// look-alikes it must leave alone (the positive cases are split so this file passes the
// walk above).
func TestCitationPattern(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"// Fixed in iss" + "ue 12: the lanes", true},
		{"(iss" + "ues #3 and #4)", true},
		{"see " + "DESIGN" + ".md, Contracts", true},
		{"as se" + "ed 002 says", true},
		{"../shared/se" + "eds/004-history.md", true},
		{"Iss" + "ue 7, item 3", true},
		{"an issue with the proxy", false},
		{"issues: 0 open", false},
		{"&#60; is a character reference", false},
		{"seeded 200 rows", false},
		{"ISSUE_TEMPLATE.md", false},
	} {
		if got := citation.MatchString(tc.line); got != tc.want {
			t.Errorf("citation.MatchString(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
