// Package procgroup starts child programs (hooks, MCP servers) so that they can be stopped
// with everything they started: on Unix each child leads a process group of its own and Kill
// signals the whole group; on Windows each child starts in a new process group and Kill ends
// its process tree (taskkill /T). A script's children (a sleep, a pipeline, the node
// process npx starts) so die with it instead of outliving the app or holding its pipes open.
package procgroup

import "os/exec"

// Own sets cmd up, before it is started, to run in a process group of its own, and, for a
// cmd made by exec.CommandContext (which sets cmd.Cancel), makes the end of its context
// Kill the group instead of the process alone. It replaces cmd.SysProcAttr.
func Own(cmd *exec.Cmd) {
	own(cmd)
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { return Kill(cmd) }
	}
}

// Kill ends cmd's group, cmd having been started after Own: every process in it on Unix
// (SIGKILL to the group), the process tree on Windows. When that fails (the group is
// already gone, say) it kills cmd's own process. It returns os.ErrProcessDone, wrapped or
// not, when nothing was left to kill; nil before cmd started.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := killGroup(cmd.Process.Pid); err == nil {
		return nil
	}
	return cmd.Process.Kill()
}
