//go:build !linux

package sandbox

// limitData does nothing outside Linux: macOS does not enforce RLIMIT_DATA and Windows has
// no such limit; the heap limit and the memory watchdog still apply.
func limitData(int64) {}

// lowerPriority does nothing outside Linux: the child runs at the parent's priority.
func lowerPriority() {}
