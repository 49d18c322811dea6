package api

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/announcements"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/api/hashtags"
	"github.com/retwis/retwis/internal/api/instance"
	"github.com/retwis/retwis/internal/api/markers"
	"github.com/retwis/retwis/internal/api/push"
	"github.com/retwis/retwis/internal/api/scheduled"
	"github.com/retwis/retwis/internal/testkit/openapitest"
)

// The tests below keep openapi.json honest: it must describe exactly the
// routes that the routes() of this package and of its parts register,
// with the security their wrappers give them, and the entities exactly
// as they are encoded. The streams'
// routes and entities are internal/streaming's, which checks them
// against the same document.

// streamingPaths is where the document's paths are internal/streaming's.
const streamingPaths = "/api/v1/streaming"

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	doc, raw := openapitest.Load(t, openAPI)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if v, _ := doc.Info["version"].(string); doc.Info["title"] == nil || v == "" || !strings.HasPrefix(instance.Version, v+" ") {
		t.Errorf("info lacks a title, or its version is not that of instance.Version (%s): %v", instance.Version, doc.Info)
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
			if !slices.Contains(openapitest.Methods, method) {
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
	t.Parallel()
	w := httptest.NewRecorder()
	serveOpenAPI(w, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	if w.Code != http.StatusOK || !slices.Equal(w.Body.Bytes(), openAPI) {
		t.Errorf("GET /api/v1/openapi.json: %d, %d bytes, want the document", w.Code, w.Body.Len())
	}
}

// parts are the folders of the packages whose routes Server composes,
// this one's and its feature packages'.
var parts = []string{".", "oauth", "instance", "markers", "lists", "push", "hashtags", "suggestions", "filters", "scheduled", "announcements", "media"}

func TestOpenAPIRoutes(t *testing.T) {
	t.Parallel()
	doc, _ := openapitest.Load(t, openAPI)
	var routes []openapitest.Route
	for _, dir := range parts {
		routes = append(routes, openapitest.PackageRoutes(t, dir)...)
	}
	openapitest.CheckRoutes(t, doc, routes, func(path string) bool {
		return !strings.HasPrefix(path, streamingPaths)
	})
}

// TestPartsListed: every package below this one that registers routes
// is one of parts, so that TestOpenAPIRoutes reads them.
func TestPartsListed(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if dir := filepath.Dir(f); bytes.Contains(src, []byte(") Routes(mux *http.ServeMux)")) && !slices.Contains(parts, dir) {
			t.Errorf("%s registers routes, but is not one of parts", dir)
		}
	}
}

// TestOpenAPIEntities checks the entities' schemas against the structs
// the handlers encode: the same properties, and required exactly when
// always present (no omitempty). OAuth's Token is checked by
// internal/api/oauth.
func TestOpenAPIEntities(t *testing.T) {
	t.Parallel()
	doc, _ := openapitest.Load(t, openAPI)
	for _, c := range []struct {
		schema string
		v      any
		extra  []string // fields of the struct the schema leaves out, and why
	}{
		{"Account", entity.Account{}, []string{"source"}}, // in CredentialAccount
		{"Source", entity.Source{}, nil},
		{"Status", entity.Status{}, nil},
		{"PreviewCard", entity.PreviewCard{}, nil},
		{"StatusEdit", statusEdit{}, nil},
		{"Mention", entity.Mention{}, nil},
		{"StatusTag", entity.TagRef{}, nil},
		{"Tag", entity.Tag{}, nil},
		{"TagHistory", entity.TagHistory{}, nil},
		{"Application", entity.Application{}, nil},
		{"Relationship", entity.Relationship{}, nil},
		{"Report", report{}, nil},
		{"Notification", entity.Notification{}, nil},
		{"Error", apiwire.ErrorEntity{}, nil},
		{"Marker", markers.Marker{}, nil},
		{"WebPushSubscription", push.WebPushSubscription{}, nil},
		{"FamiliarFollowers", FamiliarFollowers{}, nil},
		{"FeaturedTag", hashtags.FeaturedTag{}, nil},
		{"Filter", entity.Filter{}, nil},
		{"FilterKeyword", entity.FilterKeyword{}, nil},
		{"FilterStatus", entity.FilterStatus{}, nil},
		{"FilterResult", entity.FilterResult{}, nil},
		{"V1Filter", entity.V1Filter{}, nil},
		{"ScheduledStatus", scheduled.Status{}, nil},
		{"Announcement", announcements.Announcement{}, nil},
		{"Reaction", announcements.Reaction{}, nil},
		{"MediaAttachment", entity.MediaAttachment{}, nil},
	} {
		openapitest.CheckSchema(t, doc, c.schema, c.v, c.extra)
	}
}
