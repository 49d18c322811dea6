package main

import (
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestAdminAnnounce: an operator announces (one for later, one with an
// end), lists the announcements, removes one, and the store has the
// rest; mistakes are refused (status 1) and change nothing.
func TestAdminAnnounce(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	later := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"announce", "Welcome, see https://example.com"}, 0, "announced 1: Welcome"},
		{[]string{"announce", "Maintenance", "--starts-at", later}, 0, "announced 2"},
		{[]string{"announce", "Gone", "--ends-at", later}, 0, "announced 3"},
		{[]string{"announce", "--remove", "3"}, 0, "removed announcement 3"},
		{[]string{"announcements"}, 0, "2   no      " + later[:10]},
		{[]string{"announce"}, 1, "needs a TEXT"},
		{[]string{"announce", "x", "--ends-at", "tomorrow"}, 1, "not a time"},
		{[]string{"announce", "x", "--starts-at", later, "--ends-at", time.Now().UTC().Format(time.RFC3339)}, 1, "ends after it starts"},
		{[]string{"announce", "--remove", "9"}, 1, "no announcement 9"},
	} {
		status, out, errs := runAdminCmd(t, append([]string{"--redis", redis.URL}, c.args...)...)
		if status != c.status || !strings.Contains(out+errs, c.want) {
			t.Errorf("admin %v: status %d, %q %q; want %d, %q", c.args, status, out, errs, c.status, c.want)
		}
	}
	all := must.Value(announcements.New(storetest.Open(t, redis.URL, store.Options{})).All(t.Context()))(t)
	if len(all) != 2 || all[0].Text != "Welcome, see https://example.com" || all[1].Starts.IsZero() {
		t.Errorf("announcements = %+v; want Welcome, Maintenance later", all)
	}
}
