package sandbox

import (
	"math"
	"os"
	"strconv"
	"syscall"
)

// rlimInfinity is RLIM_INFINITY as the uint64 Rlimit holds.
const rlimInfinity = math.MaxUint64

// limitData lowers the soft data-segment limit (RLIMIT_DATA, which Linux applies to every
// private writable mapping, the Go heap's included) to n bytes, so that one allocation
// larger than what is left fails at once instead of being promised by overcommit. A lower
// limit already in place is kept.
func limitData(n int64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		return
	}
	if lim.Cur != rlimInfinity && lim.Cur <= uint64(n) {
		return
	}
	lim.Cur = uint64(n)
	if lim.Max != rlimInfinity && lim.Max < lim.Cur {
		lim.Cur = lim.Max
	}
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &lim)
}

// lowestPriority is the nice value of Limits.LowPriority.
const lowestPriority = 19

// lowerPriority sets every thread of this process to nice 19. Linux keeps a nice value per
// thread and a new thread inherits its creator's, so once the threads running now are
// lowered, every later one starts lowered too.
func lowerPriority() {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, lowestPriority)
		return
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, lowestPriority)
		}
	}
}
