package retwis_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
)

// TestPaths: the links to profiles, tags and posts; each is a path of
// two segments, the second of which a URL parser reads back as the name,
// tag or id whole (no "/", "?", "#" or "%" of it taken for syntax).
func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		got, want, segment string
	}{
		{retwis.ProfilePath("alice"), "/u/alice", "alice"},
		{retwis.ProfilePath("Bob_42"), "/u/Bob_42", "Bob_42"},
		{retwis.ProfilePath("a b"), "/u/a%20b", "a b"},
		{retwis.ProfilePath("a/b"), "/u/a%2Fb", "a/b"},
		{retwis.ProfilePath("who?#x"), "/u/who%3F%23x", "who?#x"},
		{retwis.ProfilePath("zoë"), "/u/zo%C3%AB", "zoë"},
		{retwis.TagPath("go"), "/tag/go", "go"},
		{retwis.TagPath("Café"), "/tag/Caf%C3%A9", "Café"},
		{retwis.TagPath("東京"), "/tag/%E6%9D%B1%E4%BA%AC", "東京"},
		{retwis.TagPath("100%"), "/tag/100%25", "100%"},
		{retwis.PostPath(1), "/p/1", "1"},
		{retwis.PostPath(9007199254740991), "/p/9007199254740991", "9007199254740991"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q; want %q", tc.got, tc.want)
			continue
		}
		u, err := url.Parse(tc.got)
		if err != nil || u.RawQuery != "" || u.Fragment != "" {
			t.Errorf("%q parses as %+v, %v; want a path alone", tc.got, u, err)
			continue
		}
		_, seg, _ := strings.Cut(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
		if got, err := url.PathUnescape(seg); strings.Contains(seg, "/") || err != nil || got != tc.segment {
			t.Errorf("%q: the last segment reads back as %q, %v; want %q", tc.got, got, err, tc.segment)
		}
	}
}

func TestParseID(t *testing.T) {
	for s, want := range map[string]int64{
		"1": 1, "42": 42, "9223372036854775807": 9223372036854775807,
		"": 0, "0": 0, "01": 0, "00": 0, "+1": 0, "-1": 0, " 1": 0, "1 ": 0, "1e3": 0, "0x1f": 0,
		"1_000": 0, "9223372036854775808": 0, "١": 0, "１": 0, "18446744073709551616": 0,
	} {
		if got, ok := retwis.ParseID(s); got != want || ok != (want != 0) {
			t.Errorf("ParseID(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
}

// FuzzParseID: an id is read from exactly one spelling, the one
// PostPath writes.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"1", "+1", "01", "9223372036854775807", "-0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := retwis.ParseID(s)
		if ok != (n > 0 && strconv.FormatInt(n, 10) == s) {
			t.Fatalf("ParseID(%q) = %d, %v", s, n, ok)
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && strconv.FormatInt(n, 10) == s && !ok {
			t.Fatalf("ParseID(%q) refused the id %d", s, n)
		}
	})
}
