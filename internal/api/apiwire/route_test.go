package apiwire_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// TestTrimSlash: a path with trailing slashes is routed as the path
// without them (its escaped form too), the route found is kept on the
// request the middleware sees, and a path of slashes only is "/".
func TestTrimSlash(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /a/{x}", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("a " + r.PathValue("x"))) })
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("root")) })
	h := apiwire.TrimSlash(mux)
	for path, want := range map[string]string{"/a/b": "a b", "/a/b/": "a b", "/a/b//": "a b", "/a/b%2Fc/": "a b/c", "/": "root"} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL.Path, r.URL.RawPath = "", ""
		u, err := r.URL.Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		r.URL = u
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Body.String() != want || r.Pattern == "" {
			t.Errorf("%s: %q, route %q; want %q", path, w.Body, r.Pattern, want)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.URL.Path = "//"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Body.String() != "root" {
		t.Errorf("//: %q", w.Body)
	}
}

// TestUnrouted: the catch-all answers 405 with the methods another
// route takes the path with, in Allow, and else its own answer.
func TestUnrouted(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	ok := func(http.ResponseWriter, *http.Request) {}
	mux.HandleFunc("GET /s/{id}", ok)
	mux.HandleFunc("DELETE /s/{id}", ok)
	mux.HandleFunc("POST /s/x", ok)
	mux.HandleFunc("/", apiwire.Unrouted(mux, apiwire.NotFound))
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{http.MethodPut, "/s/1", http.StatusMethodNotAllowed, "GET, HEAD, DELETE"},
		{http.MethodPut, "/s/x", http.StatusMethodNotAllowed, "GET, HEAD, POST, DELETE"},
		{http.MethodPost, "/s/1", http.StatusMethodNotAllowed, "GET, HEAD, DELETE"},
		{http.MethodOptions, "/s/1", http.StatusMethodNotAllowed, "GET, HEAD, DELETE"},
		{http.MethodGet, "/t", http.StatusNotFound, ""},
		{http.MethodGet, "/s/1", http.StatusOK, ""},
	} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Code != tc.status || w.Header().Get("Allow") != tc.allow || tc.status != http.StatusOK && w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("%s %s: %d, Allow %q, %s; want %d, Allow %q", tc.method, tc.path, w.Code, w.Header().Get("Allow"), w.Body, tc.status, tc.allow)
		}
	}
}
