//go:build unix && !linux

package redisserver

import "syscall"

// procAttr returns the process attributes of a redis-server child: a
// process group of its own. Only Linux can signal a child when its parent
// dies; elsewhere a parent that crashes without cleaning up leaves the
// server running.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
