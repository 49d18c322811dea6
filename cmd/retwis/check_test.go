package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// runCheckCmd runs retwis check with args and returns its exit status
// and output.
func runCheckCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	status := run(t.Context(), append([]string{"check"}, args...), &out, &errs)
	return status, out.String(), errs.String()
}

// TestCheckCommand checks a generated network (the bulk writer's indexes
// are sound), damages it, and checks again: the check reports the damage
// by kind with an example and fails; with --repair it fixes it; then the
// database is sound again.
func TestCheckCommand(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	loadInto(t, redis.URL, genOutput(t, "--users", "100", "--follows", "8", "--posts", "1000", "--until", "now"))
	if status, out, errs := runCheckCmd(t, "--redis", redis.URL, "--settle", "10ms"); status != 0 || !strings.Contains(out, "no problems found") {
		t.Fatalf("a generated network: exit %d\n%s%s", status, out, errs)
	}
	db, err := redisconn.Dial(redis.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, damage := range [][]string{
		{"ZADD", "followers:{5}", "1", "424242"}, // nobody of that id follows user 5
		{"LPUSH", "posts:{7}", "999999"},         // no such post
	} {
		if err := db.Do(t.Context(), db.B().Arbitrary(damage...).Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	status, out, errs := runCheckCmd(t, "--redis", redis.URL, "--settle", "10ms")
	for _, want := range []string{
		`(?m)^checked \d+ keys in \S+ \(\d+ keys/s\)$`,
		`(?m)^followers: a follower who does not follow: 1\n    user 424242 in the followers of 5$`,
		`(?m)^timelines: a timeline entry of a post that is gone: 1\n    post 999999 in posts:\{7\}$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Fatalf("the check's report lacks %s:\n%s", want, out)
		}
	}
	if status != 1 || !strings.Contains(errs, "problems found; run with --repair to fix them") {
		t.Fatalf("a check that found problems exited %d: %s", status, errs)
	}
	if status, out, errs := runCheckCmd(t, "--redis", redis.URL, "--settle", "10ms", "--repair"); status != 0 || strings.Count(out, "(repaired 1)") != 2 {
		t.Fatalf("check --repair: exit %d\n%s%s", status, out, errs)
	}
	if status, out, _ := runCheckCmd(t, "--redis", redis.URL, "--kinds", "followers,timelines"); status != 0 || !strings.Contains(out, "no problems found") {
		t.Fatalf("after the repair: exit %d\n%s", status, out)
	}
	for _, bad := range [][]string{{}, {"--redis", redis.URL, "--kinds", "everything"}, {"--redis", redis.URL, "--settle", "-1s"}} {
		if status, _, errs := runCheckCmd(t, bad...); status != 2 || errs == "" {
			t.Fatalf("check %v: exit %d, %q; want a usage error", bad, status, errs)
		}
	}
}

// TestCheckSizes: retwis check reports what the timelines of a sample of
// users take, bytes and post ids, home timeline and own posts.
func TestCheckSizes(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	loadInto(t, redis.URL, genOutput(t, "--users", "60", "--follows", "8", "--posts", "600", "--until", "now"))
	status, out, errs := runCheckCmd(t, "--redis", redis.URL, "--kinds", "followers", "--sizes", "50")
	if status != 0 {
		t.Fatalf("exit %d\n%s%s", status, out, errs)
	}
	for _, want := range []string{
		`(?m)^memory per user, 50 users sampled \(MEMORY USAGE\):$`,
		`(?m)^  home timeline, list and archive: mean [1-9][\d.]* (B|KB), p50 .*, max [\d.]+ (B|KB)$`,
		`(?m)^    post ids: mean [1-9]\d*, p50 \d+, p90 \d+, p99 \d+, max [1-9]\d* \(most: user [1-9]\d*\)$`,
		`(?m)^  own posts \(the profile, never trimmed\): mean [1-9][\d.]* (B|KB), .*$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Fatalf("the report lacks %s:\n%s", want, out)
		}
	}
	if status, out, _ := runCheckCmd(t, "--redis", redis.URL, "--kinds", "followers", "--sizes", "0"); status != 0 || strings.Contains(out, "memory per user") {
		t.Fatalf("--sizes 0: exit %d\n%s", status, out)
	}
}
