package oauth

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/middleware"
)

// metadata is OAuth's authorization server metadata (RFC 8414, section
// 2), with the fields Mastodon 4.4 sends: its app_registration_endpoint
// is POST /api/v1/apps, as it has no dynamic client registration.
type metadata struct {
	Issuer                   string   `json:"issuer"`
	ServiceDocumentation     string   `json:"service_documentation"`
	AuthorizationEndpoint    string   `json:"authorization_endpoint"`
	TokenEndpoint            string   `json:"token_endpoint"`
	AppRegistrationEndpoint  string   `json:"app_registration_endpoint"`
	RevocationEndpoint       string   `json:"revocation_endpoint"`
	UserinfoEndpoint         string   `json:"userinfo_endpoint"`
	ScopesSupported          []string `json:"scopes_supported"`
	ResponseTypesSupported   []string `json:"response_types_supported"`
	ResponseModesSupported   []string `json:"response_modes_supported"`
	CodeChallengeMethods     []string `json:"code_challenge_methods_supported"`
	GrantTypesSupported      []string `json:"grant_types_supported"`
	TokenEndpointAuthMethods []string `json:"token_endpoint_auth_methods_supported"`
}

// issuer is the issuer of the server a request came to: its origin and
// a slash, as Mastodon writes it.
func issuer(r *http.Request) string { return middleware.Origin(r) + "/" }

// serveMetadata answers GET /.well-known/oauth-authorization-server:
// where an app registers, sends its users and trades codes, and what it
// may ask for (codes only, their PKCE challenge S256 only; the query is
// how codes come back).
func serveMetadata(w http.ResponseWriter, r *http.Request) {
	origin := middleware.Origin(r)
	apiwire.WriteJSON(w, http.StatusOK, metadata{
		Issuer:                   issuer(r),
		ServiceDocumentation:     "https://docs.joinmastodon.org/",
		AuthorizationEndpoint:    origin + "/oauth/authorize",
		TokenEndpoint:            origin + "/oauth/token",
		AppRegistrationEndpoint:  origin + "/api/v1/apps",
		RevocationEndpoint:       origin + "/oauth/revoke",
		UserinfoEndpoint:         origin + "/oauth/userinfo",
		ScopesSupported:          retwis.SupportedScopes(),
		ResponseTypesSupported:   []string{"code"},
		ResponseModesSupported:   []string{"query"},
		CodeChallengeMethods:     []string{"S256"},
		GrantTypesSupported:      []string{"authorization_code", "client_credentials"},
		TokenEndpointAuthMethods: []string{"client_secret_basic", "client_secret_post"},
	})
}
