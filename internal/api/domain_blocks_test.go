package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestDomainBlocks: a user blocks domains (in any case, again without
// change), lists them newest first paged by the Link header, unblocks
// one; what is no domain, and this server's own, are refused with a
// message and change nothing.
func TestDomainBlocks(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, token := s.User("alice")
	for _, d := range []string{"one.example", "Two.Example", "three.example", "two.example."} {
		if r := s.Call(http.MethodPost, "/api/v1/domain_blocks", token, url.Values{"domain": {d}}); r.Status != http.StatusOK {
			t.Fatalf("block %s: %d %s", d, r.Status, r.Body)
		}
	}
	host, _, _ := strings.Cut(strings.TrimPrefix(s.URL, "http://"), ":")
	for _, bad := range []string{"", "nodots", "a..example", "-a.example", "ex ample.com", "ünï.example", host} {
		if r := s.Call(http.MethodPost, "/api/v1/domain_blocks", token, url.Values{"domain": {bad}}); r.Status != http.StatusUnprocessableEntity || r.ErrorMessage(t) == "" {
			t.Errorf("block %q: %d %s; want 422 with a message", bad, r.Status, r.Body)
		}
	}
	var first, rest []string
	r := s.Call(http.MethodGet, "/api/v1/domain_blocks?limit=2", token, nil)
	r.Decode(t, &first)
	next := linkNext(r.Header.Get("Link"))
	if !slices.Equal(first, []string{"three.example", "two.example"}) || next == "" {
		t.Fatalf("first page %q, Link %q; want the newest two and a next page", first, r.Header.Get("Link"))
	}
	s.Call(http.MethodGet, strings.TrimPrefix(next, s.URL), token, nil).Decode(t, &rest)
	if !slices.Equal(rest, []string{"one.example"}) {
		t.Fatalf("next page %q; want one.example", rest)
	}
	if r := s.Call(http.MethodDelete, "/api/v1/domain_blocks?domain=TWO.example", token, nil); r.Status != http.StatusOK {
		t.Fatalf("unblock: %d %s", r.Status, r.Body)
	}
	var all []string
	s.Call(http.MethodGet, "/api/v1/domain_blocks", token, nil).Decode(t, &all)
	if !slices.Equal(all, []string{"three.example", "one.example"}) {
		t.Fatalf("after unblocking two.example: %q", all)
	}
	if r := s.Call(http.MethodGet, "/api/v1/domain_blocks", "", nil); r.Status != http.StatusUnauthorized {
		t.Errorf("without a token: %d; want 401", r.Status)
	}
}

// linkNext returns the URL of a Link header's rel="next", or "".
func linkNext(link string) string {
	for part := range strings.SplitSeq(link, ",") {
		var u string
		if _, err := fmt.Sscanf(strings.TrimSpace(part), "<%s", &u); err == nil && strings.Contains(part, `rel="next"`) {
			return strings.TrimSuffix(u, ">;")
		}
	}
	return ""
}
