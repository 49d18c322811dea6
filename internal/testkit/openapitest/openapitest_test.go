package openapitest

import (
	"slices"
	"strings"
	"testing"
)

// TestReadRoutes checks ReadRoutes on a made-up routes(): the kinds of
// registration it evaluates, and that it refuses what it cannot.
func TestReadRoutes(t *testing.T) {
	deps := map[string]map[string][]byte{"kit": {"kit.go": []byte("package kit\nconst ReadY = \"read:y\"\n")}}
	const src = `package api
const readX = "read:x"
var extra = map[string]string{"c": "read:c", "d": "read:d"}
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("/", notFound)
	mux.HandleFunc("GET /a/{id}", s.may(readX, s.a))
	mux.HandleFunc("GET /kit/{id}", s.May(kit.ReadY, s.a))
	mux.HandleFunc("PUT /kit/{id}", s.Need("write:x", s.MW.Throttle(s.a)))
	for _, v := range []string{"x", "y"} {
		mux.HandleFunc("POST /b/{id}/"+v, s.need("write:b", s.mw.Throttle(unsupported)))
	}
	for path, scope := range extra {
		h := s.need(scope, emptyList)
		mux.HandleFunc("GET /"+path, h)
	}
	s.more(mux)
	s.streams(mux)
}
func (s *Server) more(m *http.ServeMux) {
	m.Handle("GET /files/{path...}", files)
	m.HandleFunc("GET /exact/{$}", exact)
	m.HandleFunc("/files/", notFound)
}
func (s *Server) streams(mux *http.ServeMux) {
	name := "user:x"
	mux.HandleFunc("GET /live/user", s.streamEvents(name))
}
func (s *Server) Register(mux *http.ServeMux) { mux.Handle("/api/", s) }
`
	got, err := ReadRoutes(map[string][]byte{"server.go": []byte(src)}, deps)
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{
		{Method: "get", Path: "/a/{id}", Auth: "may", Scope: "read:x"},
		{Method: "get", Path: "/kit/{id}", Auth: "may", Scope: "read:y"},
		{Method: "put", Path: "/kit/{id}", Auth: "need", Scope: "write:x", Throttled: true},
		{Method: "post", Path: "/b/{id}/x", Auth: "need", Scope: "write:b", Throttled: true},
		{Method: "post", Path: "/b/{id}/y", Auth: "need", Scope: "write:b", Throttled: true},
		{Method: "get", Path: "/c", Auth: "need", Scope: "read:c"},
		{Method: "get", Path: "/d", Auth: "need", Scope: "read:d"},
		{Method: "get", Path: "/files/{path}"},
		{Method: "get", Path: "/exact/"},
		{Method: "get", Path: "/live/user", Stream: "user:x"},
	}
	sortRoutes := func(rs []Route) {
		slices.SortFunc(rs, func(a, b Route) int { return strings.Compare(a.Method+a.Path, b.Method+b.Path) })
	}
	sortRoutes(got)
	sortRoutes(want)
	if !slices.Equal(got, want) {
		t.Errorf("read\n%v\nwant\n%v", got, want)
	}
	part := "package part\nfunc (s *Server) Routes(mux *http.ServeMux) { mux.HandleFunc(\"GET /p\", s.Need(kit.ReadY, s.p)) }\n"
	got, err = ReadRoutes(map[string][]byte{"part.go": []byte(part)}, deps)
	if want := []Route{{Method: "get", Path: "/p", Auth: "need", Scope: "read:y"}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("a part's Routes(): read %v, %v; want %v", got, err, want)
	}
	for _, body := range []string{
		`if true { mux.HandleFunc("GET /a", a) }`,
		`mux.HandleFunc(pattern(), a)`,
		`register(mux)`,
		`mux.HandleFunc("/b", a)`,
		`mux.HandleFunc("GET /a", a) }
func (s *Server) moreRoutes(mux *http.ServeMux) { mux.HandleFunc("GET /b", b)`,
	} {
		src := "package api\nfunc (s *Server) routes(mux *http.ServeMux) {\n" + body + "\n}\n"
		if _, err := ReadRoutes(map[string][]byte{"server.go": []byte(src)}, deps); err == nil {
			t.Errorf("ReadRoutes accepted %s", body)
		}
	}
}
