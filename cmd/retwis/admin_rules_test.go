package main

import (
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestAdminRules: an operator adds rules (one with a hint), lists them,
// removes one, and the store has the rest; mistakes are usage errors
// (status 2) or refused (1), and change nothing.
func TestAdminRules(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"rules", "add", "Be kind"}, 0, "added rule 1: Be kind"},
		{[]string{"rules", "add", "No spam", "--hint", "Nor ads."}, 0, "added rule 2"},
		{[]string{"rules", "add", "No bots"}, 0, "added rule 3"},
		{[]string{"rules", "remove", "3"}, 0, "removed rule 3"},
		{[]string{"rules", "list"}, 0, "No spam  Nor ads."},
		{[]string{"rules", "add"}, 2, "rules add needs a TEXT"},
		{[]string{"rules", "add", " "}, 1, "needs a text"},
		{[]string{"rules", "remove", "9"}, 1, "no rule 9"},
		{[]string{"rules", "remove", "x"}, 1, "not a rule id"},
		{[]string{"rules", "drop"}, 1, "not list, add or remove"},
	} {
		status, out, errs := runAdminCmd(t, append([]string{"--redis", redis.URL}, c.args...)...)
		if status != c.status || !strings.Contains(out+errs, c.want) {
			t.Errorf("admin %v: status %d, %q %q; want %d, %q", c.args, status, out, errs, c.status, c.want)
		}
	}
	rules, err := storetest.Open(t, redis.URL, store.Options{}).Rules(t.Context())
	if err != nil || len(rules) != 2 || rules[0].Text != "Be kind" || rules[1].Hint != "Nor ads." {
		t.Errorf("rules = %+v, %v; want Be kind, No spam with its hint", rules, err)
	}
}
