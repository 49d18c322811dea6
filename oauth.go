package retwis

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"time"
)

// OutOfBand is the redirect URI of an app that cannot receive a
// redirect: the authorization page shows the code for the user to copy.
const OutOfBand = "urn:ietf:wg:oauth:2.0:oob"

// Limits on what an app registers.
const (
	MaxAppNameLen     = 100  // characters
	MaxRedirectURIs   = 10   // per app
	maxRedirectURILen = 2000 // bytes each, as browsers allow
)

// The scopes retwis knows, as Mastodon names them. A scope grants what
// its name says: "read" every read:… scope, "write" every write:…
// scope, "follow" the follow, block and mute scopes of both, "profile"
// the reading of one's own account, "push" the token's Web Push
// subscription.
var (
	topScopes  = []string{"read", "write", "follow", "push", "profile"}
	readScopes = []string{"accounts", "blocks", "bookmarks", "favourites", "filters", "follows",
		"lists", "mutes", "notifications", "search", "statuses"}
	writeScopes = []string{"accounts", "blocks", "bookmarks", "conversations", "favourites", "filters",
		"follows", "lists", "media", "mutes", "notifications", "reports", "statuses"}
	followScopes = []string{"read:follows", "write:follows", "read:blocks", "write:blocks", "read:mutes", "write:mutes"}
)

// Scopes is a set of OAuth scopes, in the order they were written.
type Scopes []string

// ParseScopes reads a space-separated list of scopes (OAuth's format; a
// "+" between them, as some apps send, counts as a space). Empty means
// "read", as in Mastodon. An unknown scope is refused.
func ParseScopes(s string) (Scopes, error) {
	fields := strings.Fields(strings.ReplaceAll(s, "+", " "))
	if len(fields) == 0 {
		return Scopes{"read"}, nil
	}
	if len(fields) > 64 {
		return nil, Errorf(Invalid, "Too many scopes.")
	}
	var out Scopes
	for _, f := range fields {
		if !knownScope(f) {
			return nil, Errorf(Invalid, "The scope %q is unknown.", f)
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

func knownScope(s string) bool {
	if slices.Contains(topScopes, s) {
		return true
	}
	kind, sub, ok := strings.Cut(s, ":")
	switch {
	case !ok:
		return false
	case kind == "read":
		return slices.Contains(readScopes, sub)
	case kind == "write":
		return slices.Contains(writeScopes, sub)
	}
	return false
}

// SupportedScopes returns every scope retwis knows, as Mastodon lists
// them in its OAuth server metadata: the top ones, then the granular
// write:… and read:… scopes.
func SupportedScopes() []string {
	out := slices.Clone(topScopes)
	for _, sub := range writeScopes {
		out = append(out, "write:"+sub)
	}
	for _, sub := range readScopes {
		out = append(out, "read:"+sub)
	}
	return out
}

// String writes the scopes as OAuth does, separated by spaces.
func (sc Scopes) String() string { return strings.Join(sc, " ") }

// Allows reports whether the scopes grant need, a granular scope such as
// "read:statuses" (or "profile").
func (sc Scopes) Allows(need string) bool {
	kind, _, _ := strings.Cut(need, ":")
	for _, s := range sc {
		switch {
		case s == need, s == kind && (kind == "read" || kind == "write"):
			return true
		case s == "follow" && slices.Contains(followScopes, need):
			return true
		case need == "profile" && (s == "read" || s == "read:accounts"):
			return true
		}
	}
	return false
}

// Within reports whether every scope of sc is also one of of's, or
// granted by them: a token asks for no more than its app registered.
func (sc Scopes) Within(of Scopes) bool {
	for _, s := range sc {
		if !slices.Contains(of, s) && !of.Allows(s) {
			return false
		}
	}
	return true
}

// App is a client application registered with the API.
type App struct {
	ClientID     string
	Name         string
	Website      string
	RedirectURIs []string
	Scopes       Scopes
	Created      time.Time
}

// ValidateApp checks what an app registers: a name of 1–100 characters
// (ValidName's), 1–10 redirect URIs, each absolute (or OutOfBand),
// without a fragment and of no scheme a browser would run or read
// locally (RedirectScheme), and a website that is empty or an http(s)
// URL.
func ValidateApp(a App) error {
	if err := ValidName(a.Name, MaxAppNameLen, "An app's name"); err != nil {
		return err
	}
	if err := validRedirects(a.RedirectURIs); err != nil {
		return err
	}
	if a.Website != "" {
		u, err := url.Parse(a.Website)
		if err != nil || len(a.Website) > maxRedirectURILen || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Errorf(Invalid, "The website must be an http or https URL.")
		}
	}
	return nil
}

// ParseRedirectURIs reads the redirect URIs an app registers, as
// Mastodon takes them: each value may hold several, separated by
// newlines (or any white space, which no URI contains), and the values
// may be many (an array). Those written twice count once; the rest
// must be what ValidateApp accepts, 1 to MaxRedirectURIs of them.
func ParseRedirectURIs(values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		for _, u := range strings.Fields(v) {
			if slices.Contains(out, u) {
				continue
			}
			if len(out) == MaxRedirectURIs {
				return nil, Errorf(Invalid, "An app has 1 to %d redirect URIs.", MaxRedirectURIs)
			}
			out = append(out, u)
		}
	}
	if err := validRedirects(out); err != nil {
		return nil, err
	}
	return out, nil
}

// validRedirects checks an app's redirect URIs: 1 to MaxRedirectURIs,
// each absolute (or OutOfBand), without a fragment and of a scheme
// RedirectScheme accepts.
func validRedirects(uris []string) error {
	if len(uris) == 0 || len(uris) > MaxRedirectURIs {
		return Errorf(Invalid, "An app has 1 to %d redirect URIs.", MaxRedirectURIs)
	}
	for _, u := range uris {
		if !validRedirect(u) {
			return Errorf(Invalid, "The redirect URI %q is not an absolute URI without a fragment.", truncate(u, 100))
		}
		if err := RedirectScheme(u); err != nil {
			return err
		}
	}
	return nil
}

func validRedirect(s string) bool {
	if s == OutOfBand {
		return true
	}
	u, err := url.Parse(s) // any scheme, even alone (icecubesapp://): Mastodon's rule
	return err == nil && len(s) <= maxRedirectURILen && u.Scheme != "" && !strings.ContainsAny(s, "# \t\r\n")
}

// refusedSchemes are the schemes no app may redirect to: those a browser
// runs as script or opens as a document of its own making (javascript,
// vbscript, data, blob, about…), and those that read the local machine
// or the browser itself (file, filesystem, view-source, chrome…). A
// code sent there reaches no app, or a page an attacker wrote.
var refusedSchemes = []string{
	"javascript", "vbscript", "livescript", "data", "file", "about", "blob", "filesystem", "view-source",
	"chrome", "chrome-extension", "moz-extension", "resource", "jar", "mhtml", "ms-its", "res",
}

// RedirectScheme checks the scheme of a redirect URI an app registers:
// any scheme of its own (com.example.app:, tusky:) or http(s) is fine,
// but for the refused ones (javascript:, data:, file: and the like),
// http and https need a host, and OutOfBand is always fine.
func RedirectScheme(uri string) error {
	if uri == OutOfBand {
		return nil
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" {
		return Errorf(Invalid, "The redirect URI %q has no scheme.", truncate(uri, 100))
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case slices.Contains(refusedSchemes, scheme):
		return Errorf(Invalid, "The redirect URI %q has the scheme %s:, to which no app may be redirected.", truncate(uri, 100), scheme)
	case (scheme == "http" || scheme == "https") && u.Host == "":
		return Errorf(Invalid, "The redirect URI %q has no host.", truncate(uri, 100))
	}
	return nil
}

// truncate cuts s to at most n bytes on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Grant is what a user approved on the authorization page, waiting for
// the app to exchange its code for a token.
type Grant struct {
	ClientID    string `json:"client_id"`
	UserID      int64  `json:"user_id"`
	Scopes      Scopes `json:"scopes"`
	RedirectURI string `json:"redirect_uri"`
	// Challenge is the PKCE code challenge (S256), if the app sent one:
	// the code is then exchanged only with its verifier.
	Challenge string `json:"challenge,omitempty"`
}

// VerifyPKCE reports whether verifier answers the grant's challenge: the
// base64url SHA-256 of the verifier (RFC 7636's S256). A grant without a
// challenge asks for no verifier, and refuses one.
func (g Grant) VerifyPKCE(verifier string) bool {
	if g.Challenge == "" {
		return verifier == ""
	}
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(g.Challenge)) == 1
}

// ValidChallenge reports whether challenge has the shape of an S256 code
// challenge: 43 base64url characters.
func ValidChallenge(challenge string) bool {
	if len(challenge) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(challenge)
	return err == nil
}

// NormalizeTokenName turns the name typed for a personal token, which
// its owner's list shows where an app's name would be, into the one
// stored: without the spaces around it, 1 to MaxAppNameLen characters,
// by ValidName's rules.
// The store enforces it wherever a personal token is made.
func NormalizeTokenName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if err := ValidName(name, MaxAppNameLen, "A token's name"); err != nil {
		return "", err
	}
	return name, nil
}

// Token is an API access token as its owner sees it listed (never the
// secret itself).
type Token struct {
	// ID names the token in its owner's list: a hash of the secret.
	ID string
	// User is the token's owner; zero for an app's own token
	// (client_credentials), which acts as nobody.
	User     User
	ClientID string // "" for a personal token
	AppName  string
	Scopes   Scopes
	Created  time.Time
	LastUsed time.Time // zero: never used
}
