package streaming

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/openapitest"
)

// The tests below keep the client API's document, internal/api's
// openapi.json, honest about the streams: it must describe exactly the
// routes that routes() registers, each authorized as resolveStream
// authorizes it, and the WebSocket's messages as they are encoded.

// loadSpec reads the document from internal/api, which serves it.
func loadSpec(t *testing.T) openapitest.Spec {
	t.Helper()
	b, err := os.ReadFile("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := openapitest.Load(t, b)
	return doc
}

func TestOpenAPIRoutes(t *testing.T) {
	t.Parallel()
	doc := loadSpec(t)
	routes := openapitest.PackageRoutes(t, ".")
	for i, rt := range routes {
		if rt.Stream != "" {
			reqs, _ := doc.Paths[rt.Path][rt.Method]["security"].([]any)
			routes[i].Auth, routes[i].Scope = streamAuth(t, strings.ToUpper(rt.Method)+" "+rt.Path, rt.Stream, reqs)
		}
	}
	openapitest.CheckRoutes(t, doc, routes, func(path string) bool { return strings.HasPrefix(path, "/api/v1/streaming") })
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

// TestOpenAPIEntities checks the WebSocket's messages' schemas against
// the structs it encodes.
func TestOpenAPIEntities(t *testing.T) {
	t.Parallel()
	doc := loadSpec(t)
	openapitest.CheckSchema(t, doc, "StreamEvent", wsEvent{}, nil)
	openapitest.CheckSchema(t, doc, "StreamError", wsError{}, nil)
}
