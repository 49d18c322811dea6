package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImport converts a small edge list, users CSV and posts JSON Lines
// with bad lines in each, loads the result into a real Redis, and checks
// what was imported, what was skipped (by line number), and the timelines.
func TestImport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`# a SNAP-style edge list: follower followee
10 20
10 30
20 30
10 20
30 30
40 x
50

20	10
`))
	zw.Close()
	graph := writeFile(t, dir, "graph.txt.gz", gz.String())
	users := writeFile(t, dir, "users.csv", "id,username,created\n10,alice,1401267618\n20,Bob,2014-05-28T10:00:00Z\n30,has space,0\n40,ALICE,0\nnope,carol,0\n")
	posts := writeFile(t, dir, "posts.jsonl", `{"user": 20, "time": 1401267700, "body": "first from bob"}
{"user": 30, "time": 1401267800, "body": "from u30"}
not json
{"user": 99, "time": 1401267900, "body": "unknown author"}
{"user": 20, "time": "2014-05-28T12:00:00Z", "body": "   "}
{"user": 10, "time": "yesterday", "body": "bad time"}
{"user": 10, "time": 1401268000, "body": "alice <b>writes</b>"}
`)
	var out, errs bytes.Buffer
	status := run(t.Context(), []string{"import", "--graph", graph, "--users", users, "--posts", posts}, &out, &errs)
	if status != 0 {
		t.Fatalf("import exited %d: %s", status, errs.String())
	}
	for _, want := range []string{
		"graph line 6: user 30 follows itself",
		"graph line 7: ids must be whole numbers",
		"graph line 8: want two ids",
		`users line 4: username "has space"`,
		`users line 5: username "ALICE" is taken`,
		`users line 6: id "nope" is not a number`,
		"posts line 3: not a JSON object",
		"posts line 4: user 99 is in neither",
		"posts line 5: body: Please write something",
		`posts line 6: time "yesterday"`,
		"3 users, 4 follows, 3 posts", "10 lines skipped", // user 40 is only on rejected lines
	} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("import's report lacks %q:\n%s", want, errs.String())
		}
	}

	redis := redistest.Start(t)
	socket := strings.TrimPrefix(redis.URL, "unix://")
	loadInto(t, redis.URL, out.Bytes())
	get := func(args ...string) []string {
		res, err := exec.Command("redis-cli", append([]string{"-s", socket}, args...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(res))
	}
	// alice is user 1 (first in the users file), Bob 2, u30 the graph's 30 → 3.
	if bob, err := storetest.Open(t, redis.URL, store.Options{}).UserByName(t.Context(), "Bob"); err != nil || bob.ID != 2 {
		t.Fatalf("Bob = %v, %v; want user 2", bob, err)
	}
	if got := get("ZRANGE", "following:{1}", "0", "-1"); !slices.Equal(got, []string{"2", "3"}) {
		t.Fatalf("alice follows %v; want Bob and u30 (the duplicate edge once)", got)
	}
	if got := get("LRANGE", "posts:{1}", "0", "-1"); !slices.Equal(got, []string{"3", "2", "1"}) {
		t.Fatalf("alice's home timeline = %v; want her post, u30's and Bob's, newest first", got)
	}
	if got := get("LRANGE", "timeline", "0", "-1"); !slices.Equal(got, []string{"3", "2", "1"}) {
		t.Fatalf("global timeline = %v", got)
	}
	if got := get("HGET", "post:3", "body"); strings.Join(got, " ") != "alice <b>writes</b>" {
		t.Fatalf("post 3 body = %v", got)
	}
}

func TestImportNeedsGraph(t *testing.T) {
	t.Parallel()
	var errs bytes.Buffer
	if status := run(t.Context(), []string{"import"}, &errs, &errs); status == 0 || !strings.Contains(errs.String(), "--graph is required") {
		t.Fatalf("import without --graph: %d %s", status, errs.String())
	}
	if status := run(t.Context(), []string{"import", "--graph", "/nonexistent"}, &errs, &errs); status == 0 {
		t.Fatal("import of a missing file succeeded")
	}
}
