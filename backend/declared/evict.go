package declared

import "artifactflow/backend/store"

// reservation is a source's soft reservation (seed 002: tool 100, client 50, hook 50); a
// source the app does not know has none, so it is always over.
func reservation(source string) int {
	switch source {
	case SourceTool:
		return ReserveTool
	case SourceClient:
		return ReserveClient
	case SourceHook:
		return ReserveHook
	}
	return 0
}

// chooseVictims picks k artifacts to evict among rows (the artifacts that existed before
// the batch, oldest first by createdAt then insert order) and returns their indices in
// the order chosen. counts holds, per retention source, how many artifacts the
// conversation will hold after the batch (rows plus the new ones kept); it is updated as
// victims are chosen. Each victim is, in this order of preference (seed 002, 配额与保留策略):
//
//  1. the oldest missing artifact that no client retains;
//  2. the oldest artifact no client retains of the source most over its reservation
//     (ties: the source whose such artifact is oldest; a source with no such artifact is
//     passed over for the next one over);
//  3. the oldest artifact no client retains;
//  4. the oldest client-retained artifact (client retention is a last preference, not a
//     pin: the 200 cap always holds).
//
// k larger than len(rows) is clamped.
func chooseVictims(rows []store.DeclaredRow, counts map[string]int, k int) []int {
	gone := make([]bool, len(rows))
	var out []int
	for len(out) < k && len(out) < len(rows) {
		v := pickVictim(rows, gone, counts)
		gone[v] = true
		counts[rows[v].RetentionSource]--
		out = append(out, v)
	}
	return out
}

// pickVictim returns the index of the next victim among rows not yet gone (at least one
// is left).
func pickVictim(rows []store.DeclaredRow, gone []bool, counts map[string]int) int {
	// 1. Missing, not client-retained.
	for i, r := range rows {
		if !gone[i] && !r.ClientRetained && r.Status == StatusMissing {
			return i
		}
	}
	// 2. The source most over its reservation: for each source its oldest non-retained
	// artifact; among sources over their reservation, the largest excess wins, then the
	// oldest artifact.
	oldest := map[string]int{}
	for i, r := range rows {
		if gone[i] || r.ClientRetained {
			continue
		}
		if _, ok := oldest[r.RetentionSource]; !ok {
			oldest[r.RetentionSource] = i
		}
	}
	best, bestOver := -1, 0
	for src, i := range oldest {
		over := counts[src] - reservation(src)
		if over <= 0 {
			continue
		}
		if over > bestOver || (over == bestOver && i < best) {
			best, bestOver = i, over
		}
	}
	if best >= 0 {
		return best
	}
	// 3. The oldest not client-retained.
	for i, r := range rows {
		if !gone[i] && !r.ClientRetained {
			return i
		}
	}
	// 4. The oldest client-retained.
	for i := range rows {
		if !gone[i] {
			return i
		}
	}
	return -1
}
