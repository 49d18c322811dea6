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
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// The Mastodon client libraries of npm that the client API is tested
// with: testdata/npm holds their package.json and package-lock.json
// (exact versions), one script per library that uses it as an app does,
// and harness.mjs, the protocol between a script and runClientScript.
// A library more is a dependency more there, a script and a test here.

// npmDir is the folder of the scripts and the packages they use.
const npmDir = "testdata/npm"

// needNode names the variable that makes a missing Node.js a failure
// rather than a skip: `make test` sets it, having installed Node.js.
const needNode = "RETWIS_NEED_NODE"

// npmInstall is the one installation of the packages of a run of the
// tests: a temporary folder with the scripts and their node_modules,
// removed by TestMain.
var npmInstall struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain runs the tests, then removes the packages they installed.
func TestMain(m *testing.M) {
	code := m.Run()
	if npmInstall.dir != "" {
		os.RemoveAll(npmInstall.dir)
	}
	os.Exit(code)
}

// npmPackages returns the folder where the scripts of testdata/npm run
// with the packages of its package-lock.json, installed by `npm ci` the
// first time a test asks in a run. Without node or npm on the PATH the
// test is skipped, or fails if RETWIS_NEED_NODE is set.
func npmPackages(t *testing.T) string {
	t.Helper()
	for _, cmd := range []string{"node", "npm"} {
		if _, err := exec.LookPath(cmd); err != nil {
			if os.Getenv(needNode) != "" {
				t.Fatalf("%s is not on the PATH, and %s says the client libraries must be tested: `make packages` installs Node.js and npm", cmd, needNode)
			}
			t.Skipf("%s is not on the PATH (`make packages` installs Node.js and npm; with %s set, as `make test` sets it, this fails)", cmd, needNode)
		}
	}
	npmInstall.once.Do(func() { npmInstall.dir, npmInstall.err = installNPM() })
	if npmInstall.err != nil {
		t.Fatal(npmInstall.err)
	}
	return npmInstall.dir
}

// installNPM copies the files of testdata/npm (not a node_modules a
// person installed there) into a new temporary folder and runs `npm ci`
// there, from npm's cache when it has the packages, running none of
// their install scripts (the libraries are JavaScript alone).
func installNPM() (string, error) {
	dir, err := os.MkdirTemp("", "retwis-npm-")
	if err != nil {
		return "", err
	}
	files, err := os.ReadDir(npmDir)
	if err != nil {
		return dir, err
	}
	for _, f := range files {
		if !f.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(npmDir, f.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644)
		}
		if err != nil {
			return dir, fmt.Errorf("copy %s: %w", f.Name(), err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, fmt.Errorf("npm ci of %s: %w\n%s", npmDir, err, out)
	}
	return dir, nil
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
