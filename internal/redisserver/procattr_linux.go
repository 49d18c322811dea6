package redisserver

import "syscall"

// procAttr returns the process attributes of a redis-server child: a
// process group of its own, and SIGTERM when its parent dies, so that a
// crashed parent never leaves an orphan holding the data directory.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
}
