package artifact

import (
	"sort"
	"unicode/utf8"

	"artifactflow/backend/events"
	"artifactflow/backend/store"
)

// Amend gives the end of a run a last say over the artifacts the run changed, before
// Flush: fn receives the snapshot of each dirty artifact (in id order) and returns its new
// content and true to change it, or false to leave it. A change joins the run's pending
// version: the version number and update type stay as the run's edits made them, and the
// change is recorded among the version's changes. The engine keeps a report's managed
// Sources section this way, so it lands in the same version as the run's edits. The change
// is recorded as the parts after the longest common prefix. It returns the snapshots of
// the artifacts it changed.
func (m *Manager) Amend(fn func(events.ArtifactSnapshot) (string, bool)) []events.ArtifactSnapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.dirty))
	for id := range m.dirty {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []events.ArtifactSnapshot
	for _, id := range ids {
		mem := m.cache[id]
		if mem == nil {
			continue
		}
		content, ok := fn(mem.snapshot())
		if !ok || content == mem.content {
			continue
		}
		p := commonPrefix(mem.content, content)
		mem.changes = append(mem.changes, store.Change{Old: mem.content[p:], New: content[p:]})
		mem.content = content
		out = append(out, mem.snapshot())
	}
	return out
}

// commonPrefix returns the length in bytes of the longest common prefix of a and b that
// ends on a UTF-8 character boundary.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}
