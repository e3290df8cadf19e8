package textmatch

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Sentinel errors that callers branch on with errors.Is. Replace never returns them bare:
// it returns a *MatchError whose Kind is one of them (see MatchError.Unwrap).
var (
	// ErrNotFound: old_str matched at no layer (no match, or none within the threshold).
	ErrNotFound = errors.New("old_str not found")
	// ErrAmbiguous: old_str matched more than one place at the first layer that matched at
	// all; the layer never guesses.
	ErrAmbiguous = errors.New("old_str matches more than one place")
	// ErrTooLong: old_str matched neither exactly nor after normalization and has more than
	// MaxFuzzyOldRunes code points, so Layer 2 was not attempted.
	ErrTooLong = errors.New("old_str too long for fuzzy matching")
	// ErrTimeout: matching used up SearchBudget before it could decide.
	ErrTimeout = errors.New("matching took too long")
	// ErrEmptyOld: old_str is the empty string.
	ErrEmptyOld = errors.New("old_str is empty")
	// ErrInvalidUTF8: old_str is not valid UTF-8. Matching such a string byte-wise could
	// split a character of the content, so it is refused.
	ErrInvalidUTF8 = errors.New("old_str is not valid UTF-8")
)

// maxListedLines is how many line numbers a MatchError keeps in Lines.
const maxListedLines = 10

// MatchError is the error Replace returns when it cannot make the replacement. Its Error
// text is written for the model: it says what happened and what to do next, e.g.
//
//	old_str matches 3 places (lines 4, 17, 30); include more surrounding text so it matches exactly one
//	old_str not found; closest text (similarity 62%) at line 12: "..."; copy the exact text from read_artifact and retry
//
// errors.Is(err, ErrAmbiguous) and the like work through Unwrap.
type MatchError struct {
	// Kind is one of the sentinels ErrNotFound, ErrAmbiguous, ErrTooLong, ErrTimeout,
	// ErrEmptyOld, ErrInvalidUTF8.
	Kind error
	// Layer is the layer (0, 1 or 2) that produced the verdict; 0 for input errors.
	Layer int
	// Count is, for ErrAmbiguous, the number of places that matched (at Layers 0 and 1
	// counting stops at maxCountedHits; at Layer 2 it is the largest set of equally good
	// matches that do not overlap, and counting stops at maxFuzzyPlaces). Zero otherwise.
	Count int
	// AtLeast marks Count as a lower bound: Layer 2 stopped counting once the verdict was
	// sure.
	AtLeast bool
	// Lines holds 1-based line numbers in the original content: of the first
	// maxListedLines hits for ErrAmbiguous, and of Candidate for ErrNotFound.
	Lines []int
	// Candidate is, for ErrNotFound, the original text closest to old_str (at most
	// maxCandidateRunes runes, cut with "…"); empty when nothing resembles old_str.
	// For a Layer 2 ErrAmbiguous it is the first of the equally good matches.
	Candidate string
	// Similarity of Candidate to old_str, 1 - distance/length in code points after
	// normalization, in [0, 1]. 1 for Layer 0 and 1 ambiguity.
	Similarity float64
}

// Unwrap returns Kind, so that errors.Is(err, ErrNotFound) and the like work.
func (e *MatchError) Unwrap() error { return e.Kind }

// Error returns a one-line message for the model saying what went wrong and what to do.
func (e *MatchError) Error() string {
	const copyHint = "copy the exact text from read_artifact and retry"
	switch e.Kind {
	case ErrEmptyOld:
		return "old_str is empty; give the exact text to replace, copied from read_artifact " +
			"(use rewrite_artifact to replace the whole content)"
	case ErrInvalidUTF8:
		return "old_str is not valid UTF-8 text; " + copyHint
	case ErrTooLong:
		return fmt.Sprintf("old_str matches nowhere exactly, and at more than %d characters it is too long "+
			"for approximate matching; %s, use a shorter old_str, or use rewrite_artifact",
			MaxFuzzyOldRunes, copyHint)
	case ErrTimeout:
		return fmt.Sprintf("matching old_str gave up after %v; %s, or use a shorter old_str",
			SearchBudget, copyHint)
	case ErrAmbiguous:
		switch e.Layer {
		case 0:
			return fmt.Sprintf("old_str matches %s (%s); include more surrounding text so it matches exactly one",
				places(e.Count), e.lines())
		case 1:
			return fmt.Sprintf("old_str matches %s once quotes, dashes, spaces and Unicode forms are normalized (%s); "+
				"include more surrounding text so it matches exactly one", places(e.Count), e.lines())
		default:
			return fmt.Sprintf("old_str matches nowhere exactly, and %s match it equally well (similarity %s; %s); "+
				"copy the exact text from read_artifact and include more surrounding text so it matches exactly one place",
				fuzzyPlaces(e.Count, e.AtLeast), percent(e.Similarity), e.lines())
		}
	case ErrNotFound:
		if e.Candidate == "" {
			return "old_str not found; " + copyHint
		}
		return fmt.Sprintf("old_str not found; closest text (similarity %s) at %s: %s; %s",
			percent(e.Similarity), e.lines(), strconv.Quote(e.Candidate), copyHint)
	default:
		return fmt.Sprintf("%v (layer %d)", e.Kind, e.Layer)
	}
}

// lines renders Lines as "line 4" or "lines 4, 17, 30", each line once, with "…" when
// Count exceeds them.
func (e *MatchError) lines() string {
	var parts []string
	for i, l := range e.Lines {
		if i == 0 || l != e.Lines[i-1] {
			parts = append(parts, strconv.Itoa(l))
		}
	}
	s := strings.Join(parts, ", ")
	if e.Count > len(e.Lines) {
		s += ", …"
	}
	if len(parts) == 1 && e.Count <= len(e.Lines) {
		return "line " + s
	}
	return "lines " + s
}

// places renders the hit count of a Layer 0 or 1 ambiguity, a lower bound once counting
// stopped at maxCountedHits.
func places(n int) string {
	if n >= maxCountedHits {
		return fmt.Sprintf("%d or more places", n)
	}
	return fmt.Sprintf("%d places", n)
}

// fuzzyPlaces renders the count of a Layer 2 ambiguity, "or more" when it is a lower bound.
func fuzzyPlaces(n int, atLeast bool) string {
	if atLeast {
		return fmt.Sprintf("%d or more places", n)
	}
	return fmt.Sprintf("%d places", n)
}

// percent renders a similarity rounded down, so a rejected 0.699 never shows as 70%.
func percent(sim float64) string {
	return strconv.Itoa(int(math.Floor(sim*100+1e-9))) + "%"
}
