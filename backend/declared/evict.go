package declared

import (
	"maps"
	"slices"
)

// reservation is a source's soft reservation (tool 100, client 50, hook 50; they add up to
// MaxPerConversation); a source the app does not know has none, so it is always over.
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

// slot is one artifact competing for a place when a batch would take a conversation past
// MaxPerConversation: an artifact stored before the batch (described by its state after
// the batch: an input may have retained it or found its file again), or a new artifact of
// the batch (fresh). Removing a stored one evicts it; removing a fresh one drops its inputs.
type slot struct {
	source   string // retention source: the first writer's
	retained bool   // client-retained
	missing  bool   // status missing
	fresh    bool   // new in this batch
}

// chooseVictims picks k slots to remove so that the rest fit, and returns their indices
// in the order chosen. slots holds the stored artifacts oldest first (createdAt, then
// insert order), then the batch's new ones in input order.
//
// The rule is that only a source over its reservation pays, and it pays with its own
// artifacts: a source may borrow room the others leave unused, but an artifact of a
// source within its reservation is never removed to make room for another source, however
// large that source's batch. Each victim is, in this order of preference:
//
//  1. the oldest missing, not client-retained, stored artifact of a source over its
//     reservation;
//  2. else, of the source most over its reservation (counting the batch's new artifacts;
//     ties: the source whose candidate is oldest), in this order: its oldest missing
//     stored artifact no client retains, its oldest stored one no client retains, its
//     oldest missing client-retained one, its oldest client-retained one, and only then
//     its newest input of this batch, which is dropped. Client retention is a last
//     preference within the source, not a pin: it breaks neither the cap nor the
//     reservations.
//
// Because the reservations add up to the cap, some source is over its reservation as long
// as the slots do not fit, so step 2 always finds a victim. (Were that ever not so, the
// newest input would be dropped, and a stored artifact evicted only when there is none.)
// k larger than len(slots) is clamped. It takes O(len(slots) + k × sources) time: each
// source's candidates are queued once in removal order, and a source that is not over its
// reservation never becomes over again as victims are taken.
func chooseVictims(slots []slot, k int) []int {
	counts := map[string]int{}
	ranked := map[string]*[5][]int{} // per source, slot indices by candidateRank, oldest first
	var missingFirst []int           // step 1's slots, oldest first
	for i, s := range slots {
		counts[s.source]++
		r := ranked[s.source]
		if r == nil {
			r = &[5][]int{}
			ranked[s.source] = r
		}
		rank := candidateRank(s)
		r[rank] = append(r[rank], i)
		if rank == 0 {
			missingFirst = append(missingFirst, i)
		}
	}
	// Each source's queue in removal order: stored ones by rank, oldest first, then its
	// new ones newest first.
	sources := slices.Sorted(maps.Keys(ranked))
	queues := make(map[string][]int, len(ranked))
	for src, r := range ranked {
		q := slices.Concat(r[0], r[1], r[2], r[3])
		for j := len(r[4]) - 1; j >= 0; j-- {
			q = append(q, r[4][j])
		}
		queues[src] = q
	}
	over := func(src string) int { return counts[src] - reservation(src) }
	gone := make([]bool, len(slots))
	head := map[string]int{}
	next1 := 0
	var out []int
	for len(out) < k && len(out) < len(slots) {
		v := -1
		// 1. Missing, stored, not client-retained, of a source over its reservation. One
		// skipped because its source is not over stays skipped: sources only lose slots.
		for ; next1 < len(missingFirst) && v < 0; next1++ {
			if i := missingFirst[next1]; !gone[i] && over(slots[i].source) > 0 {
				v = i
			}
		}
		// 2. The source most over its reservation; ties: the older candidate.
		if v < 0 {
			bestOver := 0
			for _, src := range sources {
				q := queues[src]
				for head[src] < len(q) && gone[q[head[src]]] {
					head[src]++
				}
				if head[src] == len(q) {
					continue
				}
				i, o := q[head[src]], over(src)
				if o > 0 && (o > bestOver || (o == bestOver && i < v)) {
					v, bestOver = i, o
				}
			}
		}
		// Unreachable while the reservations add up to the cap: drop the newest input,
		// else evict the oldest stored artifact.
		if v < 0 {
			v = fallbackVictim(slots, gone)
		}
		gone[v] = true
		counts[slots[v].source]--
		out = append(out, v)
	}
	return out
}

// fallbackVictim is the newest new slot not gone, else the oldest slot not gone.
func fallbackVictim(slots []slot, gone []bool) int {
	for i := len(slots) - 1; i >= 0; i-- {
		if !gone[i] && slots[i].fresh {
			return i
		}
	}
	for i := range slots {
		if !gone[i] {
			return i
		}
	}
	return -1
}

// candidateRank orders one source's slots for removal: 0 stored, missing and unretained;
// 1 stored and unretained; 2 stored, missing and client-retained; 3 stored and
// client-retained; 4 new in this batch.
func candidateRank(s slot) int {
	if s.fresh {
		return 4
	}
	k := 0
	if s.retained {
		k = 2
	}
	if !s.missing {
		k++
	}
	return k
}
