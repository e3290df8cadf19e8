//go:build !unix && !windows

package procgroup

import (
	"errors"
	"os/exec"
)

func own(*exec.Cmd) {}

// killGroup cannot reach a group here: Kill falls back to the process itself.
func killGroup(int) error { return errors.ErrUnsupported }
