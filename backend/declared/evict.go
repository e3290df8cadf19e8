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
//  2. an artifact of the source most over its reservation (ties: the source whose
//     candidate is oldest): its oldest missing one no client retains, else its oldest one
//     no client retains, else its oldest missing client-retained one, else its oldest
//     client-retained one. Client retention is a last preference within the source, not a
//     pin: it breaks neither the 200 cap nor the soft reservations (seed 002: 不突破 200
//     全局上限或 soft reservation), so a client that registers more than its share cannot
//     push out the agent's or the hooks' artifacts;
//  3. the oldest artifact no client retains;
//  4. the oldest missing client-retained artifact, else the oldest client-retained one.
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
	// 2. The source most over its reservation, and within it the first candidate in the
	// order: missing unretained, unretained, missing retained, retained (oldest first).
	cand := map[string]int{}
	rank := map[string]int{}
	for i, r := range rows {
		if gone[i] {
			continue
		}
		k := candidateRank(r)
		if cur, ok := rank[r.RetentionSource]; !ok || k < cur {
			cand[r.RetentionSource], rank[r.RetentionSource] = i, k
		}
	}
	best, bestOver := -1, 0
	for src, i := range cand {
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
	// 4. The oldest missing client-retained, else the oldest client-retained.
	for i, r := range rows {
		if !gone[i] && r.Status == StatusMissing {
			return i
		}
	}
	for i := range rows {
		if !gone[i] {
			return i
		}
	}
	return -1
}

// candidateRank orders one source's artifacts for eviction: 0 missing and unretained, 1
// unretained, 2 missing and client-retained, 3 client-retained. Rows come oldest first, so
// the first row of the lowest rank is the source's candidate.
func candidateRank(r store.DeclaredRow) int {
	k := 0
	if r.ClientRetained {
		k = 2
	}
	if r.Status != StatusMissing {
		k++
	}
	return k
}
