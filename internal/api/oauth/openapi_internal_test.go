package oauth

import (
	"os"
	"testing"

	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/openapitest"
)

// TestOpenAPIToken checks OAuth's answers (the token, the server's
// metadata, the userinfo claims) against their schemas in the client
// API's document, internal/api's openapi.json, whose tests check the
// routes of this package with the others'.
func TestOpenAPIToken(t *testing.T) {
	t.Parallel()
	doc, _ := openapitest.Load(t, must.Value(os.ReadFile("../openapi.json"))(t))
	openapitest.CheckSchema(t, doc, "Token", token{}, nil)
	openapitest.CheckSchema(t, doc, "OAuthMetadata", metadata{}, nil)
	openapitest.CheckSchema(t, doc, "Userinfo", userinfo{}, nil)
}
