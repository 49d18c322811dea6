package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// runLoadCmd runs `retwis load args… FILE` on input written to a file and
// returns its exit status and output.
func runLoadCmd(t testing.TB, input []byte, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "input.resp")
	if err := os.WriteFile(file, input, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	status = run(context.Background(), append(append([]string{"load"}, args...), file), &out, &errOut)
	return status, out.String(), errOut.String()
}

func TestLoadUsage(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	file := filepath.Join(t.TempDir(), "in.resp")
	os.WriteFile(file, resp.Commands([]string{"SET", "k", "v"}), 0o600)
	for _, tc := range []struct {
		name    string
		args    []string
		status  int
		want    string // in stdout or stderr
		notWant string
	}{
		{"flags after the file", []string{file, "--redis", redis.URL}, 0, "errors: 0, replies: 1", ""},
		{"help", []string{"-h"}, 0, "Usage: retwis load [flags] [FILE|-]", ""},
		{"two inputs", []string{"a", "b"}, 2, `one input at most, got ["a" "b"]`, ""},
		{"negative skip", []string{"--skip", "-1", file}, 2, "--skip cannot be negative", ""},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined: -nope", ""},
		{"missing file", []string{"--redis", redis.URL, "/nonexistent.resp"}, 1, "no such file or directory", ""},
		{"bad URL scheme", []string{"--redis", "http://x", file}, 1, "invalid URL scheme: http", ""},
		{"no server", []string{"--redis", "redis://u:hunter2@127.0.0.1:1", file}, 1,
			"connect to redis://u:xxxxx@127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused", "hunter2"},
		{"--cluster on a single server", []string{"--cluster", "--redis", redis.URL, file}, 1,
			"CLUSTER SLOTS: ERR This instance has cluster support disabled", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			status := run(t.Context(), append([]string{"load"}, tc.args...), &out, &out)
			if status != tc.status || !strings.Contains(out.String(), tc.want) ||
				tc.notWant != "" && strings.Contains(out.String(), tc.notWant) {
				t.Fatalf("status %d, output:\n%s\nwant %d and %q", status, out.String(), tc.status, tc.want)
			}
		})
	}
}

// TestLoadStdin reads the commands from standard input, with no file
// argument and with "-".
func TestLoadStdin(t *testing.T) { // not in parallel: it replaces os.Stdin
	redis := redistest.Start(t)
	for _, args := range [][]string{{"--redis", redis.URL}, {"--redis", redis.URL, "-"}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			w.Write(resp.Commands([]string{"INCR", "n"}, []string{"INCR", "n"}))
			w.Close()
		}()
		stdin := os.Stdin
		os.Stdin = r
		var out bytes.Buffer
		status := run(t.Context(), append([]string{"load"}, args...), &out, &out)
		os.Stdin = stdin
		r.Close()
		if status != 0 || !strings.Contains(out.String(), "errors: 0, replies: 2") {
			t.Fatalf("%q: status %d, output:\n%s", args, status, out.String())
		}
	}
}

// TestLoadOutput checks what retwis load prints of the report of a load:
// the error replies and the counts on stdout; the summary, a note on a
// --skip past the end, and how to resume a load that broke off (here on
// a command that never replies, past --timeout) on stderr.
func TestLoadOutput(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	for _, tc := range []struct {
		name   string
		cmds   [][]string
		args   []string
		status int
		stdout string
		stderr []string // in order
	}{
		{"error replies", [][]string{{"SET", "s", "v"}, {"LPUSH", "s", "x"}}, nil, 1,
			"command 2: WRONGTYPE Operation against a key holding the wrong kind of value\nerrors: 1, replies: 2\n",
			[]string{"sent 2 commands (", "retwis load: 1 of 2 commands failed\n"}},
		{"skip past the end", [][]string{{"SET", "a", "1"}, {"SET", "b", "2"}}, []string{"--skip", "3"}, 0,
			"errors: 0, replies: 0\n",
			[]string{"sent 0 commands (0.0 MB) after skipping 2 in ", "note: the input has only 2 commands: --skip 3 skipped them all\n"}},
		{"broke off", [][]string{{"SET", "a", "1"}, {"SET", "b", "2"}, {"BLPOP", "nothing", "0"}, {"SET", "c", "3"}},
			[]string{"--timeout", "300ms"}, 1, "errors: 0, replies: 2\n",
			[]string{"sent 4 commands (", "retwis load: load broke off: ", "no reply for 300ms after the last command was sent",
				"\n2 commands acknowledged (every one from 1 to 2 got a reply): resume with --skip 2\n"}},
		{"broke off after a skip", [][]string{{"SET", "a", "1"}, {"BLPOP", "nothing", "0"}, {"SET", "c", "3"}},
			[]string{"--skip", "1", "--timeout", "300ms"}, 1, "errors: 0, replies: 0\n",
			[]string{"after skipping 1", "\n1 commands acknowledged (every one from 1 to 1 got a reply or was skipped): resume with --skip 1\n"}},
		{"broke off at once", [][]string{{"BLPOP", "nothing", "0"}}, []string{"--timeout", "300ms"}, 1, "errors: 0, replies: 0\n",
			[]string{"\nno command was acknowledged: load again from the start\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, stdout, stderr := runLoadCmd(t, resp.Commands(tc.cmds...), append([]string{"--redis", redis.URL}, tc.args...)...)
			rest := stderr
			for _, want := range tc.stderr {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("stderr:\n%s\nlacks %q (in order)", stderr, want)
				}
				rest = rest[i+len(want):]
			}
			if status != tc.status || stdout != tc.stdout {
				t.Fatalf("status %d, stdout:\n%s\nwant %d and:\n%s", status, stdout, tc.status, tc.stdout)
			}
		})
	}
}
