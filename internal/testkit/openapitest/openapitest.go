// Package openapitest keeps an OpenAPI document honest about the routes
// that a package's Server registers and the entities it encodes: it
// reads the routes from the package's source (a ServeMux does not list
// its patterns, and the wrappers that decide a route's security are only
// visible there), and compares them, their security and the entities'
// JSON fields with the document. internal/api and internal/streaming
// check the client API's document, openapi.json, with it, each its own
// routes.
package openapitest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Spec is the document, decoded.
type Spec struct {
	OpenAPI    string                               `json:"openapi"`
	Info       map[string]any                       `json:"info"`
	Paths      map[string]map[string]map[string]any `json:"paths"`
	Components map[string]map[string]any            `json:"components"`
}

// Load decodes the document doc, as a Spec and as plain JSON values (to
// follow its references).
func Load(t testing.TB, doc []byte) (Spec, any) {
	t.Helper()
	var spec Spec
	if err := json.Unmarshal(doc, &spec); err != nil {
		t.Fatalf("openapi.json is not a valid document: %v", err)
	}
	var raw any
	if err := json.Unmarshal(doc, &raw); err != nil {
		t.Fatal(err)
	}
	return spec, raw
}

// Methods are the keys of a path item that are operations.
var Methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Route is one pattern a package's routes() registers, as read from its
// source.
type Route struct {
	Method, Path string // Path as OpenAPI writes it
	Auth         string // "need", "may" (s.need or s.Need…) or "" (public: no wrapper); CheckSecurity also takes "stream"
	Scope        string // the wrapper's scope
	Throttled    bool   // behind s.mw.Throttle: may answer 503
	Stream       string // s.streamEvents(stream): the handler authorizes the stream itself
}

// PackageRoutes reads the routes that the routes() method (or Routes(),
// a part's) of the Server of the package in dir registers, from the package's source. It parses
// the package's files with go/parser and evaluates routes() as far as
// route registration goes: mux.HandleFunc and mux.Handle calls whose
// pattern is a string built from literals, constants and loop variables;
// range loops over a literal slice or map (or a package-level variable
// holding one), binding the loop variables to each element in turn (the
// 422 actions, the empty lists, the streams); simple := assignments; and
// calls of other *Server methods that take the mux, which are followed.
// A constant may be another package's of the module (apiwire.ReadStatuses),
// read from its source too. Anything else in those bodies fails the
// test, and so does a method taking a mux that is not evaluated, so
// that a new kind of registration is noticed, not silently left out.
func PackageRoutes(t testing.TB, dir string) []Route {
	t.Helper()
	files := sources(t, dir)
	deps := map[string]map[string][]byte{}
	for _, imp := range moduleImports(t, dir, files) {
		deps[imp] = sources(t, imp)
	}
	routes, err := ReadRoutes(files, deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: routes() registers %d routes", dir, len(routes))
	return routes
}

// sources returns the source files of the package in dir, but its
// tests, by name.
func sources(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
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
	return files
}

// moduleImports returns the folders of the packages of the module
// (found from dir's go.mod) that files import.
func moduleImports(t testing.TB, dir string, files map[string][]byte) []string {
	t.Helper()
	root, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mod []byte
	for mod == nil {
		if mod, err = os.ReadFile(filepath.Join(root, "go.mod")); err != nil {
			if parent := filepath.Dir(root); parent != root {
				root, mod = parent, nil
				continue
			}
			t.Fatalf("no go.mod above %s", dir)
		}
	}
	var module string
	for line := range strings.Lines(string(mod)) {
		if m, ok := strings.CutPrefix(line, "module "); ok {
			module = strings.TrimSpace(m)
		}
	}
	var dirs []string
	for name, src := range files {
		f, err := parser.ParseFile(gotoken.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(path, module+"/"); ok && !slices.Contains(dirs, filepath.Join(root, rest)) {
				dirs = append(dirs, filepath.Join(root, rest))
			}
		}
	}
	return dirs
}

// ReadRoutes evaluates routes() in the package made of files (name →
// source), as PackageRoutes says; deps are the sources of the packages
// it imports whose constants it may use, by folder.
func ReadRoutes(files map[string][]byte, deps map[string]map[string][]byte) (routes []Route, err error) {
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
	for _, dep := range deps {
		if err := r.qualifiedGlobals(fset, dep); err != nil {
			return nil, err
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
	root := routeRoot
	if r.methods[root] == nil && r.methods[partRoot] != nil {
		root = partRoot
	}
	r.method(root, nil, "")
	if len(r.routes) == 0 {
		return nil, fmt.Errorf("no route read from %s()", root)
	}
	for name, d := range r.methods {
		if takesMux(d) && !r.reached[name] && name != mounter {
			return nil, fmt.Errorf("(*Server).%s takes a mux but is neither %s() nor called by it: register its routes from %s()", name, root, root)
		}
	}
	return r.routes, nil
}

// routeRoot is the method that registers a package's routes on a mux of
// its own, or partRoot, for a part of an interface whose routes are
// registered on the interface's mux; mounter, which mounts the
// package's handler on the top-level mux, registers no route of its
// own.
const (
	routeRoot = "routes"
	partRoot  = "Routes"
	mounter   = "Register"
)

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
	routes  []Route
}

// evalScope is what a name stands for where a statement is evaluated.
type evalScope struct {
	recv, mux string              // the names of the receiver and the mux
	vars      map[string]ast.Expr // loop variables and locals
}

func (r *routeReader) fail(n ast.Node, format string, args ...any) {
	panic(routeReadError{fmt.Sprintf("%s: %s (teach openapitest.ReadRoutes this registration)", r.fset.Position(n.Pos()), fmt.Sprintf(format, args...))})
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

// qualifiedGlobals enters the package-level constants and variables of
// the package made of files as its importers name them: package.Name.
func (r *routeReader) qualifiedGlobals(fset *gotoken.FileSet, files map[string][]byte) error {
	for name, src := range files {
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok && len(vs.Values) == len(vs.Names) {
						for i, n := range vs.Names {
							r.globals[f.Name.Name+"."+n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	return nil
}

// resolve follows names to what they are bound to: loop variables,
// locals, package constants and variables, those of other packages.
func (r *routeReader) resolve(e ast.Expr, sc evalScope) ast.Expr {
	for range 100 {
		e = ast.Unparen(e)
		if sel, ok := e.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && r.globals[pkg.Name+"."+sel.Sel.Name] != nil {
				e = r.globals[pkg.Name+"."+sel.Sel.Name]
				continue
			}
		}
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
	rt := Route{Method: strings.ToLower(method), Path: path}
	h := r.resolve(call.Args[1], sc)
	if c, ok := h.(*ast.CallExpr); ok {
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, sc.recv) {
			switch sel.Sel.Name {
			case "need", "may", "Need", "May": // the wrappers, the package's own or its kit's
				rt.Auth, rt.Scope = strings.ToLower(sel.Sel.Name), r.str(c.Args[0], sc)
			case "streamEvents":
				rt.Stream = r.str(c.Args[0], sc)
			}
		}
	}
	ast.Inspect(h, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Throttle" {
			rt.Throttled = true
		}
		return true
	})
	r.routes = append(r.routes, rt)
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == name
}

// CheckRoutes checks the routes of a package against the document:
// each is registered once and documented, with the security its wrapper
// gives it (CheckSecurity); and every operation the document lists at a
// path the package owns is registered.
func CheckRoutes(t testing.TB, doc Spec, routes []Route, owns func(path string) bool) {
	t.Helper()
	registered := map[string]bool{}
	for _, rt := range routes {
		where := strings.ToUpper(rt.Method) + " " + rt.Path
		if registered[where] {
			t.Errorf("%s is registered twice", where)
		}
		registered[where] = true
		op := doc.Paths[rt.Path][rt.Method]
		if op == nil {
			t.Errorf("%s is registered but not documented", where)
			continue
		}
		CheckSecurity(t, where, rt, op)
	}
	for path, item := range doc.Paths {
		if !owns(path) {
			continue
		}
		for method := range item {
			if slices.Contains(Methods, method) && !registered[strings.ToUpper(method)+" "+path] {
				t.Errorf("%s %s is documented but not registered", strings.ToUpper(method), path)
			}
		}
	}
}

// CheckSecurity checks that an operation's security and error answers
// are those of the route's wrapper: need(scope) requires a token with the
// scope (401, 403, and 422 for an app's own token); may(scope) takes one
// optionally (an empty requirement), which must grant the scope (401,
// 403); a route with neither asks for no scope (it may still list a
// scheme without scopes, as apps/verify_credentials, which reads the
// token itself, and /oauth/*, which authenticate the client, do). A
// Server-Sent Events stream authorizes in its handler, which its caller
// asks first: Auth "stream" and its Scope for a stream that requires a
// token (or the pages' session, which only the streams read) with the
// scope (401, 403), "" for a public one.
func CheckSecurity(t testing.TB, where string, rt Route, op map[string]any) {
	t.Helper()
	reqs, ok := op["security"].([]any)
	if !ok {
		t.Errorf("%s: no security list", where)
		return
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
				if rt.Stream == "" || len(scopes) > 0 {
					t.Errorf("%s: lists the pages' session, which only the event streams read", where)
				}
			case rt.Auth == "" && len(scopes) > 0:
				t.Errorf("%s: public, but %s lists scopes %v", where, scheme, scopes)
			case rt.Auth != "" && rt.Scope == "" && len(scopes) > 0: // any token, whatever its scopes
				t.Errorf("%s: takes any token, but %s lists scopes %v", where, scheme, scopes)
			case rt.Auth != "" && rt.Scope != "" && !slices.Equal(scopes, []string{rt.Scope}):
				t.Errorf("%s: %s lists scopes %v, want [%s]", where, scheme, scopes, rt.Scope)
			}
			oauth = oauth || scheme == "OAuth2"
		}
	}
	responses, _ := op["responses"].(map[string]any)
	var want []string
	switch rt.Auth {
	case "need", "stream":
		if optional || !oauth {
			t.Errorf("%s: needs a token with %s: want OAuth2 and no empty requirement, have %v", where, rt.Scope, reqs)
		}
		want = []string{"401", "403"}
		if rt.Auth == "need" {
			want = append(want, "422")
		}
	case "may":
		if !optional || !oauth {
			t.Errorf("%s: takes an optional token with %s: want {} and OAuth2, have %v", where, rt.Scope, reqs)
		}
		want = []string{"401", "403"}
	}
	if rt.Throttled {
		want = append(want, "503")
	}
	for _, code := range want {
		if responses[code] == nil {
			t.Errorf("%s: no %s response", where, code)
		}
	}
}

// CheckSchema checks the schema named schema of the document against
// v, a struct the handlers encode: the same properties (but for the
// struct's fields extra, left out of the schema), and required exactly
// when always present (no omitempty).
func CheckSchema(t testing.TB, doc Spec, schema string, v any, extra []string) {
	t.Helper()
	s, _ := doc.Components["schemas"][schema].(map[string]any)
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
	for name, omitempty := range jsonFields(reflect.TypeOf(v)) {
		if slices.Contains(extra, name) {
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
		t.Errorf("schema %s lacks the properties %v the struct has, and has %v the struct has not", schema, missing, extra)
	}
	if missing, extra := diffNames(always, required); len(missing)+len(extra) > 0 {
		t.Errorf("schema %s does not require %v, always sent, and requires %v, omitted when empty", schema, missing, extra)
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
