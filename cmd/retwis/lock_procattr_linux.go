package main

import "syscall"

// commandProcAttr returns the process attributes of the command run under
// a lock.
func commandProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		// A group of its own, so that stopping the command reaches the
		// processes it started (a shell script's children) too.
		Setpgid: true,
		// Should retwis lock die without stopping the command (SIGKILL, the
		// OOM killer), nobody would extend the lock, and the command would
		// go on unprotected once it expired.
		Pdeathsig: syscall.SIGTERM,
	}
}
