// Package redisserver runs redis-server as a child process: the embedded
// database of `retwis serve`, and the throwaway servers and clusters of
// the test harness.
package redisserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/retwis/retwis/internal/resp"
)

// ErrNil is returned by Command for a nil reply (a missing key).
var ErrNil = errors.New("redisserver: nil reply")

// ErrNotInstalled reports that no redis-server binary is on PATH.
var ErrNotInstalled = errors.New("redis-server is not installed (on Debian: apt-get install redis-server)")

// Options configure one redis-server process.
type Options struct {
	// Dir holds the server's data and log file; it is created if missing.
	Dir string
	// Socket, when set, is the path of a unix socket to listen on instead
	// of TCP. Keep it short: the kernel limits it to about 100 bytes.
	Socket string
	// Port is the TCP port on 127.0.0.1 when Socket is empty.
	Port int
	// Persist turns on append-only persistence (fsync every second).
	Persist bool
	// Args are extra configuration directives, e.g. "--cluster-enabled", "yes".
	Args []string
}

// Server is a running redis-server child process.
type Server struct {
	opts Options
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	err  error         // exit status, valid after done is closed
}

// Start launches redis-server and waits until it answers PING.
func Start(ctx context.Context, opts Options) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, ErrNotInstalled
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("redisserver: %w", err)
	}
	cmd := exec.Command(bin, opts.args()...)
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("redisserver: start: %w", err)
	}
	s := &Server{opts: opts, cmd: cmd, done: make(chan struct{})}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (o Options) args() []string {
	args := []string{
		"--dir", o.Dir, "--logfile", "redis.log", "--daemonize", "no",
		"--save", "", "--appendonly", "no", "--protected-mode", "yes",
	}
	if o.Socket != "" {
		args = append(args, "--port", "0", "--unixsocket", o.Socket, "--unixsocketperm", "700")
	} else {
		args = append(args, "--bind", "127.0.0.1", "--port", strconv.Itoa(o.Port))
	}
	if o.Persist {
		args = append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	}
	return append(args, o.Args...)
}

// URL returns the address of the server as a redis:// or unix:// URL.
func (s *Server) URL() string {
	if s.opts.Socket != "" {
		return "unix://" + s.opts.Socket
	}
	return "redis://" + s.Addr()
}

// Addr returns host:port for a TCP server, or the socket path.
func (s *Server) Addr() string {
	if s.opts.Socket != "" {
		return s.opts.Socket
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.opts.Port))
}

// Done is closed when the server process has exited, for whatever reason.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err returns how the process exited; valid once Done is closed.
func (s *Server) Err() error { return s.err }

// Options returns the options the server was started with, so that a
// stopped server can be started again on the same address and data.
func (s *Server) Options() Options { return s.opts }

func (s *Server) network() string {
	if s.opts.Socket != "" {
		return "unix"
	}
	return "tcp"
}

func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for {
		reply, err := s.Command(ctx, "PING")
		if err == nil && reply == "PONG" {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("redisserver: redis-server exited during start-up (%v): %s", s.err, s.logTail())
		case <-ctx.Done():
			return fmt.Errorf("redisserver: redis-server not ready at %s: %v: %s", s.Addr(), err, s.logTail())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// logTail returns the last lines of the server's log, to explain a failure.
func (s *Server) logTail() string {
	b, err := os.ReadFile(filepath.Join(s.opts.Dir, "redis.log"))
	if err != nil {
		return "(no log)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}

// Command sends one command on a fresh connection and returns the reply
// of a simple, integer or bulk string; an error reply is returned as a
// resp.Error, a nil reply as ErrNil. It is meant for administration
// (readiness, cluster set-up), not for the application's traffic.
func (s *Server) Command(ctx context.Context, args ...string) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, s.network(), s.Addr())
	if err != nil {
		return "", fmt.Errorf("redisserver: %w", err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	v, err := resp.RoundTrip(conn, bufio.NewReader(conn), 0, args...)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case nil:
		return "", ErrNil
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	}
	return "", fmt.Errorf("redisserver: unexpected reply %v", v)
}

// Stop shuts the server down (SIGTERM lets it flush its append-only file)
// and waits for it to exit, killing it after ten seconds.
func (s *Server) Stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return nil
}

// Pause freezes the server (SIGSTOP), as a stalled virtual machine or a
// network split looks to its clients: connections stay open and nothing
// answers. Resume undoes it.
func (s *Server) Pause() error { return s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume lets a paused server go on (SIGCONT).
func (s *Server) Resume() error { return s.cmd.Process.Signal(syscall.SIGCONT) }

// Kill stops the server at once, without letting it save anything, as a
// crash would.
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
}
