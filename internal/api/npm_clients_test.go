package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/testkit/npmtest"
)

// The Mastodon client libraries of npm that the client API is tested
// with: testdata/npm holds their package.json and package-lock.json
// (exact versions), one script per library that uses it as an app does,
// and harness.mjs, the protocol between a script and runClientScript.
// A library more is a dependency more there, a script and a test here.

// npmDir is the folder of the scripts and the packages they use.
const npmDir = "testdata/npm"

// TestMain runs the tests, then removes the packages they installed.
func TestMain(m *testing.M) {
	code := m.Run()
	npmtest.Cleanup()
	os.Exit(code)
}

// npmPackages returns the folder where the scripts of testdata/npm run
// with the packages of its package-lock.json (npmtest.Install).
func npmPackages(t *testing.T) string {
	t.Helper()
	return npmtest.Install(t, npmDir)
}

// syncs are what a script may ask of its test (harness.mjs's sync), by
// name: each brings the server to the state it names, or acts for the
// script, given the data the script sent, and returns the answer.
type syncs map[string]func(data json.RawMessage) any

// state is a sync that brings the server to a state, with f, and
// answers nothing.
func state(f func()) func(json.RawMessage) any {
	return func(json.RawMessage) any { f(); return nil }
}

// scriptTime bounds the run of a script: a few seconds are enough.
const scriptTime = time.Minute

// runClientScript runs `node script` in the packages' folder dir with
// the environment env added (pairs "NAME=value"), answers its syncs,
// and decodes the result it reports into result. The script failing,
// reporting nothing or not in time fails the test, which then logs what
// the script wrote on its standard error.
func runClientScript(t *testing.T, dir, script string, on syncs, result any, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), scriptTime)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node %s: %v", script, err)
	}
	waited := false
	t.Cleanup(func() {
		if !waited { // the test failed midway: end the script
			cancel()
			_ = cmd.Wait()
		}
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("node %s wrote on its standard error:\n%s", script, stderr.Bytes())
		}
	})
	raw := converse(t, script, stdout, stdin, on)
	waited = true
	if err := cmd.Wait(); ctx.Err() != nil {
		t.Fatalf("node %s did not end within %v", script, scriptTime)
	} else if err != nil {
		t.Fatalf("node %s: %v", script, err)
	}
	if raw == nil {
		t.Fatalf("node %s reported no result", script)
	}
	if err := json.Unmarshal(raw, result); err != nil {
		t.Fatalf("node %s reported %s: %v", script, raw, err)
	}
}

// converse reads the lines a script writes until it ends, answering its
// syncs, and returns its result (nil if none).
func converse(t *testing.T, script string, stdout io.Reader, stdin io.Writer, on syncs) json.RawMessage {
	t.Helper()
	var result json.RawMessage
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var line struct {
			Sync         string
			Data, Result json.RawMessage
		}
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			t.Errorf("node %s wrote %q, not a line of harness.mjs", script, lines.Bytes())
			continue
		}
		if line.Result != nil {
			result = line.Result
			continue
		}
		f, ok := on[line.Sync]
		if !ok {
			t.Fatalf("node %s asks for sync %q, which its test does not know", script, line.Sync)
		}
		answer, err := json.Marshal(map[string]any{"sync": line.Sync, "answer": f(line.Data)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(stdin, "%s\n", answer); err != nil {
			t.Fatalf("answer node %s: %v", script, err)
		}
	}
	if err := lines.Err(); err != nil {
		t.Errorf("read node %s: %v", script, err)
	}
	return result
}
