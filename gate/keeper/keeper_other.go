//go:build !linux

package keeper

import (
	"os/exec"
	"time"
)

func command(argv []string, dir string, env []string, _ time.Duration) (*exec.Cmd, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	cmd.Dir, cmd.Env = dir, env
	return cmd, nil
}

func sweep() {}
