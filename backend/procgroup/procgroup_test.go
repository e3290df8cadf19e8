//go:build unix

package procgroup

import (
	"bufio"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"artifactflow/internal/proctest"
)

// TestKillEndsTheGroup: a child started after Own that starts a grandchild of its own (a
// shell with a background sleep) is ended with the grandchild by Kill, and so is the group
// of a child whose context ends (cmd.Cancel).
func TestKillEndsTheGroup(t *testing.T) {
	proctest.Need(t)
	for _, viaContext := range []bool{false, true} {
		t.Run("context="+strconv.FormatBool(viaContext), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 300 & echo $!; wait")
			Own(cmd)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			grandchild, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || !proctest.Alive(grandchild) {
				t.Fatalf("no grandchild: %q %v", line, err)
			}
			if viaContext {
				cancel()
			} else if err := Kill(cmd); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			proctest.WaitGone(t, cmd.Process.Pid, 5*time.Second)
			if proctest.Alive(grandchild) {
				t.Fatalf("the grandchild %d outlived Kill", grandchild)
			}
		})
	}
}
