package middleware_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// bearer is a Credential as an API would have it: a bearer token.
func bearer(r *http.Request) string {
	if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return token
	}
	return ""
}

// TestViewer resolves bearer tokens with a real store: a handler behind
// Viewer sees the user the token belongs to, or nobody.
func TestViewer(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	st := storetest.Open(t, redis.URL, store.Options{})
	_, secret, err := st.Register(t.Context(), "alice", "password1")
	if err != nil {
		t.Fatal(err)
	}
	refused := func(w http.ResponseWriter, r *http.Request) { w.Header().Set("X-Refused", "yes") }
	s := newServer(t, middleware.Options{Auth: st, Credential: bearer, Refused: refused},
		func(mw *middleware.Stack, w http.ResponseWriter, r *http.Request) {
			mw.Viewer(func(w http.ResponseWriter, r *http.Request) {
				u, ok := middleware.ViewerFrom(r.Context())
				fmt.Fprintf(w, "%v %s", ok, u.Username)
			})(w, r)
		})
	for _, tc := range []struct {
		token, want string
		refused     bool
	}{
		{"", "false ", false},
		{secret, "true alice", false},
		{"not-a-secret", "false ", true},
	} {
		header := http.Header{}
		if tc.token != "" {
			header.Set("Authorization", "Bearer "+tc.token)
		}
		res, err := s.do(t.Context(), "GET", "/", "", header)
		if err != nil {
			t.Fatal(err)
		}
		body := must.Value(io.ReadAll(res.Body))(t)
		res.Body.Close()
		if string(body) != tc.want || (res.Header.Get("X-Refused") != "") != tc.refused {
			t.Errorf("token %q: %q, refused %q; want %q, refused %v", tc.token, body, res.Header.Get("X-Refused"), tc.want, tc.refused)
		}
	}

	redis.Stop(t)
	status, body := s.get("/", http.Header{"Authorization": {"Bearer another-secret"}})
	if status != 503 || !strings.Contains(body, "database is unavailable") {
		t.Fatalf("with Redis down: %d %q", status, body)
	}
}
