// Package textmatch finds the text that update_artifact replaces (layered fuzzy matching).
// The model sends old_str and new_str; Replace locates old_str in the artifact
// content in three layers, tried in order, and replaces exactly one place or explains why it
// cannot. Ambiguity is always an error, never a guess.
//
//   - Layer 0: exact substring. One hit is replaced; several (overlapping ones included) are
//     an ambiguity error.
//   - Layer 1: both texts are normalized (smart quotes and primes, dashes, special spaces,
//     NFKC, blanks at line ends including the CR of CRLF, spaces between CJK and Latin; see
//     normalize) and old_str is searched in the normalized content. Every normalized byte
//     remembers the original bytes it came from, so the hit is mapped back and the original
//     text is replaced there: text outside the match stays byte for byte. A hit that would
//     cut a normalization group (only the "I" of the "IV" that NFKC makes of "Ⅳ") is not a
//     hit; if no other hit remains, Layer 2 is tried.
//   - Layer 2: approximate substring by Levenshtein distance in code points, computed on the
//     normalized texts (so a typo next to a curly quote costs one edit, not two), with
//     matches starting and ending only on normalization-group boundaries, then mapped back
//     to the original like Layer 1. It accepts a distance d when d ≤ max(5, ⌊0.3·m⌋) and the
//     similarity 1 − d/m ≥ MinSimilarity, m being the length of the normalized old_str in
//     code points; equally good matches that do not overlap are an ambiguity error. See
//     fuzzy.go for the algorithm (bit-parallel Myers/Hyyrö, O(n·⌈m/64⌉)).
//
// The package is pure: no I/O, no goroutines. Work is bounded by MaxFuzzyOldRunes and by
// SearchBudget, and Replace honours its context. The large slices of Layers 1 and 2 (about
// 9 bytes per content byte) are kept in sync.Pools between calls and handed back before
// Replace returns.
package textmatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	// MaxFuzzyOldRunes is the longest old_str, in code points, that Layer 2 will try to
	// match approximately; a longer one that Layers 0 and 1 miss gets ErrTooLong.
	MaxFuzzyOldRunes = 10000
	// SearchBudget bounds the time Replace spends normalizing and searching (Layers 1 and
	// 2); when it runs out Replace returns ErrTimeout.
	SearchBudget = 500 * time.Millisecond
	// MinSimilarity is the lowest similarity (1 − distance/length) Layer 2 accepts.
	MinSimilarity = 0.70
	// maxCountedHits bounds how many hits Layers 0 and 1 count for an ambiguity error.
	maxCountedHits = 1000
	// maxCandidateRunes bounds MatchError.Candidate.
	maxCandidateRunes = 200
)

// Update types recorded in the artifact version.
const (
	// UpdateExact is the update type of a Layer 0 or Layer 1 replacement.
	UpdateExact = "update"
	// UpdateFuzzy is the update type of a Layer 2 replacement.
	UpdateFuzzy = "update_fuzzy"
)

// Result describes a successful replacement.
type Result struct {
	// Content is the new full text: the original content with [Start, End) replaced by
	// new_str. Everything outside [Start, End) is unchanged byte for byte.
	Content string
	// Layer is the layer that matched: 0 exact, 1 normalized, 2 approximate.
	Layer int
	// UpdateType is UpdateExact for Layers 0 and 1 and UpdateFuzzy for Layer 2.
	UpdateType string
	// Start and End are byte offsets of the replaced span in the original content.
	Start, End int
	// Matched is the original text that was replaced, content[Start:End].
	Matched string
	// Similarity is 1 for Layers 0 and 1, and for Layer 2 1 − distance/m, with the edit
	// distance and m, the old_str length, in code points of the normalized texts.
	Similarity float64
}

// Replace replaces the one place in content that oldStr designates with newStr, trying
// Layer 0 (exact), Layer 1 (normalized) and Layer 2 (approximate) in that order. newStr is
// inserted verbatim.
//
// On failure Result is zero and the error is a *MatchError whose Kind is ErrEmptyOld,
// ErrInvalidUTF8, ErrAmbiguous, ErrNotFound, ErrTooLong or ErrTimeout, and whose Error text
// tells the model what to do next; or, when ctx ends first, an error wrapping ctx.Err().
func Replace(ctx context.Context, content, oldStr, newStr string) (Result, error) {
	return replace(ctx, content, oldStr, newStr, SearchBudget)
}

// replace is Replace with the time budget as a parameter, so tests can exhaust it.
func replace(ctx context.Context, content, oldStr, newStr string, limit time.Duration) (Result, error) {
	if oldStr == "" {
		return Result{}, &MatchError{Kind: ErrEmptyOld}
	}
	if !utf8.ValidString(oldStr) {
		return Result{}, &MatchError{Kind: ErrInvalidUTF8}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("textmatch: %w", err)
	}

	// Layer 0: exact substring.
	hits := indexAll(content, oldStr, nil)
	switch {
	case len(hits) == 1:
		return result(content, newStr, span{hits[0], hits[0] + len(oldStr)}, 0, 1), nil
	case len(hits) > 1:
		return Result{}, ambiguous(content, 0, hits)
	}

	// Layer 1: normalized substring, mapped back to the original.
	b := &budget{ctx: ctx, deadline: time.Now().Add(limit)}
	nc, err := normalize(b, content)
	if err != nil {
		return Result{}, layerError(1, err)
	}
	defer nc.release() // nothing returned refers to nc
	no, err := normalize(b, oldStr)
	if err != nil {
		return Result{}, layerError(1, err)
	}
	no.release() // only no.text is used
	if no.text == "" {
		// old_str is only blanks that occur nowhere exactly; nothing is left to search.
		return Result{}, &MatchError{Kind: ErrNotFound, Layer: 1}
	}
	hits = indexAll(nc.text, no.text, nc.aligned)
	switch {
	case len(hits) == 1:
		return result(content, newStr, nc.original(hits[0], hits[0]+len(no.text)), 1, 1), nil
	case len(hits) > 1:
		starts := make([]int, len(hits))
		for i, h := range hits {
			starts[i] = int(nc.bounds[nc.group[h]])
		}
		return Result{}, ambiguous(content, 1, starts)
	}

	// Layer 2: approximate substring.
	if utf8.RuneCountInString(oldStr) > MaxFuzzyOldRunes {
		return Result{}, &MatchError{Kind: ErrTooLong, Layer: 2}
	}
	if err := b.check(); err != nil {
		return Result{}, layerError(2, err)
	}
	m, err := fuzzyFind(b, nc, no.text)
	if err != nil {
		return Result{}, layerError(2, err)
	}
	return m.resolve(content, newStr)
}

// result builds the Result of replacing sp in content with newStr.
func result(content, newStr string, sp span, layer int, similarity float64) Result {
	typ := UpdateExact
	if layer == 2 {
		typ = UpdateFuzzy
	}
	return Result{
		Content:    content[:sp.start] + newStr + content[sp.end:],
		Layer:      layer,
		UpdateType: typ,
		Start:      sp.start,
		End:        sp.end,
		Matched:    content[sp.start:sp.end],
		Similarity: similarity,
	}
}

// indexAll returns the byte offsets of the occurrences of sub in s, overlapping ones
// included, for which keep(start, end) holds (all when keep is nil). It stops after
// maxCountedHits.
func indexAll(s, sub string, keep func(start, end int) bool) []int {
	var hits []int
	for from := 0; from <= len(s)-len(sub) && len(hits) < maxCountedHits; {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			break
		}
		i += from
		if keep == nil || keep(i, i+len(sub)) {
			hits = append(hits, i)
		}
		from = i + 1
	}
	return hits
}

// ambiguous builds the ErrAmbiguous error of a layer from the ascending original byte
// offsets of its hits.
func ambiguous(content string, layer int, starts []int) *MatchError {
	return &MatchError{
		Kind:       ErrAmbiguous,
		Layer:      layer,
		Count:      len(starts),
		Lines:      lineNumbers(content, starts[:min(len(starts), maxListedLines)]),
		Similarity: 1,
	}
}

// lineNumbers returns the 1-based line numbers of the ascending byte offsets in s.
func lineNumbers(s string, offsets []int) []int {
	lines := make([]int, len(offsets))
	line, pos := 1, 0
	for i, off := range offsets {
		line += strings.Count(s[pos:off], "\n")
		pos = off
		lines[i] = line
	}
	return lines
}

// layerError turns a budget error into the error Replace returns at layer: ErrTimeout
// becomes a *MatchError, context errors are wrapped.
func layerError(layer int, err error) error {
	if errors.Is(err, ErrTimeout) {
		return &MatchError{Kind: ErrTimeout, Layer: layer}
	}
	return fmt.Errorf("textmatch: layer %d: %w", layer, err)
}

// budget bounds the work of one Replace call by a deadline and the caller's context.
type budget struct {
	ctx      context.Context
	deadline time.Time
}

// check returns ErrTimeout once the deadline has passed, the context's error once it has
// ended, and nil otherwise. Loops call it every few thousand steps.
func (b *budget) check() error {
	if err := b.ctx.Err(); err != nil {
		return err
	}
	if !time.Now().Before(b.deadline) {
		return ErrTimeout
	}
	return nil
}
