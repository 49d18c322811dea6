package main

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// runAdminCmd runs retwis admin with args and returns its exit status
// and output.
func runAdminCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	status := run(t.Context(), append([]string{"admin"}, args...), &out, &errs)
	return status, out.String(), errs.String()
}

// TestAdminCommand: an operator grants the moderator role, suspends an
// account (its posts vanish, its sessions end), deletes a post, lifts
// the suspension, and reads it all back from the audit log; mistakes are
// told apart from failures and change nothing.
func TestAdminCommand(t *testing.T) {
	redis := redistest.Start(t)
	st := storetest.Open(t, redis.URL, store.Options{})
	ctx := t.Context()
	var users []retwis.User
	for _, name := range []string{"mod", "spammer"} {
		u, _, err := st.Register(ctx, name, "password1")
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	published, err := st.Publish(ctx, posts.Draft{Author: users[1].ID, Text: "buy now"})
	if err != nil {
		t.Fatal(err)
	}
	spam := published.Post
	_, session, err := st.Login(ctx, "spammer", "password1")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SUDO_USER", "ops")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--redis", redis.URL, "grant-moderator", "@mod"}, "@mod (user"},
		{[]string{"--redis", redis.URL, "suspend", "spammer", "--reason", "selling"}, "suspended @spammer"},
	} {
		if status, out, errs := runAdminCmd(t, c.args...); status != 0 || !strings.Contains(out, c.want) {
			t.Fatalf("admin %v: exit %d\n%s%s", c.args, status, out, errs)
		}
	}
	if _, err := st.Post(ctx, 0, spam.ID); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("a suspended account's post reads as %v", err)
	}
	if _, err := st.Authenticate(ctx, session); err == nil {
		t.Error("a suspended account's session still works")
	}
	if is, err := st.IsModerator(ctx, users[0].ID); err != nil || !is {
		t.Errorf("granted: moderator %v, %v", is, err)
	}
	pid := strconv.FormatInt(spam.ID, 10)
	for _, args := range [][]string{{"unsuspend", "spammer"}, {"delete-post", pid, "--reason", "spam"}} {
		if status, out, errs := runAdminCmd(t, append([]string{"--redis", redis.URL}, args...)...); status != 0 {
			t.Fatalf("admin %v: exit %d\n%s%s", args, status, out, errs)
		}
	}
	if _, err := st.Post(ctx, 0, spam.ID); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("a deleted post reads as %v", err)
	}
	status, out, errs := runAdminCmd(t, "--redis", redis.URL, "audit", "--limit", "3")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var rows []string // the columns after the time, newest first
	for _, l := range lines[1:] {
		rows = append(rows, strings.Join(strings.Fields(l)[2:], " "))
	}
	if want := []string{"cli:ops delete-post post " + pid + " by @spammer spam", "cli:ops unsuspend @spammer", "cli:ops suspend @spammer selling"}; status != 0 || !slices.Equal(rows, want) {
		t.Errorf("audit: exit %d, rows %q; want %q\n%s", status, rows, want, errs)
	}
	raw, err := redisconn.Dial(redis.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	before := redistest.Snapshot(t, raw)
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"suspend", "nobody"}, 1, `no user called "nobody"`},
		{[]string{"delete-post", "12x"}, 1, "not a post id"},
		{[]string{"delete-post", "999999"}, 1, "There is no post"},
		{[]string{"promote", "mod"}, 2, `unknown action "promote"`},
		{[]string{"suspend"}, 2, "needs a USER"},
		{[]string{"suspend", "mod", "extra"}, 2, "unexpected argument"},
		{[]string{"suspend", "mod", "--reason", strings.Repeat("x", 1001)}, 1, "at most 1000"},
	} {
		status, out, errs := runAdminCmd(t, append([]string{"--redis", redis.URL}, c.args...)...)
		if status != c.status || !strings.Contains(errs, c.want) {
			t.Errorf("admin %v: exit %d, %q%q; want %d and %q", c.args, status, out, errs, c.status, c.want)
		}
	}
	if status, _, errs := runAdminCmd(t, "audit"); status != 2 || !strings.Contains(errs, "--redis is needed") {
		t.Errorf("without --redis: exit %d, %s", status, errs)
	}
	if after := redistest.Snapshot(t, raw); !maps.Equal(before, after) {
		t.Error("a refused action wrote to the database")
	}
}

// TestAdminAuditOfReports: a report of several posts, closed by a
// moderator, is read back from the audit log by retwis admin audit with
// every post it named.
func TestAdminAuditOfReports(t *testing.T) {
	redis := redistest.Start(t)
	st := storetest.Open(t, redis.URL, store.Options{})
	ctx := t.Context()
	var users []retwis.User
	for _, name := range []string{"reporter", "spammer"} {
		u, _, err := st.Register(ctx, name, "password1")
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	var pids []int64
	for _, text := range []string{"buy now", "buy more"} {
		p, err := st.Publish(ctx, posts.Draft{Author: users[1].ID, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, p.Post.ID)
	}
	rep, err := st.Report(ctx, users[0].ID, users[1].ID, pids, "spam, twice")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CloseReport(ctx, "@mod", rep.ID, "posts deleted"); err != nil {
		t.Fatal(err)
	}
	status, out, errs := runAdminCmd(t, "--redis", redis.URL, "audit", "--limit", "1")
	want := fmt.Sprintf("report %s (user %d, posts %d,%d, by %d: \"spam, twice\")", rep.ID, users[1].ID, pids[0], pids[1], users[0].ID)
	if status != 0 || !strings.Contains(out, want) || !strings.Contains(out, "close-report") {
		t.Errorf("audit: exit %d\n%s%s; want a line with %s", status, out, errs, want)
	}
}
