package retwis_test

import (
	"net/url"
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
