package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
	"github.com/retwis/retwis/redlock"
)

// startLockServers starts n independent redis-servers on unix sockets,
// stopped when t ends (a test may stop some earlier).
func startLockServers(t *testing.T, n int) []*redisserver.Server {
	t.Helper()
	// A short directory of our own: t.TempDir paths can exceed the
	// ~100-byte limit of a unix socket path.
	dir, err := os.MkdirTemp("", "rtwl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var servers []*redisserver.Server
	for i := range n {
		d := filepath.Join(dir, strconv.Itoa(i))
		s, err := redisserver.Start(context.Background(), redisserver.Options{Dir: d, Socket: d + ".sock"})
		if err != nil {
			t.Fatalf("start redis-server: %v", err)
		}
		t.Cleanup(func() { s.Stop() })
		servers = append(servers, s)
	}
	return servers
}

// serverList returns the --servers flag for servers.
func serverList(servers []*redisserver.Server) string {
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.URL())
	}
	return strings.Join(urls, ",")
}

// holdLock takes the lock name on servers for a minute, as another holder.
func holdLock(t *testing.T, servers []*redisserver.Server, name string) {
	t.Helper()
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.URL())
	}
	c, err := redlock.New(urls, redlock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if _, err := c.Lock(t.Context(), name, time.Minute); err != nil {
		t.Fatalf("hold %q: %v", name, err)
	}
}

// runLockCmd runs `retwis lock args...` in this process and returns its
// status and output (stdout and stderr together).
func runLockCmd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out syncbuf.Buffer
	status := run(t.Context(), append([]string{"lock"}, args...), &out, &out)
	return status, out.String()
}

// waitForFile waits until the file at path has a line of content, and
// returns it.
func waitForFile(t *testing.T, path string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			return strings.TrimSpace(string(b))
		}
	}
	t.Fatalf("%s not written within 10s", path)
	return ""
}

// alive tells whether the process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestLockUsage(t *testing.T) {
	redis := redistest.Start(t)
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		want   string
	}{
		{"help", []string{"-h"}, 0, "76  the lock was lost"},
		{"no arguments", nil, 2, "want NAME -- COMMAND [ARGS...] after the flags"},
		{"no command", []string{"job"}, 2, "want NAME -- COMMAND"},
		{"no --", []string{"job", "true"}, 2, "want NAME -- COMMAND"},
		{"flag after NAME", []string{"job", "--ttl", "1s", "--", "true"}, 2, "want NAME -- COMMAND"},
		{"nothing after --", []string{"job", "--"}, 2, "want NAME -- COMMAND"},
		{"unknown flag", []string{"--nope", "job", "--", "true"}, 2, "flag provided but not defined: -nope"},
		{"zero TTL", []string{"--ttl", "0s", "job", "--", "true"}, 2, "--ttl must be positive"},
		{"negative wait", []string{"--wait", "-1s", "job", "--", "true"}, 2, "--wait and --grace cannot be negative"},
		{"no servers", []string{"--servers", " , ", "job", "--", "true"}, 2, "--servers: redlock: no URL in the server list"},
		{"bad token variable", []string{"--token-env", "A=B", "job", "--", "true"}, 2, `--token-env: "A=B" is not a variable name`},
		{"command not found", []string{"--servers", redis.URL, "job", "--", "retwis-no-such-command"}, 1,
			`retwis lock: exec: "retwis-no-such-command": executable file not found in $PATH`},
		{"no such file", []string{"--servers", redis.URL, "job", "--", "/nonexistent/cmd"}, 1, "no such file or directory"},
		{"bad URL", []string{"--servers", "http://x", "job", "--", "true"}, 1, `instance "http://x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, out := runLockCmd(t, tc.args...)
			if status != tc.status || !strings.Contains(out, tc.want) {
				t.Fatalf("status %d, output:\n%s\nwant %d and %q", status, out, tc.status, tc.want)
			}
		})
	}
}

// TestLockExitStatus checks the statuses of the usage, each on three
// servers of its own.
func TestLockExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hold     bool // another holder has the lock the whole time
		down     int  // servers stopped before
		args     []string
		status   int
		want     string        // in the output
		min, max time.Duration // bounds of the run time (max: well under any wait the case must not do, with room for a loaded machine)
	}{
		{name: "command succeeds", args: []string{"job", "--", "sh", "-c", "echo ran"}, status: 0, want: "ran\n"},
		{name: "command's own status", args: []string{"job", "--", "sh", "-c", "exit 3"}, status: 3},
		{name: "command killed by a signal", args: []string{"job", "--", "sh", "-c", "kill -KILL $$"}, status: 128 + 9,
			want: "retwis lock: sh: killed by signal 9 (killed)"},
		{name: "held, --wait 0", hold: true, args: []string{"job", "--", "true"}, status: exitNotAcquired,
			want: `retwis lock: lock "job" not acquired: held by someone else`, max: 3 * time.Second},
		{name: "held, --wait 300ms", hold: true, args: []string{"--wait", "300ms", "job", "--", "true"}, status: exitNotAcquired,
			want: `retwis lock: lock "job" not acquired within 300ms: held by someone else`, min: 300 * time.Millisecond, max: 3 * time.Second},
		{name: "1 of 3 servers down", down: 1, args: []string{"job", "--", "true"}, status: 0},
		{name: "2 of 3 servers down", down: 2, args: []string{"--wait", "10s", "job", "--", "true"}, status: exitUnavailable,
			want: `retwis lock: lock "job": redlock: quorum unreachable`, max: 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := startLockServers(t, 3)
			if tc.hold {
				holdLock(t, servers, "job")
			}
			for _, s := range servers[:tc.down] {
				s.Stop()
			}
			start := time.Now()
			status, out := runLockCmd(t, append([]string{"--servers", serverList(servers)}, tc.args...)...)
			took := time.Since(start)
			if status != tc.status || !strings.Contains(out, tc.want) {
				t.Fatalf("status %d, output:\n%s\nwant %d and %q", status, out, tc.status, tc.want)
			}
			if took < tc.min || tc.max > 0 && took > tc.max {
				t.Fatalf("took %s, want %s to %s", took, tc.min, tc.max)
			}
		})
	}
}

// TestLockExtends runs a command for more than three TTLs: the lock must
// be held all the while (on a majority of the servers, as Redlock
// defines it: one server may miss a write or an extension), and gone
// from every server once the command is done.
func TestLockExtends(t *testing.T) {
	servers := startLockServers(t, 3)
	dir := t.TempDir()
	started, finished := filepath.Join(dir, "started"), filepath.Join(dir, "finished")
	done := make(chan int, 1)
	go func() {
		// A TTL of a second: an extension is due every third of it, which
		// a machine loaded by the rest of the tests still keeps to (at
		// 500ms, one came late once, and the lock lapsed).
		status, out := runLockCmd(t, "--servers", serverList(servers), "--ttl", "1s", "job", "--",
			"sh", "-c", fmt.Sprintf("echo > %s; sleep 3.2; echo > %s", started, finished))
		if status != 0 {
			t.Errorf("status %d, output:\n%s", status, out)
		}
		done <- status
	}()
	waitForFile(t, started)
	checks := 0
	var failure string
	for running := true; running; {
		// The order matters: a key found missing is a failure only if the
		// command had not finished before the look.
		ttls := make([]string, len(servers))
		for i, s := range servers {
			ttls[i], _ = s.Command(context.Background(), "PTTL", "job")
		}
		_, err := os.Stat(finished)
		running = err != nil
		held := 0
		for _, ttl := range ttls {
			if n, _ := strconv.Atoi(ttl); n > 0 {
				held++
			}
		}
		if running && held <= len(servers)/2 {
			failure = fmt.Sprintf("after %d checks, the lock is on %d of %d servers (PTTL %v) while the command runs", checks, held, len(servers), ttls)
			break
		}
		checks++
		time.Sleep(50 * time.Millisecond)
	}
	<-done // the command's goroutine reports to t: it must end first
	if failure != "" {
		t.Fatal(failure)
	}
	if checks < 20 {
		t.Errorf("only %d checks while the command ran", checks)
	}
	for i, s := range servers {
		if n, err := s.Command(context.Background(), "EXISTS", "job"); err != nil || n != "0" {
			t.Errorf("server %d: EXISTS job = %s, %v after the command: not released", i, n, err)
		}
	}
}

// TestLockLost checks that a command is stopped, with all its processes,
// when its lock is lost: taken away on a majority of the servers, or
// expired after its last allowed extension.
func TestLockLost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		steal bool // delete the lock on two servers of three once the command runs
		want  string
	}{
		// Two stolen: the third may have expired too by the time the
		// loss is noticed, on a loaded machine.
		{"stolen", []string{"--ttl", "1s"}, true, " of 3 instances no longer hold it"},
		// TTLs long enough for the command to start on a loaded machine
		// before the lock runs out.
		{"extensions used up", []string{"--ttl", "1s", "--max-extensions", "2"}, false, "it expired after 2 extensions"},
		{"no extensions", []string{"--ttl", "1s", "--max-extensions", "0"}, false, "it expired after 0 extensions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := startLockServers(t, 3)
			pidFile := filepath.Join(t.TempDir(), "pid")
			type result struct {
				status int
				out    string
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				args := append([]string{"--servers", serverList(servers), "--grace", "1s"}, tc.flags...)
				status, out := runLockCmd(t, append(args, "job", "--", "sh", "-c", "echo $$ > "+pidFile+"; exec sleep 30")...)
				done <- result{status, out}
			}()
			pid, err := strconv.Atoi(waitForFile(t, pidFile))
			if err != nil {
				t.Fatal(err)
			}
			if tc.steal {
				for _, s := range servers[:2] {
					if _, err := s.Command(context.Background(), "DEL", "job"); err != nil {
						t.Fatal(err)
					}
				}
			}
			select {
			case r := <-done:
				if r.status != exitLost || !strings.Contains(r.out, `retwis lock: lost lock "job" (redlock: lock lost: `) ||
					!strings.Contains(r.out, tc.want) {
					t.Fatalf("status %d, output:\n%s\nwant %d and %q", r.status, r.out, exitLost, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("retwis lock still runs 5s after the lock was lost")
			}
			if alive(pid) {
				t.Fatalf("the command (pid %d) still runs", pid)
			}
			t.Logf("stopped after %s", time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestLockToken checks that the command gets the lock's name and a
// fencing token that grows with each holder, in the variable chosen.
func TestLockToken(t *testing.T) {
	servers := startLockServers(t, 3)
	file := filepath.Join(t.TempDir(), "token")
	var tokens []int
	for _, tc := range []struct{ flags []string }{
		{nil},
		{[]string{"--token-env", "FENCE"}},
	} {
		variable := "RETWIS_LOCK_TOKEN"
		if tc.flags != nil {
			variable = tc.flags[1]
		}
		args := append([]string{"--servers", serverList(servers)}, tc.flags...)
		args = append(args, "job", "--", "sh", "-c", fmt.Sprintf("echo $%s $RETWIS_LOCK_NAME > %s", variable, file))
		if status, out := runLockCmd(t, args...); status != 0 {
			t.Fatalf("status %d, output:\n%s", status, out)
		}
		var token int
		var name string
		line := waitForFile(t, file)
		if _, err := fmt.Sscan(line, &token, &name); err != nil || name != "job" {
			t.Fatalf("the command got %q: want a token and the name job", line)
		}
		tokens = append(tokens, token)
	}
	if tokens[0] < 1 || tokens[1] <= tokens[0] {
		t.Fatalf("tokens %v: want increasing from 1", tokens)
	}
}

// asRetwis is the name under which this test binary runs as the retwis
// command (see TestMain).
const asRetwis = "retwis"

// TestMain runs the tests, or, when this binary is started under the
// name retwis (retwisBinary's link), the retwis command itself: its main,
// with the arguments given. The tests that need retwis as processes of
// their own so run the same code as `go build` would make of it, without
// a build of the command (and of its dependencies without -race) taking
// most of their time.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == asRetwis {
		main()
	}
	os.Exit(m.Run())
}

// retwisBinary returns the path of a symbolic link named retwis to this
// test binary, which then runs as the retwis command (see TestMain), for
// tests that need processes of their own.
func retwisBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), asRetwis)
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestLockProcesses runs retwis lock as processes of its own: several at
// once must take turns, and the signals they get reach the command.
func TestLockProcesses(t *testing.T) {
	bin := retwisBinary(t)
	servers := startLockServers(t, 3)
	t.Run("mutual exclusion", func(t *testing.T) {
		ledger := filepath.Join(t.TempDir(), "ledger")
		const n = 6
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				out, err := exec.Command(bin, "lock", "--servers", serverList(servers), "--ttl", "5s", "--wait", "20s", "ledger", "--",
					"sh", "-c", "echo start $$ >> "+ledger+"; sleep 0.05; echo end $$ >> "+ledger).CombinedOutput()
				if err != nil {
					t.Errorf("retwis lock: %v\n%s", err, out)
				}
			})
		}
		wg.Wait()
		b, err := os.ReadFile(ledger)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		pids := map[string]bool{}
		for i := 0; i+1 < len(lines); i += 2 {
			start, end := strings.Fields(lines[i]), strings.Fields(lines[i+1])
			if len(start) != 2 || len(end) != 2 || start[0] != "start" || end[0] != "end" || start[1] != end[1] {
				t.Fatalf("line %d: %q then %q: the commands overlapped; ledger:\n%s", i+1, lines[i], lines[i+1], b)
			}
			pids[start[1]] = true
		}
		if len(lines) != 2*n || len(pids) != n {
			t.Fatalf("%d lines for %d commands, want %d for %d; ledger:\n%s", len(lines), len(pids), 2*n, n, b)
		}
	})
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
	}{{"forwards SIGINT", syscall.SIGINT}, {"forwards SIGTERM", syscall.SIGTERM}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile, got := filepath.Join(dir, "pid"), filepath.Join(dir, "got")
			// The trap shows that the command itself gets the signal, and
			// decides how it ends.
			cmd := exec.Command(bin, "lock", "--servers", serverList(servers), "job", "--", "sh", "-c",
				"trap 'echo signal > "+got+"; exit 7' INT TERM; echo $$ > "+pidFile+"; while :; do sleep 0.05; done")
			var out syncbuf.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitForFile(t, pidFile)
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 7 || waitForFile(t, got) != "signal" {
				t.Fatalf("retwis lock: %v, want exit status 7; output:\n%s", err, out.String())
			}
			for i, s := range servers {
				if n, err := s.Command(context.Background(), "EXISTS", "job"); err != nil || n != "0" {
					t.Errorf("server %d: EXISTS job = %s, %v: not released", i, n, err)
				}
			}
		})
	}
}

// TestLockOnCluster: a single --servers URL of a Redis Cluster spreads
// the lock over its masters, three keys on each of the three, while the
// command runs.
func TestLockOnCluster(t *testing.T) {
	url := redistest.Cluster(t)
	dir := t.TempDir()
	started, finish := filepath.Join(dir, "started"), filepath.Join(dir, "finish")
	done := make(chan string, 1)
	go func() {
		status, out := runLockCmd(t, "--servers", url, "job", "--",
			"sh", "-c", fmt.Sprintf("echo > %s; while [ ! -e %s ]; do sleep 0.02; done", started, finish))
		if status != 0 {
			out = fmt.Sprintf("status %d, output:\n%s", status, out)
		}
		done <- out
	}()
	waitForFile(t, started)
	client := must.Value(redisconn.Dial(url))(t)
	defer client.Close()
	masters := redisconn.NewNodes(client).Masters(t.Context())
	var held []int
	for _, node := range masters {
		held = append(held, len(redistest.Strs(t, node, "KEYS", "*job")))
	}
	must.OK(t, os.WriteFile(finish, nil, 0o600))
	if out := <-done; out != "" {
		t.Fatal(out)
	}
	if len(held) != 3 || held[0] != 3 || held[1] != 3 || held[2] != 3 {
		t.Fatalf("the lock's keys on the cluster's masters: %v; want 3 on each of 3", held)
	}
}

// TestLockMaxExtensionsDefault: by default a command holds the lock for
// about an hour, not for ever.
func TestLockMaxExtensionsDefault(t *testing.T) {
	var cfg lockConfig
	fs := newFlagSet("lock", io.Discard)
	cfg.register(fs)
	must.OK(t, parseLockArgs(fs, []string{"job", "--", "true"}, &cfg))
	n := cfg.redlockOptions().MaxExtensions
	if hold := cfg.ttl + time.Duration(n)*cfg.ttl/3; n < 0 || hold < time.Hour || hold > time.Hour+time.Minute {
		t.Fatalf("by default the lock is extended %d times (every %v): held %v; want about an hour", n, cfg.ttl/3, hold)
	}
}
