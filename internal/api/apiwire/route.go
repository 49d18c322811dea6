package apiwire

import (
	"net/http"
	"slices"
	"strings"
)

// routeMethods are the methods the API's routes take; Unrouted asks
// the mux for each when a path is called with another.
var routeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// TrimSlash lets next, a mux, route a path written with a trailing
// slash (/api/v1/instance/, /oauth/token/) as the path without it, as
// Mastodon does: Mastodon.py and the toot client write them so. The
// route the mux found is kept on r, for the request metrics.
func TrimSlash(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if len(p) < 2 || p[len(p)-1] != '/' {
			next.ServeHTTP(w, r)
			return
		}
		u := *r.URL
		u.Path = trimSlashes(p)
		if u.RawPath != "" {
			u.RawPath = trimSlashes(u.RawPath)
		}
		trimmed := new(http.Request)
		*trimmed = *r
		trimmed.URL = &u
		next.ServeHTTP(w, trimmed)
		r.Pattern = trimmed.Pattern
	})
}

// trimSlashes returns p without its trailing slashes, or "/" if it is
// nothing else.
func trimSlashes(p string) string {
	if t := strings.TrimRight(p, "/"); t != "" {
		return t
	}
	return "/"
}

// Unrouted returns the handler of a catch-all route of mux, such as
// "/", for what mux routes nowhere else: a path that another route of
// mux takes with other methods is answered 405 Method Not Allowed with
// those methods in Allow and Mastodon's error body, any other by
// other (NotFound, for the API).
func Unrouted(mux *http.ServeMux, other http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		allow := allowed(mux, r)
		if len(allow) == 0 {
			other(w, r)
			return
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		RenderError(w, r, http.StatusMethodNotAllowed, "Method not allowed: this path takes "+strings.Join(allow, ", ")+".")
	}
}

// allowed returns the methods with which mux routes r's path to a route
// other than r's own, the catch-all (GET's with HEAD, which a GET route
// also serves).
func allowed(mux *http.ServeMux, r *http.Request) []string {
	var out []string
	probe := &http.Request{URL: r.URL, Host: r.Host, Header: http.Header{}}
	for _, m := range routeMethods {
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != r.Pattern {
			out = append(out, m)
		}
	}
	if slices.Contains(out, http.MethodGet) {
		out = slices.Insert(out, 1, http.MethodHead)
	}
	return out
}
