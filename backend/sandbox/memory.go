package sandbox

import (
	"os"
	"runtime/metrics"
	"time"
)

// watchMemory ends the process with exitNoMemory once the memory the Go runtime holds from
// the system (all its classes less what it has released) passes limit bytes. It checks
// every 10 ms and runs until the process exits (only in a child, which Run's deadline
// bounds).
func watchMemory(limit int64) {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for range t.C {
		metrics.Read(samples)
		if int64(samples[0].Value.Uint64()-samples[1].Value.Uint64()) > limit {
			os.Exit(exitNoMemory)
		}
	}
}
