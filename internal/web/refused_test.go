package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestRefusedWriteIs503 has Redis refuse writes (a master without the
// replica its min-replicas-to-write asks for) and checks that a page's
// form and the client API both answer 503 with Retry-After, not 500;
// and so does a read of the pages' JSON once Redis is gone.
func TestRefusedWriteIs503(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("alice")
	u := must.Value(s.st.UserByName(t.Context(), "alice"))(t)
	token := must.Value(s.st.CreateToken(t.Context(), u.ID, "", "test", retwis.Scopes{"write"}))(t)
	s.exec("CONFIG", "SET", "min-replicas-to-write", "1")

	page := b.post("/post", url.Values{"status": {"refused"}})
	expect(t, page, http.StatusServiceUnavailable, "unavailable")

	req := must.Value(http.NewRequest("POST", s.srv.URL+"/api/v1/statuses", strings.NewReader("status=refused")))(t)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	api := b.send(req)
	expect(t, api, http.StatusServiceUnavailable, `{"error":`, "unavailable")
	s.redis.Stop(t) // and a read, with Redis gone
	complete := b.get("/complete/tags?q=a")
	expect(t, complete, http.StatusServiceUnavailable, `{"error":`)
	for name, r := range map[string]response{"page": page, "API": api, "completion": complete} {
		if r.header.Get("Retry-After") == "" {
			t.Errorf("the %s's 503 has no Retry-After", name)
		}
	}
}
