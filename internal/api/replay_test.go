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
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis/internal/api/instance"
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
// requires of that answer, each of the type it says, and every
// attribute Mastodon's documentation gives the entity at the version
// the server claims (docs/mastodon-entities.tsv), of its type, as apps
// that decode strictly need them; testdata/replays/known-gaps.tsv lists
// the attributes retwis leaves out, and why.
func TestClientReplays(t *testing.T) {
	t.Parallel()
	files := must.Value(filepath.Glob(filepath.Join(replayDir, "*.tsv")))(t)
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == knownGapsFile })
	if len(files) == 0 {
		t.Fatalf("no replays in %s", replayDir)
	}
	_, root := openapitest.Load(t, must.Value(os.ReadFile("openapi.json"))(t))
	gaps := &replayGaps{known: readKnownGaps(t), seen: map[string]bool{}}
	ran := 0
	t.Run("apps", func(t *testing.T) {
		for _, f := range files {
			calls := readReplay(t, f)
			t.Run(strings.TrimSuffix(filepath.Base(f), ".tsv"), func(t *testing.T) {
				ran++ // before t.Parallel: one subtest at a time
				t.Parallel()
				s := newServer(t)
				vars := replayState(t, s)
				for _, c := range calls {
					replay(t, s, root, gaps, c, vars)
				}
			})
		}
	})
	if ran == len(files) && !t.Failed() {
		for k, why := range gaps.known {
			if !gaps.seen[k] {
				t.Errorf("%s: %s is no longer missing from any answer (%s): remove it", knownGapsFile, k, why)
			}
		}
	}
}

// knownGapsFile lists the attributes of Mastodon's entities that
// retwis's answers may leave out, with why.
const knownGapsFile = "known-gaps.tsv"

// replayGaps are the known gaps, and those seen by the replays.
type replayGaps struct {
	known map[string]string // "entity attribute" → why
	mu    sync.Mutex
	seen  map[string]bool
}

// tolerates reports whether a mismatch is a known gap, noting it seen.
func (g *replayGaps) tolerates(m openapitest.Mismatch) bool {
	k := m.Entity + " " + m.Attribute
	if _, ok := g.known[k]; !ok || m.What != "missing" {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen[k] = true
	return true
}

// readKnownGaps reads testdata/replays/known-gaps.tsv.
func readKnownGaps(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, line := range strings.Split(string(must.Value(os.ReadFile(filepath.Join(replayDir, knownGapsFile)))(t)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("%s:%d: %d fields, want 3: entity, attribute, why", knownGapsFile, i+1, len(f))
		}
		out[f[0]+" "+f[1]] = f[2]
	}
	return out
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
func replay(t *testing.T, s *server, root any, gaps *replayGaps, c replayCall, vars map[string]string) {
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
	checkReplayBody(t, root, gaps, c, req.URL.Path, raw, where)
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
func checkReplayBody(t *testing.T, root any, gaps *replayGaps, c replayCall, path string, raw []byte, where string) {
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
	for _, m := range checkMastodonEntities(t, schema, body) {
		if !gaps.tolerates(m) {
			t.Errorf("%s: as Mastodon documents it: %s", where, m)
		}
	}
}

// mastodonEntities are the entities of Mastodon's documentation
// (docs/mastodon-entities.tsv) that the document's schemas are, by the
// schema's name: the entity, and the one that adds to it.
var mastodonEntities = map[string][]string{
	"Account": {"Account"}, "CredentialAccount": {"Account", "Account#CredentialAccount"},
	"Application": {"Application"}, "CredentialApplication": {"Application", "Application#CredentialApplication"},
	"Status": {"Status"}, "StatusEdit": {"StatusEdit"}, "StatusSource": {"StatusSource"}, "Context": {"Context"},
	"Notification": {"Notification"}, "NotificationPolicy": {"NotificationPolicy"}, "NotificationPolicyV1": {"V1_NotificationPolicy"},
	"Marker": {"Marker"}, "Tag": {"Tag"}, "Relationship": {"Relationship"}, "Search": {"Search"}, "Token": {"Token"},
	"InstanceV1": {"V1_Instance"}, "InstanceV2": {"Instance"}, "Rule": {"Rule"}, "Preferences": {"Preferences"},
	"Conversation": {"Conversation"}, "Report": {"Report"},
	// the names the features of issue 26 may give their schemas
	"List": {"List"}, "Filter": {"Filter"}, "FilterV2": {"Filter"}, "FilterV1": {"V1_Filter"}, "FilterKeyword": {"FilterKeyword"},
	"FilterStatus": {"FilterStatus"}, "WebPushSubscription": {"WebPushSubscription"}, "PushSubscription": {"WebPushSubscription"},
	"Suggestion": {"Suggestion"}, "Announcement": {"Announcement"}, "CustomEmoji": {"CustomEmoji"}, "PreviewCard": {"PreviewCard"},
	"TrendsLink": {"PreviewCard"}, "FeaturedTag": {"FeaturedTag"}, "FamiliarFollowers": {"FamiliarFollowers"},
}

// mastodonAttributes are the attributes of docs/mastodon-entities.tsv,
// read once.
var mastodonAttributes = sync.OnceValues(func() (map[string][]openapitest.Attribute, error) {
	text, err := os.ReadFile("../../docs/mastodon-entities.tsv")
	if err != nil {
		return nil, err
	}
	return openapitest.ReadEntitiesTSV(text)
})

// checkMastodonEntities checks a body whose schema is one of the
// document's entities (or an array or a map of them) against that
// entity as Mastodon's documentation gives it, for the version of
// Mastodon the server claims.
func checkMastodonEntities(t *testing.T, schema, body any) []openapitest.Mismatch {
	attrs, err := mastodonAttributes()
	if err != nil {
		t.Fatal(err)
	}
	name, values := schemaEntity(schema, body)
	version := strings.Join(strings.SplitN(strings.Fields(instance.Version)[0], ".", 3)[:2], ".")
	var errs []openapitest.Mismatch
	for _, entity := range mastodonEntities[name] {
		for _, v := range values {
			errs = append(errs, openapitest.CheckEntity(attrs, entity, v, version)...)
		}
	}
	return errs
}

// schemaEntity returns the name of the schema a response's schema
// refers to, itself or as the items of an array or the values of a map,
// and the values of body that are of it.
func schemaEntity(schema, body any) (string, []any) {
	s, _ := schema.(map[string]any)
	ref, _ := s["$ref"].(string)
	if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok {
		return name, []any{body}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if inner, ok := s[k]; ok {
			var values []any
			switch b := body.(type) {
			case []any:
				values = b
			case map[string]any:
				for _, v := range b {
					values = append(values, v)
				}
			}
			name, _ := schemaEntity(inner, nil)
			return name, values
		}
	}
	return "", nil
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
