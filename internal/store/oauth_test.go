package store_test

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestTokens: tokens are stored hashed in their owner's slot, listed
// newest first, authenticate until revoked, and record their use; an
// app's secret is stored hashed and checked.
func TestTokens(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		u := f.Register(t, "holder")
		app, secret, err := f.St.CreateApp(f.Ctx, retwis.App{Name: "App", RedirectURIs: []string{retwis.OutOfBand}, Scopes: retwis.Scopes{"read", "write"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Do(t, "HGET", "app:{"+app.ClientID+"}", "secret"); got == "" || strings.Contains(got, secret) {
			t.Fatalf("the client secret is stored as %q", got)
		}
		if _, err := f.St.AuthenticateApp(f.Ctx, app.ClientID, secret); err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][2]string{{app.ClientID, "wrong"}, {"nobody", secret}, {"", ""}} {
			if _, err := f.St.AuthenticateApp(f.Ctx, bad[0], bad[1]); retwis.ErrorKind(err) != retwis.Unauthorized {
				t.Errorf("AuthenticateApp(%q, %q) = %v", bad[0], bad[1], err)
			}
		}
		first, err := f.St.CreateToken(f.Ctx, u.ID, app.ClientID, app.Name, retwis.Scopes{"read"})
		if err != nil {
			t.Fatal(err)
		}
		second, err := f.St.CreateToken(f.Ctx, u.ID, "", "personal", retwis.Scopes{"read", "write"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(first, strconv.FormatInt(u.ID, 10)+".") {
			t.Errorf("token %q does not name its user", first)
		}
		for _, field := range f.Strs(t, "HKEYS", "tokens:{"+strconv.FormatInt(u.ID, 10)+"}") {
			if strings.Contains(first, field) || strings.Contains(second, field) {
				t.Error("a token is stored as it is")
			}
		}
		tok, err := f.St.AuthenticateToken(f.Ctx, first)
		if err != nil || tok.User != u || tok.ClientID != app.ClientID || tok.Scopes.String() != "read" {
			t.Fatalf("AuthenticateToken = %+v, %v", tok, err)
		}
		list, err := f.St.Tokens(f.Ctx, u.ID)
		if err != nil || len(list) != 2 || list[0].LastUsed.IsZero() == list[1].LastUsed.IsZero() {
			t.Fatalf("Tokens = %+v, %v; want two, one used", list, err)
		}
		for _, bad := range []string{"", "x", "0.x", strconv.FormatInt(u.ID, 10) + ".x", first + "x", strings.Repeat("1", 200)} {
			if _, err := f.St.AuthenticateToken(f.Ctx, bad); retwis.ErrorKind(err) != retwis.Unauthorized {
				t.Errorf("AuthenticateToken(%q) = %v", bad, err)
			}
		}
		if err := f.St.RevokeBearer(f.Ctx, "another app", first); err != nil {
			t.Fatal(err)
		}
		if _, err := f.St.AuthenticateToken(f.Ctx, first); err != nil {
			t.Fatal("another app revoked the token")
		}
		if err := f.St.RevokeBearer(f.Ctx, app.ClientID, first); err != nil {
			t.Fatal(err)
		}
		if _, err := f.St.AuthenticateToken(f.Ctx, first); retwis.ErrorKind(err) != retwis.Unauthorized {
			t.Errorf("a revoked token authenticates: %v", err)
		}
		if err := f.St.RevokeToken(f.Ctx, u.ID, "nothing"); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("revoking nothing: %v", err)
		}
		if _, err := f.St.AuthenticateToken(f.Ctx, second); err != nil {
			t.Errorf("the other token stopped: %v", err)
		}
	})
}

// TestPersonalTokenName: a personal token's name is stored trimmed; a
// name that is blank or too long is refused and writes nothing; an
// app's token bears the app's name.
func TestPersonalTokenName(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "namer")
	before := f.Snapshot(t)
	for _, bad := range []string{"", "   ", strings.Repeat("n", retwis.MaxAppNameLen+1)} {
		if _, err := f.St.CreateToken(f.Ctx, u.ID, "", bad, retwis.Scopes{"read"}); retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("a token named %q: %v; want invalid", bad, err)
		}
	}
	f.AssertUnchanged(t, before)
	if _, err := f.St.CreateToken(f.Ctx, u.ID, "", "  my bot ", retwis.Scopes{"read"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.St.CreateToken(f.Ctx, u.ID, "client", "An App", retwis.Scopes{"read"}); err != nil {
		t.Fatal(err)
	}
	list, err := f.St.Tokens(f.Ctx, u.ID)
	var names []string
	for _, tok := range list {
		names = append(names, tok.AppName)
	}
	if slices.Sort(names); err != nil || !slices.Equal(names, []string{"An App", "my bot"}) {
		t.Fatalf("the tokens are named %q, %v; want An App and my bot", names, err)
	}
}

// TestCodes: an authorization code gives its grant once, and expires.
func TestCodes(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		g := retwis.Grant{ClientID: "c", UserID: 7, Scopes: retwis.Scopes{"read"}, RedirectURI: retwis.OutOfBand, Challenge: strings.Repeat("A", 43)}
		code, err := f.St.CreateCode(f.Ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.St.RedeemCode(f.Ctx, code)
		if err != nil || got.ClientID != g.ClientID || got.UserID != g.UserID || got.Challenge != g.Challenge || got.Scopes.String() != "read" {
			t.Fatalf("RedeemCode = %+v, %v", got, err)
		}
		if _, err := f.St.RedeemCode(f.Ctx, code); retwis.ErrorKind(err) != retwis.Unauthorized {
			t.Errorf("a code redeemed twice: %v", err)
		}
		code = must.Value(f.St.CreateCode(f.Ctx, g))(t)
		sum := sha256.Sum256([]byte(code))
		key := "oauth_code:{" + hex.EncodeToString(sum[:]) + "}" // stored by its hash, not as it is
		if ttl, _ := strconv.Atoi(f.Do(t, "TTL", key)); ttl <= 0 || ttl > 600 {
			t.Errorf("the code's key %s lives %ds; want up to 10 minutes", key, ttl)
		}
	})
}
