package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"testing"

	"github.com/retwis/retwis/internal/testkit/servertest"
)

// statusIDs reads a list of statuses' ids.
func statusIDs(t *testing.T, r servertest.Reply) []string {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var list []struct{ ID string }
	r.Decode(t, &list)
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

var linkRel = regexp.MustCompile(`<([^>]+)>; rel="(next|prev)"`)

// links reads a Link header into rel -> path and query.
func links(t *testing.T, r servertest.Reply) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range linkRel.FindAllStringSubmatch(r.Header.Get("Link"), -1) {
		u, err := url.Parse(m[1])
		if err != nil || u.Scheme != "http" || u.Host == "" {
			t.Fatalf("link %q is not an absolute URL", m[1])
		}
		out[m[2]] = u.RequestURI()
	}
	return out
}

// TestTimelinePaging pages the public, home and tag timelines with
// max_id, min_id and since_id, following the Link headers as apps do.
func TestTimelinePaging(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	author, token := s.User("author")
	_, readerToken := s.User("reader")
	var posted []string
	for i := range 7 {
		r := s.Call(http.MethodPost, "/api/v1/statuses", token, url.Values{"status": {fmt.Sprint("post ", i, " #paging")}})
		var st struct{ ID string }
		r.Decode(t, &st)
		posted = append(posted, st.ID)
	}
	s.Drain()
	newest := reversed(posted)
	for _, path := range []string{"/api/v1/timelines/public", "/api/v1/timelines/tag/PAGING", "/api/v1/accounts/" + id(author.ID) + "/statuses"} {
		r := s.Call(http.MethodGet, path+"?limit=3", readerToken, nil)
		if got := statusIDs(t, r); !slices.Equal(got, newest[:3]) {
			t.Fatalf("%s first page = %v; want %v", path, got, newest[:3])
		}
		l := links(t, r)
		if l["next"] != path+"?limit=3&max_id="+newest[2] || l["prev"] != path+"?limit=3&min_id="+newest[0] {
			t.Errorf("%s links = %v", path, l)
		}
		r = s.Call(http.MethodGet, l["next"], readerToken, nil)
		if got := statusIDs(t, r); !slices.Equal(got, newest[3:6]) {
			t.Errorf("%s next page = %v; want %v", path, got, newest[3:6])
		}
		r = s.Call(http.MethodGet, links(t, r)["next"], readerToken, nil)
		if got := statusIDs(t, r); !slices.Equal(got, newest[6:]) || links(t, r)["next"] != "" {
			t.Errorf("%s last page = %v, links %v; want %v and no next", path, got, links(t, r), newest[6:])
		}
		// min_id: the page just above, newest first; since_id: the newest, down to it.
		r = s.Call(http.MethodGet, path+"?limit=2&min_id="+posted[1], readerToken, nil)
		if got := statusIDs(t, r); !slices.Equal(got, []string{posted[3], posted[2]}) {
			t.Errorf("%s min_id = %v; want %v", path, got, []string{posted[3], posted[2]})
		}
		r = s.Call(http.MethodGet, path+"?limit=40&since_id="+posted[4], readerToken, nil)
		if got := statusIDs(t, r); !slices.Equal(got, []string{posted[6], posted[5]}) {
			t.Errorf("%s since_id = %v", path, got)
		}
		r = s.Call(http.MethodGet, path+"?min_id="+posted[6], readerToken, nil)
		if got := statusIDs(t, r); len(got) != 0 || r.Header.Get("Link") != "" {
			t.Errorf("%s above the newest = %v, Link %q; want nothing", path, got, r.Header.Get("Link"))
		}
	}
	for _, bad := range []string{"?limit=0", "?limit=x", "?max_id=abc", "?since_id=-1"} {
		if r := s.Call(http.MethodGet, "/api/v1/timelines/public"+bad, "", nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d", bad, r.Status)
		}
	}
	if got := statusIDs(t, s.Call(http.MethodGet, "/api/v1/timelines/public?limit=1000", "", nil)); len(got) != 7 {
		t.Errorf("limit 1000 gave %d", len(got))
	}
	if got := statusIDs(t, s.Call(http.MethodGet, "/api/v1/timelines/tag/nobodyusesthis", "", nil)); len(got) != 0 {
		t.Errorf("an unused tag has %v", got)
	}
}
