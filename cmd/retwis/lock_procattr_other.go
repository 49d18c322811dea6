//go:build unix && !linux

package main

import "syscall"

// commandProcAttr returns the process attributes of the command run under
// a lock: a group of its own, so that stopping the command reaches the
// processes it started (a shell script's children) too. Only Linux can
// signal the command when retwis lock dies; elsewhere, should retwis lock
// be killed (SIGKILL, the OOM killer), the command goes on unprotected
// once the lock expires.
func commandProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
