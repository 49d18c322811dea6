// Package npmtest is test-only: it installs the npm packages that a
// test folder's package-lock.json names (exact versions), once per run
// of a package's tests, for tests that run Node.js scripts with them
// (the Mastodon client libraries of npm, a Web Push decryptor).
package npmtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// NeedNode names the variable that makes a missing Node.js a failure
// rather than a skip: `make test` sets it, having installed Node.js.
const NeedNode = "RETWIS_NEED_NODE"

// installs are the folders installed in this run, by source folder.
var installs struct {
	sync.Mutex
	done map[string]*install
}

type install struct {
	once sync.Once
	dir  string
	err  error
}

// Install returns a temporary folder with the files of src (not a
// node_modules a person installed there) and the packages of its
// package-lock.json, installed by `npm ci` the first time a test asks
// in a run. Without node or npm on the PATH the test is skipped, or
// fails if RETWIS_NEED_NODE is set. Cleanup removes the folders.
func Install(t testing.TB, src string) string {
	t.Helper()
	for _, cmd := range []string{"node", "npm"} {
		if _, err := exec.LookPath(cmd); err != nil {
			if os.Getenv(NeedNode) != "" {
				t.Fatalf("%s is not on the PATH, and %s says the Node.js tests must run: `make packages` installs Node.js and npm", cmd, NeedNode)
			}
			t.Skipf("%s is not on the PATH (`make packages` installs Node.js and npm; with %s set, as `make test` sets it, this fails)", cmd, NeedNode)
		}
	}
	installs.Lock()
	if installs.done == nil {
		installs.done = map[string]*install{}
	}
	in := installs.done[src]
	if in == nil {
		in = &install{}
		installs.done[src] = in
	}
	installs.Unlock()
	in.once.Do(func() { in.dir, in.err = installNPM(src) })
	if in.err != nil {
		t.Fatal(in.err)
	}
	return in.dir
}

// Cleanup removes the folders Install made: call it from TestMain, after
// the tests.
func Cleanup() {
	installs.Lock()
	defer installs.Unlock()
	for _, in := range installs.done {
		if in.dir != "" {
			os.RemoveAll(in.dir)
		}
	}
}

// installNPM copies the files of src into a new temporary folder and
// runs `npm ci` there, from npm's cache when it has the packages,
// running none of their install scripts (the packages are JavaScript
// alone).
func installNPM(src string) (string, error) {
	dir, err := os.MkdirTemp("", "retwis-npm-")
	if err != nil {
		return "", err
	}
	files, err := os.ReadDir(src)
	if err != nil {
		return dir, err
	}
	for _, f := range files {
		if !f.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
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
		return dir, fmt.Errorf("npm ci of %s: %w\n%s", src, err, out)
	}
	return dir, nil
}
