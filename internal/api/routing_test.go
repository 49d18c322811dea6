package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/testkit/must"
)

// documentedRoutes returns the API's routes, as openapi.json lists them
// (its tests hold it to exactly what the API and its streams register):
// each path template with its methods, in capitals.
func documentedRoutes(t *testing.T) map[string][]string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage
	}
	must.OK(t, json.Unmarshal(must.Value(os.ReadFile("openapi.json"))(t), &doc))
	routes := map[string][]string{}
	for path, ops := range doc.Paths {
		for m := range ops {
			if m := strings.ToUpper(m); slices.Contains(apiMethods, m) {
				routes[path] = append(routes[path], m)
			}
		}
	}
	if len(routes) < 50 {
		t.Fatalf("openapi.json lists %d paths", len(routes))
	}
	return routes
}

// apiMethods are the methods of the API's routes.
var apiMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// pathParam is a parameter of a path template.
var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// matches reports whether path is one that template describes.
func matches(template, path string) bool {
	parts := pathParam.Split(template, -1)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, "[^/]+") + "$").MatchString(path)
}

// allowOf is the Allow header a path should be answered with: the
// methods of every route whose template it matches, in apiMethods'
// order, HEAD after GET.
func allowOf(routes map[string][]string, path string) string {
	var allow []string
	for _, m := range apiMethods {
		for template, methods := range routes {
			if matches(template, path) && slices.Contains(methods, m) && !slices.Contains(allow, m) {
				allow = append(allow, m)
			}
		}
	}
	if slices.Contains(allow, http.MethodGet) {
		allow = slices.Insert(allow, 1, http.MethodHead)
	}
	return strings.Join(allow, ", ")
}

// TestRouting walks every route of the API and its streams: each is
// answered alike with a trailing slash (as Mastodon.py and the toot
// client write paths), and a method it does not take is 405 with
// Mastodon's error body and an Allow header of those it takes. Unknown
// paths stay 404 in JSON. The calls carry a token that is no token, so
// that they stop at the check of it (401, which a path the API did not
// route would not answer) or answer what they answer anyone.
func TestRouting(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	routes := documentedRoutes(t)
	const bad = "not-a-token"
	for template, methods := range routes {
		path := pathParam.ReplaceAllString(template, "1")
		for _, m := range methods {
			plain, slash := s.Call(m, path, bad, nil), s.Call(m, path+"/", bad, nil)
			if plain.Status != slash.Status || plain.Status == http.StatusMethodNotAllowed ||
				plain.Status >= 400 && plain.ErrorMessage(t) != slash.ErrorMessage(t) {
				t.Errorf("%s %s: %d %s; with a trailing slash %d %s", m, path, plain.Status, plain.Body, slash.Status, slash.Body)
			}
		}
		want := allowOf(routes, path)
		for _, m := range apiMethods {
			if strings.Contains(want, m) {
				continue
			}
			for _, p := range []string{path, path + "/"} {
				r := s.Call(m, p, bad, nil)
				if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != want || r.ErrorMessage(t) == "" {
					t.Errorf("%s %s: %d, Allow %q; want 405, Allow %q", m, p, r.Status, r.Header.Get("Allow"), want)
				}
			}
		}
	}
	for _, p := range []string{"/api/v1/nothing", "/api/v1/nothing/", "/api/v3/instance", "/api/v1/statuses/1/nothing", "/api/v1/streaming/nothing/"} {
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			if r := s.Call(m, p, "", nil); (r.Status != http.StatusNotFound && r.Status != http.StatusBadRequest) || r.ErrorMessage(t) == "" {
				t.Errorf("%s %s: %d %s; want 404 (400 for a stream) in JSON", m, p, r.Status, r.Body)
			}
		}
	}
}
