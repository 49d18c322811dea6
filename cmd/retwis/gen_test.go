package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

func genOutput(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errs bytes.Buffer
	if status := run(t.Context(), append([]string{"gen"}, args...), &out, &errs); status != 0 {
		t.Fatalf("gen %v exited %d: %s", args, status, errs.String())
	}
	return out.Bytes()
}

func TestGenDeterministic(t *testing.T) {
	t.Parallel()
	small := []string{"--users", "50", "--follows", "5", "--posts", "400"}
	a := sha256.Sum256(genOutput(t, append(small, "--seed", "7")...))
	b := sha256.Sum256(genOutput(t, append(small, "--seed", "7")...))
	c := sha256.Sum256(genOutput(t, append(small, "--seed", "8")...))
	if a != b {
		t.Fatal("the same seed gave different output")
	}
	if a == c {
		t.Fatal("different seeds gave the same output")
	}
	var errs bytes.Buffer
	for _, bad := range [][]string{{"--users", "1"}, {"--follows", "60", "--users", "50"}, {"--until", "yesterday"}, {"--posts", "-1"}} {
		if status := run(t.Context(), append([]string{"gen"}, bad...), io.Discard, &errs); status == 0 {
			t.Errorf("gen %v succeeded", bad)
		}
	}
}

// TestGenServed loads a generated network with redis-cli --pipe and
// checks that retwis serves it: a user logs in with the documented
// password and their home page shows the newest posts of the users they
// follow, in order (and boosts between them); its conversations are indexed (tag pages, mentions,
// threads).
func TestGenServed(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	data := genOutput(t, "--users", "200", "--follows", "10", "--posts", "5000", "--until", "now")
	socket := strings.TrimPrefix(redis.URL, "unix://")
	loadInto(t, redis.URL, data)
	base, stop := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL})
	defer stop()
	jar := must.Value(cookiejar.New(nil))(t)
	c := &http.Client{Jar: jar}
	res, err := c.PostForm(base+"/login", url.Values{"username": {"user17"}, "password": {"retwispass"}})
	if err != nil {
		t.Fatal(err)
	}
	body := must.Value(io.ReadAll(res.Body))(t)
	res.Body.Close()
	if !regexp.MustCompile(`<h1>Hi, (<bdi>[^<]+</bdi> <span class="handle">@user17</span>|user17)</h1>`).Match(body) { // with a display name or without
		t.Fatalf("a generated user cannot log in:\n%s", body)
	}
	got := regexp.MustCompile(`href="/p/(\d+)"`).FindAllStringSubmatch(withoutBoosts(string(body)), -1)
	want := newestFollowedPosts(t, socket, "17", len(got))
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("home page shows %d posts; want %d", len(got), len(want))
	}
	for i := range got {
		if got[i][1] != want[i] {
			t.Fatalf("home page post %d is %s; want %s (newest of user17 and those followed)", i, got[i][1], want[i])
		}
	}
	checkConversations(t, c, base, "user17")
	checkPeople(t, c, base)
	var out, errs bytes.Buffer
	err = runSpam(t.Context(), []string{"--redis", redis.URL, "--posts", "1-", "--joined-within", "87600h", "--limit", "3"}, &out, &errs)
	if err != nil || !regexp.MustCompile(`(?m)^USER +ID +FOLLOWERS +POSTS \(7 DAYS\) +JOINED\n(user\d+ +\d+ +\d+ +[1-9]\d* +\d{4}-\d\d-\d\d\n){3}3 of \d+ matching accounts\n$`).Match(out.Bytes()) {
		t.Fatalf("retwis spam: %v\n%s%s", err, out.String(), errs.String())
	}
}

// checkPeople checks that the people of a generated network are found
// by the search and the directory, and have follower lists.
func checkPeople(t *testing.T, c *http.Client, base string) {
	t.Helper()
	for path, want := range map[string]string{
		"/search?q=USER17":          `<span class="username">@user17</span>`,
		"/complete/people?q=user17": `"username":"user17"`,
		"/u/user1/followers":        `loading="lazy"><a class="username" href="/u/user`, // after the avatar
		"/explore?followers=0-":     `<h2>200 accounts, the most followed first</h2>`,
		"/explore?posts=1-":         `posts this week`,
	} {
		res, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body := must.Value(io.ReadAll(res.Body))(t)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(want)) {
			t.Fatalf("GET %s: %s, without %s:\n%s", path, res.Status, want, body)
		}
	}
}

// checkConversations checks, as user, that the conversation pages of a
// generated network are served: a tag page lists posts with the tag, the
// mentions page posts that mention the user, and the thread of a reply
// shows the post it answers, whose thread lists the reply.
func checkConversations(t *testing.T, c *http.Client, base, user string) {
	t.Helper()
	get := func(path string) string {
		t.Helper()
		res, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body := must.Value(io.ReadAll(res.Body))(t)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s\n%s", path, res.Status, body)
		}
		return string(body)
	}
	articles := func(page string) []string { return strings.Split(page, `<article class="post" `)[1:] }
	tagged := articles(get("/tag/REDIS"))
	mentions := articles(get("/mentions"))
	if len(tagged) == 0 || len(mentions) == 0 {
		t.Fatalf("the tag page lists %d posts, the mentions page %d; want some", len(tagged), len(mentions))
	}
	for _, a := range tagged {
		if !strings.Contains(a, `href="/tag/redis"`) {
			t.Fatalf("a post on the page of #redis does not have it:\n%s", a)
		}
	}
	for _, a := range mentions {
		if !strings.Contains(a, `href="/u/`+user+`"`) {
			t.Fatalf("a post on %s's mentions does not mention them:\n%s", user, a)
		}
	}
	m := regexp.MustCompile(`id="p(\d+)">\s*(?:<img class="avatar"[^>]*>)?<a class="author"[^>]*>(<bdi class="name">[^<]*</bdi> )?<span class="username">@[^<]*</span></a> <span class="reply-to">in reply to <a href="/p/(\d+)"`).
		FindStringSubmatch(get("/timeline"))
	if m == nil {
		t.Fatal("no reply on the first page of the timeline")
	}
	reply, parent := m[1], m[3]
	_, above, _ := strings.Cut(get("/p/"+reply), `<div class="ancestors">`)
	if above, _, _ = strings.Cut(above, `<div class="focus">`); !strings.Contains(above, `id="p`+parent+`"`) {
		t.Fatalf("the thread of reply %s does not show post %s above it:\n%s", reply, parent, above)
	}
	if _, replies, _ := strings.Cut(get("/p/"+parent), `<section class="replies">`); !strings.Contains(replies, `id="p`+reply+`"`) {
		t.Fatalf("the thread of post %s does not list its reply %s", parent, reply)
	}
}

// loadInto loads RESP data into the Redis at url with retwis load.
func loadInto(t *testing.T, url string, data []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.resp")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if status := run(t.Context(), []string{"load", "--redis", url, path}, &out, &out); status != 0 || !strings.Contains(out.String(), "errors: 0") {
		t.Fatalf("retwis load exited %d:\n%s", status, out.String())
	}
}

// withoutBoosts returns page without the boosts it shows, each a block
// around the post it boosts.
func withoutBoosts(page string) string {
	return regexp.MustCompile(`(?s)<div class="boost".*?</article>`).ReplaceAllString(page, "")
}

// newestFollowedPosts asks Redis for the n newest posts (not boosts) by
// uid or anyone uid follows.
func newestFollowedPosts(t *testing.T, socket, uid string, n int) []string {
	t.Helper()
	cli := func(args ...string) []string {
		out, err := exec.Command("redis-cli", append([]string{"-s", socket}, args...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(out))
	}
	authors := append(cli("ZRANGE", "following:{"+uid+"}", "0", "-1"), uid)
	var all []int
	for _, a := range authors {
		for _, p := range cli("ZRANGE", "user_posts:{"+a+"}", "0", "-1") {
			id, err := strconv.Atoi(p)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, id)
		}
	}
	slices.Sort(all)
	slices.Reverse(all)
	var out []string
	for _, id := range all {
		if len(out) == n {
			break
		}
		if boost := cli("HEXISTS", "post:"+strconv.Itoa(id), "reblog_of"); boost[0] == "0" {
			out = append(out, strconv.Itoa(id))
		}
	}
	return out
}

// TestGenOutputAllOrNothing checks that --out FILE appears only when gen
// or import has finished: an interrupted run (Ctrl-C) or a failed one
// leaves neither the file nor a temporary one behind, and a complete run
// leaves exactly the file.
func TestGenOutputAllOrNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	graph := filepath.Join(dir, "graph.txt")
	if err := os.WriteFile(graph, []byte("1 2\n2 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		ctx  context.Context
		args []string
	}{
		{cancelled, []string{"gen", "--users", "5000", "--posts", "5000", "--out", filepath.Join(dir, "gen.resp")}},
		{cancelled, []string{"import", "--graph", graph, "--out", filepath.Join(dir, "import.resp")}},
		{t.Context(), []string{"import", "--graph", graph, "--posts", filepath.Join(dir, "missing.csv"), "--out", filepath.Join(dir, "failed.resp")}},
	} {
		if status := run(tc.ctx, tc.args, io.Discard, io.Discard); status == 0 {
			t.Fatalf("%v succeeded", tc.args)
		}
	}
	if entries := must.Value(os.ReadDir(dir))(t); len(entries) != 1 {
		t.Fatalf("interrupted or failed runs left files: %v", entries)
	}
	out := filepath.Join(dir, "done.resp")
	if status := run(t.Context(), []string{"gen", "--users", "20", "--follows", "5", "--posts", "50", "--out", out}, io.Discard, io.Discard); status != 0 {
		t.Fatalf("gen exited %d", status)
	}
	if entries := must.Value(os.ReadDir(dir))(t); len(entries) != 2 {
		t.Fatalf("a complete run left %v; want the graph and the output", entries)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(b, []byte("*")) {
		t.Fatalf("the output is not RESP: %v", err)
	}
}
