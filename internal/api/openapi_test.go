package api

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
)

// The tests below keep openapi.json honest: it must describe exactly the
// routes that routes() and streamRoutes() register, with the security
// their wrappers give them, and the entities exactly as they are
// encoded.

// openAPISpec is the document, decoded.
type openAPISpec struct {
	OpenAPI    string                               `json:"openapi"`
	Info       map[string]any                       `json:"info"`
	Paths      map[string]map[string]map[string]any `json:"paths"`
	Components map[string]map[string]any            `json:"components"`
}

func loadSpec(t *testing.T) (openAPISpec, any) {
	t.Helper()
	var doc openAPISpec
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.json is not a valid document: %v", err)
	}
	var raw any
	if err := json.Unmarshal(openAPI, &raw); err != nil {
		t.Fatal(err)
	}
	return doc, raw
}

// openAPIMethods are the keys of a path item that are operations.
var openAPIMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func TestOpenAPIDocument(t *testing.T) {
	doc, raw := loadSpec(t)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if v, _ := doc.Info["version"].(string); doc.Info["title"] == nil || v == "" || !strings.HasPrefix(Version, v+" ") {
		t.Errorf("info lacks a title, or its version is not that of Version (%s): %v", Version, doc.Info)
	}
	if len(doc.Paths) == 0 {
		t.Error("no paths")
	}
	for _, c := range []string{"schemas", "securitySchemes", "responses", "parameters"} {
		if len(doc.Components[c]) == 0 {
			t.Errorf("components.%s is empty", c)
		}
	}
	for _, name := range []string{"Account", "CredentialAccount", "Status", "Mention", "Tag", "Application",
		"Relationship", "Notification", "Context", "Search", "Token", "Error", "InstanceV1", "InstanceV2"} {
		if doc.Components["schemas"][name] == nil {
			t.Errorf("components.schemas.%s is missing", name)
		}
	}

	// Every $ref points at something in the document.
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				if _, err := resolvePointer(raw, r); err != nil {
					t.Errorf("%s: $ref %q: %v", at, r, err)
				}
			}
			for k, e := range x {
				walk(at+"/"+k, e)
			}
		case []any:
			for i, e := range x {
				walk(at+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("#", raw)

	// Every operation declares its security, answers something, and
	// declares the path parameters its path has (and no others).
	template := regexp.MustCompile(`\{([^}]+)\}`)
	for path, item := range doc.Paths {
		var inPath []string
		for _, m := range template.FindAllStringSubmatch(path, -1) {
			inPath = append(inPath, m[1])
		}
		slices.Sort(inPath)
		for method, op := range item {
			if !slices.Contains(openAPIMethods, method) {
				continue
			}
			where := strings.ToUpper(method) + " " + path
			if _, ok := op["security"].([]any); !ok {
				t.Errorf("%s: no security list (give [] for a public route)", where)
			}
			if rs, _ := op["responses"].(map[string]any); len(rs) == 0 {
				t.Errorf("%s: no responses", where)
			}
			var declared []string
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				p, err := deref(raw, p)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if pm, _ := p.(map[string]any); pm["in"] == "path" {
					declared = append(declared, fmt.Sprint(pm["name"]))
					if pm["required"] != true {
						t.Errorf("%s: path parameter %v is not required", where, pm["name"])
					}
				}
			}
			slices.Sort(declared)
			if !slices.Equal(declared, inPath) {
				t.Errorf("%s: path parameters %v declared, want %v", where, declared, inPath)
			}
		}
	}

	// The scopes the OAuth flows list are the ones retwis accepts.
	oauth, _ := doc.Components["securitySchemes"]["OAuth2"].(map[string]any)
	flows, _ := oauth["flows"].(map[string]any)
	for _, flow := range []string{"authorizationCode", "clientCredentials"} {
		f, _ := flows[flow].(map[string]any)
		scopes, _ := f["scopes"].(map[string]any)
		if len(scopes) == 0 {
			t.Errorf("OAuth2 flow %s lists no scopes", flow)
		}
		for s := range scopes {
			if _, err := retwis.ParseScopes(s); err != nil {
				t.Errorf("OAuth2 flow %s lists scope %q: %v", flow, s, err)
			}
		}
	}
}

// resolvePointer follows a local JSON pointer ("#/components/…").
func resolvePointer(doc any, ref string) (any, error) {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("not a local reference")
	}
	v := doc
	for _, tok := range strings.Split(rest, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok || m[tok] == nil {
			return nil, fmt.Errorf("nothing at %q", tok)
		}
		v = m[tok]
	}
	return v, nil
}

// deref returns v, or what it refers to if it is a $ref.
func deref(doc, v any) (any, error) {
	if m, ok := v.(map[string]any); ok {
		if r, ok := m["$ref"].(string); ok {
			return resolvePointer(doc, r)
		}
	}
	return v, nil
}

func TestOpenAPIServed(t *testing.T) {
	w := httptest.NewRecorder()
	serveOpenAPI(w, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	if w.Code != http.StatusOK || !slices.Equal(w.Body.Bytes(), openAPI) {
		t.Errorf("GET /api/v1/openapi.json: %d, %d bytes, want the document", w.Code, w.Body.Len())
	}
}

// apiRoute is one pattern routeRoots register, as read from the package's
// source.
type apiRoute struct {
	method, path string // path as OpenAPI writes it
	auth         string // "need", "may" or "" (public: no wrapper)
	scope        string // the wrapper's scope
	throttled    bool   // behind s.mw.Throttle: may answer 503
	stream       string // s.streamEvents(stream): the handler authorizes as resolveStream says
}

// registeredRoutes reads the routes that routeRoots register from the
// package's source, rather than from a running mux: a ServeMux does not
// list its patterns, and the wrappers (need, may) that decide a route's
// security are only visible in the source. It parses the package's files
// with go/parser and evaluates those methods' bodies as far as route
// registration goes: mux.HandleFunc and mux.Handle calls whose pattern is
// a string built from literals, constants and loop variables; range
// loops over a literal slice or map (or a package-level variable holding
// one), binding the loop variables to each element in turn (the 422
// actions, the empty lists, the streams); simple := assignments; and
// calls of other *Server methods that take the mux, which are followed.
// Anything else in those bodies fails the test, and so does a method
// taking a mux that is not evaluated, so that a new kind of registration
// is noticed, not silently left out.
func registeredRoutes(t *testing.T) []apiRoute {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if files[name], err = os.ReadFile(name); err != nil {
			t.Fatal(err)
		}
	}
	routes, err := readRoutes(files)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v register %d routes", routeRoots, len(routes))
	return routes
}

// readRoutes evaluates routes() in the package made of files (name →
// source).
func readRoutes(files map[string][]byte) (routes []apiRoute, err error) {
	fset := gotoken.NewFileSet()
	r := &routeReader{fset: fset, globals: map[string]ast.Expr{}, methods: map[string]*ast.FuncDecl{}, reached: map[string]bool{}}
	for name, src := range files {
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Values) == len(vs.Names) {
						for i, n := range vs.Names {
							r.globals[n.Name] = vs.Values[i]
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) == 1 && receiverType(d.Recv.List[0].Type) == "Server" {
					r.methods[d.Name.Name] = d
				}
			}
		}
	}
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(routeReadError)
			if !ok {
				panic(p)
			}
			routes, err = nil, e
		}
	}()
	for _, root := range routeRoots {
		r.method(root, nil, "")
	}
	if len(r.routes) == 0 {
		return nil, fmt.Errorf("no route read from %v", routeRoots)
	}
	for name, d := range r.methods {
		if takesMux(d) && !r.reached[name] && name != "Register" {
			return nil, fmt.Errorf("(*Server).%s takes a mux but is none of %v nor called by them: add it to routeRoots in openapi_test.go if it registers routes", name, routeRoots)
		}
	}
	return r.routes, nil
}

// routeRoots are the methods that register the API's routes on a mux of
// their own: routes() the API's, streamRoutes() the live streams' (which
// go through a middleware stack without the request timeout). Register,
// which puts the whole API under its prefixes on the top-level mux, is no
// route of its own.
var routeRoots = []string{"routes", "streamRoutes"}

// takesMux reports whether a function has a *http.ServeMux parameter.
func takesMux(d *ast.FuncDecl) bool {
	for _, f := range d.Type.Params.List {
		if st, ok := f.Type.(*ast.StarExpr); ok {
			if sel, ok := st.X.(*ast.SelectorExpr); ok && isIdent(sel.X, "http") && sel.Sel.Name == "ServeMux" {
				return true
			}
		}
	}
	return false
}

// routeReadError is why the routes could not be read; the reader panics with
// it and readRoutes recovers it.
type routeReadError struct{ msg string }

func (e routeReadError) Error() string { return e.msg }

func receiverType(e ast.Expr) string {
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

type routeReader struct {
	fset    *gotoken.FileSet
	globals map[string]ast.Expr      // package-level constants and variables
	methods map[string]*ast.FuncDecl // methods of *Server
	reached map[string]bool          // the methods evaluated
	routes  []apiRoute
}

// evalScope is what a name stands for where a statement is evaluated.
type evalScope struct {
	recv, mux string              // the names of the receiver and the mux
	vars      map[string]ast.Expr // loop variables and locals
}

func (r *routeReader) fail(n ast.Node, format string, args ...any) {
	panic(routeReadError{fmt.Sprintf("%s: %s (teach readRoutes in openapi_test.go this registration)", r.fset.Position(n.Pos()), fmt.Sprintf(format, args...))})
}

// method evaluates the body of the *Server method name, called by call
// with the mux named mux (call is nil for routes() itself, whose only
// parameter is the mux).
func (r *routeReader) method(name string, call *ast.CallExpr, mux string) {
	d := r.methods[name]
	if d == nil {
		panic(routeReadError{fmt.Sprintf("no method (*Server).%s in the package", name)})
	}
	r.reached[name] = true
	sc := evalScope{vars: map[string]ast.Expr{}}
	if names := d.Recv.List[0].Names; len(names) == 1 {
		sc.recv = names[0].Name
	}
	var params []string
	for _, f := range d.Type.Params.List {
		for _, n := range f.Names {
			params = append(params, n.Name)
		}
	}
	if call == nil {
		if len(params) != 1 {
			r.fail(d, "routes() should take the mux alone")
		}
		sc.mux = params[0]
	} else {
		for i, a := range call.Args {
			if isIdent(a, mux) && i < len(params) {
				sc.mux = params[i]
			}
		}
	}
	r.stmts(d.Body.List, sc)
}

func (r *routeReader) stmts(list []ast.Stmt, sc evalScope) {
	for _, st := range list {
		r.stmt(st, sc)
	}
}

func (r *routeReader) stmt(st ast.Stmt, sc evalScope) {
	switch st := st.(type) {
	case *ast.BlockStmt:
		r.stmts(st.List, sc)
	case *ast.ExprStmt:
		call, ok := st.X.(*ast.CallExpr)
		if !ok {
			r.fail(st, "an expression that is no call")
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			r.fail(st, "a call of something other than a method of the mux or the server")
		}
		switch {
		case isIdent(sel.X, sc.mux) && (sel.Sel.Name == "HandleFunc" || sel.Sel.Name == "Handle"):
			r.register(call, sc)
		case isIdent(sel.X, sc.recv) && r.methods[sel.Sel.Name] != nil && passesMux(call, sc.mux):
			r.method(sel.Sel.Name, call, sc.mux)
		default:
			r.fail(st, "a call this test cannot evaluate")
		}
	case *ast.RangeStmt:
		r.rangeStmt(st, sc)
	case *ast.AssignStmt:
		if st.Tok != gotoken.DEFINE || len(st.Lhs) != len(st.Rhs) {
			r.fail(st, "an assignment other than a := b")
		}
		for i, l := range st.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok {
				r.fail(st, "an assignment to something other than a name")
			}
			sc.vars[id.Name] = st.Rhs[i]
		}
	default:
		r.fail(st, "a statement this test cannot evaluate")
	}
}

func passesMux(call *ast.CallExpr, mux string) bool {
	return slices.ContainsFunc(call.Args, func(a ast.Expr) bool {
		id, ok := a.(*ast.Ident)
		return ok && id.Name == mux
	})
}

// rangeStmt evaluates a loop's body once per element of a literal slice
// or map, its variables bound to the element's key and value.
func (r *routeReader) rangeStmt(st *ast.RangeStmt, sc evalScope) {
	lit, ok := r.resolve(st.X, sc).(*ast.CompositeLit)
	if !ok {
		r.fail(st, "a range over something other than a literal slice or map")
	}
	for i, e := range lit.Elts {
		inner := evalScope{recv: sc.recv, mux: sc.mux, vars: map[string]ast.Expr{}}
		for k, v := range sc.vars {
			inner.vars[k] = v
		}
		key, val := ast.Expr(&ast.BasicLit{Kind: gotoken.INT, Value: strconv.Itoa(i)}), e
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			key, val = kv.Key, kv.Value
		}
		for _, b := range []struct {
			name ast.Expr
			v    ast.Expr
		}{{st.Key, key}, {st.Value, val}} {
			if id, ok := b.name.(*ast.Ident); ok && id.Name != "_" {
				inner.vars[id.Name] = b.v
			}
		}
		r.stmts(st.Body.List, inner)
	}
}

// resolve follows names to what they are bound to: loop variables,
// locals, package constants and variables.
func (r *routeReader) resolve(e ast.Expr, sc evalScope) ast.Expr {
	for range 100 {
		e = ast.Unparen(e)
		id, ok := e.(*ast.Ident)
		if !ok {
			return e
		}
		if v, ok := sc.vars[id.Name]; ok {
			e = v
		} else if v, ok := r.globals[id.Name]; ok {
			e = v
		} else {
			return e
		}
	}
	return e
}

// str evaluates a string expression: literals, names bound to one, and
// their concatenations.
func (r *routeReader) str(e ast.Expr, sc evalScope) string {
	switch e := r.resolve(e, sc).(type) {
	case *ast.BasicLit:
		if e.Kind == gotoken.STRING {
			s, err := strconv.Unquote(e.Value)
			if err == nil {
				return s
			}
		}
		r.fail(e, "a literal that is no string")
	case *ast.BinaryExpr:
		if e.Op == gotoken.ADD {
			return r.str(e.X, sc) + r.str(e.Y, sc)
		}
		r.fail(e, "an operation other than + on strings")
	default:
		r.fail(e, "a string this test cannot evaluate")
	}
	return ""
}

// register records a mux.HandleFunc(pattern, handler) call.
func (r *routeReader) register(call *ast.CallExpr, sc evalScope) {
	if len(call.Args) != 2 {
		r.fail(call, "a registration without a pattern and a handler")
	}
	pattern := r.str(call.Args[0], sc)
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		if !strings.HasSuffix(pattern, "/") {
			r.fail(call, "the pattern %q has no method", pattern)
		}
		// A fallback for the paths of a subtree that name nothing
		// ("/": a JSON 404 for every path the API lacks): no operation.
		return
	}
	if !strings.HasPrefix(path, "/") {
		r.fail(call, "the pattern %q names a host", pattern)
	}
	path = strings.ReplaceAll(path, "{$}", "")
	path = strings.ReplaceAll(path, "...}", "}")
	rt := apiRoute{method: strings.ToLower(method), path: path}
	h := r.resolve(call.Args[1], sc)
	if c, ok := h.(*ast.CallExpr); ok {
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, sc.recv) {
			switch sel.Sel.Name {
			case "need", "may":
				rt.auth, rt.scope = sel.Sel.Name, r.str(c.Args[0], sc)
			case "streamEvents":
				rt.stream = r.str(c.Args[0], sc)
			}
		}
	}
	ast.Inspect(h, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Throttle" {
			rt.throttled = true
		}
		return true
	})
	r.routes = append(r.routes, rt)
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == name
}

// TestOpenAPIRouteReader checks readRoutes on a made-up routes(): the
// kinds of registration it evaluates, and that it refuses what it cannot.
func TestOpenAPIRouteReader(t *testing.T) {
	const src = `package api
const readX = "read:x"
var extra = map[string]string{"c": "read:c", "d": "read:d"}
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("/", notFound)
	mux.HandleFunc("GET /a/{id}", s.may(readX, s.a))
	for _, v := range []string{"x", "y"} {
		mux.HandleFunc("POST /b/{id}/"+v, s.need("write:b", s.mw.Throttle(unsupported)))
	}
	for path, scope := range extra {
		h := s.need(scope, emptyList)
		mux.HandleFunc("GET /"+path, h)
	}
	s.more(mux)
}
func (s *Server) more(m *http.ServeMux) {
	m.Handle("GET /files/{path...}", files)
	m.HandleFunc("GET /exact/{$}", exact)
	m.HandleFunc("/files/", notFound)
}
func (s *Server) streamRoutes(mux *http.ServeMux) {
	name := "user:x"
	mux.HandleFunc("GET /live/user", s.streamEvents(name))
}
func (s *Server) Register(mux *http.ServeMux) { mux.Handle("/api/", s) }
`
	got, err := readRoutes(map[string][]byte{"server.go": []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	want := []apiRoute{
		{method: "get", path: "/a/{id}", auth: "may", scope: "read:x"},
		{method: "post", path: "/b/{id}/x", auth: "need", scope: "write:b", throttled: true},
		{method: "post", path: "/b/{id}/y", auth: "need", scope: "write:b", throttled: true},
		{method: "get", path: "/c", auth: "need", scope: "read:c"},
		{method: "get", path: "/d", auth: "need", scope: "read:d"},
		{method: "get", path: "/files/{path}"},
		{method: "get", path: "/exact/"},
		{method: "get", path: "/live/user", stream: "user:x"},
	}
	sortRoutes := func(rs []apiRoute) {
		slices.SortFunc(rs, func(a, b apiRoute) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	}
	sortRoutes(got)
	sortRoutes(want)
	if !slices.Equal(got, want) {
		t.Errorf("read\n%v\nwant\n%v", got, want)
	}
	for _, body := range []string{
		`if true { mux.HandleFunc("GET /a", a) }`,
		`mux.HandleFunc(pattern(), a)`,
		`register(mux)`,
		`mux.HandleFunc("/b", a)`,
		`mux.HandleFunc("GET /a", a) }
func (s *Server) moreRoutes(mux *http.ServeMux) { mux.HandleFunc("GET /b", b)`,
	} {
		src := "package api\nfunc (s *Server) routes(mux *http.ServeMux) {\n" + body + "\n}\n" +
			"func (s *Server) streamRoutes(mux *http.ServeMux) {}\n"
		if _, err := readRoutes(map[string][]byte{"server.go": []byte(src)}); err == nil {
			t.Errorf("readRoutes accepted %s", body)
		}
	}
}

func TestOpenAPIRoutes(t *testing.T) {
	doc, _ := loadSpec(t)
	routes := registeredRoutes(t)
	registered := map[string]bool{}
	for _, rt := range routes {
		where := strings.ToUpper(rt.method) + " " + rt.path
		if registered[where] {
			t.Errorf("%s is registered twice", where)
		}
		registered[where] = true
		op := doc.Paths[rt.path][rt.method]
		if op == nil {
			t.Errorf("%s is registered but not documented", where)
			continue
		}
		checkSecurity(t, where, rt, op)
	}
	for path, item := range doc.Paths {
		for method := range item {
			if slices.Contains(openAPIMethods, method) && !registered[strings.ToUpper(method)+" "+path] {
				t.Errorf("%s %s is documented but not registered", strings.ToUpper(method), path)
			}
		}
	}
}

// checkSecurity checks that an operation's security and error answers
// are those of the route's wrapper: need(scope) requires a token with the
// scope (401, 403, and 422 for an app's own token); may(scope) takes one
// optionally (an empty requirement), which must grant the scope (401,
// 403); a route with neither asks for no scope (it may still list a
// scheme without scopes, as apps/verify_credentials, which reads the
// token itself, and /oauth/*, which authenticate the client, do). The
// Server-Sent Events streams authorize in resolveStream: a user stream
// requires a token (or the pages' session) with the scope the document
// lists, which resolveStream must grant with it and refuse without
// (401, 403); the others are public.
func checkSecurity(t *testing.T, where string, rt apiRoute, op map[string]any) {
	t.Helper()
	reqs, ok := op["security"].([]any)
	if !ok {
		t.Errorf("%s: no security list", where)
		return
	}
	if rt.stream != "" {
		rt.auth, rt.scope = streamAuth(t, where, rt.stream, reqs)
	}
	optional, oauth := false, false
	for _, req := range reqs {
		m, _ := req.(map[string]any)
		if len(m) == 0 {
			optional = true
		}
		for scheme, v := range m {
			raw, _ := v.([]any)
			var scopes []string
			for _, s := range raw {
				scopes = append(scopes, fmt.Sprint(s))
			}
			switch {
			case scheme == "Session":
				if rt.stream == "" || len(scopes) > 0 {
					t.Errorf("%s: lists the pages' session, which only the event streams read", where)
				}
			case rt.auth == "" && len(scopes) > 0:
				t.Errorf("%s: public, but %s lists scopes %v", where, scheme, scopes)
			case rt.auth != "" && !slices.Equal(scopes, []string{rt.scope}):
				t.Errorf("%s: %s lists scopes %v, want [%s]", where, scheme, scopes, rt.scope)
			}
			oauth = oauth || scheme == "OAuth2"
		}
	}
	responses, _ := op["responses"].(map[string]any)
	var want []string
	switch rt.auth {
	case "need", "stream":
		if optional || !oauth {
			t.Errorf("%s: needs a token with %s: want OAuth2 and no empty requirement, have %v", where, rt.scope, reqs)
		}
		want = []string{"401", "403"}
		if rt.auth == "need" {
			want = append(want, "422")
		}
	case "may":
		if !optional || !oauth {
			t.Errorf("%s: takes an optional token with %s: want {} and OAuth2, have %v", where, rt.scope, reqs)
		}
		want = []string{"401", "403"}
	}
	if rt.throttled {
		want = append(want, "503")
	}
	for _, code := range want {
		if responses[code] == nil {
			t.Errorf("%s: no %s response", where, code)
		}
	}
}

// streamAuth returns how the event stream name authorizes, asking
// resolveStream: "" (public), or "stream" and the scope the document
// lists, once resolveStream is seen to need it.
func streamAuth(t *testing.T, where, name string, reqs []any) (auth, scope string) {
	t.Helper()
	_, refused := resolveStream(name, "retwis", listener{})
	switch {
	case refused == nil:
		return "", ""
	case refused.status != http.StatusUnauthorized:
		t.Errorf("%s: resolveStream(%q) refuses a visitor with %d", where, name, refused.status)
		return "", ""
	}
	for _, req := range reqs {
		m, _ := req.(map[string]any)
		if l, _ := m["OAuth2"].([]any); len(l) == 1 {
			scope = fmt.Sprint(l[0])
		}
	}
	user := retwis.User{ID: 1, Username: "someone"}
	if _, refused := resolveStream(name, "retwis", listener{user: user, scopes: retwis.Scopes{scope}}); refused != nil {
		t.Errorf("%s: the document asks for %q, but resolveStream refuses it: %s", where, scope, refused.message)
	}
	if _, refused := resolveStream(name, "retwis", listener{user: user, scopes: retwis.Scopes{"push"}}); refused == nil {
		t.Errorf("%s: resolveStream grants the stream without %s", where, scope)
	}
	return "stream", scope
}

// TestOpenAPIEntities checks the entities' schemas against the structs
// the handlers encode: the same properties, and required exactly when
// always present (no omitempty).
func TestOpenAPIEntities(t *testing.T) {
	doc, _ := loadSpec(t)
	for _, c := range []struct {
		schema string
		v      any
		extra  []string // fields of the struct the schema leaves out, and why
	}{
		{"Account", account{}, []string{"source"}}, // in CredentialAccount
		{"Source", source{}, nil},
		{"Status", status{}, nil},
		{"Mention", mention{}, nil},
		{"StatusTag", tagRef{}, nil},
		{"Tag", tag{}, nil},
		{"TagHistory", tagHistory{}, nil},
		{"Application", application{}, []string{"vapid_key"}}, // never set: retwis sends no Web Push
		{"Relationship", relationship{}, nil},
		{"Report", report{}, nil},
		{"Notification", notification{}, nil},
		{"Token", token{}, nil},
		{"Error", apiError{}, nil},
		{"StreamEvent", wsEvent{}, nil},
		{"StreamError", wsError{}, nil},
	} {
		s, _ := doc.Components["schemas"][c.schema].(map[string]any)
		props, _ := s["properties"].(map[string]any)
		var documented, required []string
		for p := range props {
			documented = append(documented, p)
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			required = append(required, fmt.Sprint(r))
		}
		var fields, always []string
		for name, omitempty := range jsonFields(reflect.TypeOf(c.v)) {
			if slices.Contains(c.extra, name) {
				continue
			}
			fields = append(fields, name)
			if !omitempty {
				always = append(always, name)
			}
		}
		for _, l := range [][]string{documented, required, fields, always} {
			slices.Sort(l)
		}
		if missing, extra := diffNames(fields, documented); len(missing)+len(extra) > 0 {
			t.Errorf("schema %s lacks the properties %v the struct has, and has %v the struct has not", c.schema, missing, extra)
		}
		if missing, extra := diffNames(always, required); len(missing)+len(extra) > 0 {
			t.Errorf("schema %s does not require %v, always sent, and requires %v, omitted when empty", c.schema, missing, extra)
		}
	}
}

// jsonFields returns the JSON names of a struct's fields (embedded
// structs' included) and whether each is omitted when empty.
func jsonFields(typ reflect.Type) map[string]bool {
	out := map[string]bool{}
	for f := range typ.Fields() {
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = slices.Contains(strings.Split(opts, ","), "omitempty")
	}
	return out
}

// diffNames returns what is in want but not in have, and what is in
// have but not in want.
func diffNames(want, have []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(have, w) {
			missing = append(missing, w)
		}
	}
	for _, h := range have {
		if !slices.Contains(want, h) {
			extra = append(extra, h)
		}
	}
	return missing, extra
}
