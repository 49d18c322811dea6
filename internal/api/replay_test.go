package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/openapitest"
)

// replayDir holds the calls each app makes at login and first load
// (its README says how they are written).
const replayDir = "testdata/replays"

// replayCall is one line of a replay: a call and the status it must
// answer, with where in the app it comes from.
type replayCall struct {
	line                       int
	method, path, body, source string
	status                     int
}

// TestClientReplays replays, for each app of testdata/replays (Ice
// Cubes, Tusky, Elk, Phanpy, Ivory), the calls it makes when a user logs
// in and it first loads, against a server where ana follows bob, who
// mentioned her in a post with a hashtag: the app registered, ana
// approving it on the authorization page, the code exchanged for a
// token, then the app's first calls with it. Each must answer the
// status the app needs, with a body that has every field openapi.json
// requires of that answer, each of the type it says (as apps that decode
// strictly need them).
func TestClientReplays(t *testing.T) {
	t.Parallel()
	files := must.Value(filepath.Glob(filepath.Join(replayDir, "*.tsv")))(t)
	if len(files) == 0 {
		t.Fatalf("no replays in %s", replayDir)
	}
	_, root := openapitest.Load(t, must.Value(os.ReadFile("openapi.json"))(t))
	for _, f := range files {
		calls := readReplay(t, f)
		t.Run(strings.TrimSuffix(filepath.Base(f), ".tsv"), func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			vars := replayState(t, s)
			for _, c := range calls {
				replay(t, s, root, c, vars)
			}
		})
	}
}

// readReplay reads the calls of a replay file.
func readReplay(t *testing.T, name string) []replayCall {
	t.Helper()
	var calls []replayCall
	for i, line := range strings.Split(string(must.Value(os.ReadFile(name))(t)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("%s:%d: %d fields, want 5: method, path, body, status, source", name, i+1, len(f))
		}
		status, err := strconv.Atoi(f[3])
		if err != nil {
			t.Fatalf("%s:%d: status %q: %v", name, i+1, f[3], err)
		}
		calls = append(calls, replayCall{i + 1, f[0], f[1], f[2], f[4], status})
	}
	return calls
}

// replayState brings the server to the state an app finds: ana follows
// bob, who mentioned her in a post with a hashtag, and she posted; it
// returns the values the calls name.
func replayState(t *testing.T, s *server) map[string]string {
	t.Helper()
	ctx := t.Context()
	ana, bob := client(t, s, "ana"), client(t, s, "bob")
	me := must.Value(ana.GetAccountCurrentUser(ctx))(t)
	friend := must.Value(bob.GetAccountCurrentUser(ctx))(t)
	must.Value(ana.AccountFollow(ctx, friend.ID))(t)
	post := must.Value(bob.PostStatus(ctx, &mastodon.Toot{Status: "@ana hello from bob #retwis"}))(t)
	must.Value(ana.PostStatus(ctx, &mastodon.Toot{Status: "ana's first post"}))(t)
	s.Drain()
	notes := must.Value(ana.GetNotifications(ctx, nil))(t)
	if len(notes) == 0 {
		t.Fatal("ana has no notification of bob's mention")
	}
	return map[string]string{"me": string(me.ID), "friend": string(friend.ID), "status": string(post.ID),
		"notification": string(notes[0].ID), "tag": "retwis"}
}

// replay makes one call as the app does, and checks its answer; it
// keeps in vars what later calls name (the app's id and secret, the
// code, the token).
func replay(t *testing.T, s *server, root any, c replayCall, vars map[string]string) {
	t.Helper()
	path := expand(c.path, vars)
	if c.method == "AUTHORIZE" { // ana at the browser
		vars["code"] = newBrowser(t).approve(s.URL, s.URL+path, "ana")
		return
	}
	req := must.Value(http.NewRequestWithContext(t.Context(), c.method, s.URL+path, nil))(t)
	if c.body != "-" {
		body := expand(c.body, vars)
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if strings.HasPrefix(body, "{") {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if tok := vars["access_token"]; tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp := must.Value(http.DefaultClient.Do(req))(t)
	defer resp.Body.Close()
	raw := must.Value(io.ReadAll(resp.Body))(t)
	where := fmt.Sprintf("line %d, %s %s (%s)", c.line, c.method, c.path, c.source)
	if resp.StatusCode != c.status {
		t.Errorf("%s: %d %s; want %d", where, resp.StatusCode, bytes.TrimSpace(raw), c.status)
		return
	}
	checkReplayBody(t, root, c, req.URL.Path, raw, where)
	var keep map[string]any
	if json.Unmarshal(raw, &keep) == nil {
		for _, k := range []string{"client_id", "client_secret", "access_token"} {
			if v, ok := keep[k].(string); ok {
				vars[k] = v
			}
		}
	}
}

// checkReplayBody checks an answer's body against the schema that the
// document root gives it.
func checkReplayBody(t *testing.T, root any, c replayCall, path string, raw []byte, where string) {
	t.Helper()
	schema, found := openapitest.ResponseSchema(root, c.method, path, c.status)
	if !found {
		t.Errorf("%s: openapi.json has no such operation", where)
		return
	}
	if schema == nil {
		return
	}
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Errorf("%s: the body is not JSON: %v: %.200s", where, err, raw)
		return
	}
	for _, e := range openapitest.Validate(root, schema, body) {
		t.Errorf("%s: %s", where, e)
	}
}

// expand replaces each {name} of s by the value vars has for it, escaped
// for a URL's query when s is one (a path and query, or form fields).
func expand(s string, vars map[string]string) string {
	json := strings.HasPrefix(s, "{")
	for k, v := range vars {
		if !json {
			v = url.QueryEscape(v)
		}
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}
