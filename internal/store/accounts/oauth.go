package accounts

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// CodeTTL is how long an authorization code can be exchanged for a token.
const CodeTTL = 10 * time.Minute

// tokenUseEvery is how often a token's last use is recorded at most.
const tokenUseEvery = time.Minute

// RandomString returns n random bytes in base64url: the client ids,
// secrets, codes and tokens of the API.
func RandomString(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

// digest is the SHA-256 of a secret, in hex: what is stored of it. The
// secrets are 256 random bits, so a fast hash keeps them as safe as a
// slow one would.
func digest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateApp registers app (its ClientID and Created are set here) and
// returns it with its client secret, which is stored only hashed.
func (s *Store) CreateApp(ctx context.Context, app retwis.App) (retwis.App, string, error) {
	if err := retwis.ValidateApp(app); err != nil {
		return retwis.App{}, "", err
	}
	app.ClientID, app.Created = RandomString(32), time.Now().Truncate(time.Second)
	secret := RandomString(32)
	cmd := s.C.B().Hset().Key(schema.App(app.ClientID)).FieldValue().
		FieldValue(schema.FieldAppName, app.Name).
		FieldValue(schema.FieldAppWebsite, app.Website).
		FieldValue(schema.FieldAppRedirects, strings.Join(app.RedirectURIs, "\n")).
		FieldValue(schema.FieldAppScopes, app.Scopes.String()).
		FieldValue(schema.FieldAppSecret, digest(secret)).
		FieldValue(schema.FieldAppCreated, strconv.FormatInt(app.Created.Unix(), 10)).Build()
	if err := s.C.Do(ctx, cmd).Error(); err != nil {
		return retwis.App{}, "", s.Wrap("create app", err)
	}
	return app, secret, nil
}

// App returns the app with the given client id, or an error of kind
// NotFound.
func (s *Store) App(ctx context.Context, clientID string) (retwis.App, error) {
	app, _, err := s.app(ctx, clientID)
	return app, err
}

// AuthenticateApp returns the app with the given client id if secret is
// its client secret, else an error of kind Unauthorized.
func (s *Store) AuthenticateApp(ctx context.Context, clientID, secret string) (retwis.App, error) {
	app, hash, err := s.app(ctx, clientID)
	if retwis.ErrorKind(err) == retwis.NotFound || err == nil && subtle.ConstantTimeCompare([]byte(hash), []byte(digest(secret))) != 1 {
		return retwis.App{}, retwis.Errorf(retwis.Unauthorized, "Client authentication failed: unknown client or wrong secret.")
	}
	return app, err
}

// app reads an app and the hash of its secret.
func (s *Store) app(ctx context.Context, clientID string) (retwis.App, string, error) {
	notFound := retwis.Errorf(retwis.NotFound, "This app is not registered here.")
	if clientID == "" || len(clientID) > 64 {
		return retwis.App{}, "", notFound
	}
	m, err := s.Cached(ctx, s.C.B().Hgetall().Key(schema.App(clientID)).Cache(), s.Opts.CacheTTL).AsStrMap()
	if err != nil {
		return retwis.App{}, "", s.Wrap("read app", err)
	}
	if len(m) == 0 {
		return retwis.App{}, "", notFound
	}
	scopes, _ := retwis.ParseScopes(m[schema.FieldAppScopes])
	created, _ := strconv.ParseInt(m[schema.FieldAppCreated], 10, 64)
	return retwis.App{ClientID: clientID, Name: m[schema.FieldAppName], Website: m[schema.FieldAppWebsite],
		RedirectURIs: strings.Split(m[schema.FieldAppRedirects], "\n"), Scopes: scopes,
		Created: time.Unix(created, 0)}, m[schema.FieldAppSecret], nil
}

// CreateCode records what the user approved and returns the
// authorization code the app exchanges for a token, within CodeTTL and
// once.
func (s *Store) CreateCode(ctx context.Context, g retwis.Grant) (string, error) {
	code := RandomString(32)
	v, err := json.Marshal(g)
	if err != nil {
		return "", s.Wrap("create code", err)
	}
	cmd := s.C.B().Set().Key(schema.OAuthCode(digest(code))).Value(string(v)).Ex(CodeTTL).Build()
	return code, s.Wrap("create code", s.C.Do(ctx, cmd).Error())
}

// RedeemCode returns the grant of an authorization code and makes the
// code unusable: a second exchange, or one after CodeTTL, is refused
// with an error of kind Unauthorized.
func (s *Store) RedeemCode(ctx context.Context, code string) (retwis.Grant, error) {
	bad := retwis.Errorf(retwis.Unauthorized, "The authorization code is invalid, expired or already used.")
	if code == "" || len(code) > 128 {
		return retwis.Grant{}, bad
	}
	v, err := s.C.Do(ctx, s.C.B().Getdel().Key(schema.OAuthCode(digest(code))).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return retwis.Grant{}, bad
	}
	if err != nil {
		return retwis.Grant{}, s.Wrap("redeem code", err)
	}
	var g retwis.Grant
	if err := json.Unmarshal([]byte(v), &g); err != nil {
		return retwis.Grant{}, s.Wrap("redeem code", err)
	}
	return g, nil
}

// tokenRecord is what Tokens holds of a token.
type tokenRecord struct {
	ClientID string        `json:"client_id,omitempty"`
	AppName  string        `json:"app"`
	Scopes   retwis.Scopes `json:"scopes"`
	Created  int64         `json:"created"`
}

// CreateToken returns a new access token for uid (0: the app itself)
// with the given scopes, issued to the app clientID, whose registered
// name is appName; or, with clientID "", a personal token the user made
// and named appName, which retwis.NormalizeTokenName checks (a refused
// name writes nothing). The token is "<uid>.<secret>": authentication
// reads the owner's slot alone.
func (s *Store) CreateToken(ctx context.Context, uid int64, clientID, appName string, scopes retwis.Scopes) (string, error) {
	if clientID == "" {
		var err error
		if appName, err = retwis.NormalizeTokenName(appName); err != nil {
			return "", err
		}
	}
	secret := RandomString(32)
	v, err := json.Marshal(tokenRecord{ClientID: clientID, AppName: appName, Scopes: scopes, Created: time.Now().Unix()})
	if err != nil {
		return "", s.Wrap("create token", err)
	}
	cmds := rueidis.Commands{s.C.B().Hset().Key(schema.Tokens(uid)).FieldValue().FieldValue(digest(secret), string(v)).Build()}
	if uid != 0 { // a user's login, in the same round trip
		cmds = append(cmds, index.ActivityCmds(s.C, uid, time.Now(), "")...)
	}
	res := s.C.DoMulti(ctx, cmds...)
	if len(res) > 1 && redisconn.FirstErr(res[1:]) != nil {
		s.Log.Warn("the instance's activity was not counted", "user", uid, "err", redisconn.FirstErr(res[1:]))
	}
	if err := res[0].Error(); err != nil {
		return "", s.Wrap("create token", err)
	}
	return kernel.ID(uid) + "." + secret, nil
}

// splitToken parses "<uid>.<secret>".
func splitToken(token string) (uid int64, secret string, ok bool) {
	prefix, secret, found := strings.Cut(token, ".")
	if !found || len(token) > 128 || secret == "" {
		return 0, "", false
	}
	uid, err := strconv.ParseInt(prefix, 10, 64)
	return uid, secret, err == nil && uid >= 0
}

// AuthenticateToken returns the token that the bearer token is, with
// its owner, or an error of kind Unauthorized if it is unknown or was
// revoked. When warm, the client-side cache answers without a round
// trip; Redis invalidates it the moment the token is revoked. It records
// when the token was used, at most once a minute.
func (s *Store) AuthenticateToken(ctx context.Context, token string) (retwis.Token, error) {
	bad := retwis.Errorf(retwis.Unauthorized, "The access token is invalid.")
	uid, secret, ok := splitToken(token)
	if !ok {
		return retwis.Token{}, bad
	}
	hash := digest(secret)
	b := s.C.B()
	res := s.CachedMulti(ctx,
		rueidis.CT(b.Hget().Key(schema.Tokens(uid)).Field(hash).Cache(), AuthCacheTTL),
		rueidis.CT(b.Hget().Key(schema.TokensUsed(uid)).Field(hash).Cache(), AuthCacheTTL))
	v, err := res[0].ToString()
	if rueidis.IsRedisNil(err) {
		return retwis.Token{}, bad
	}
	if err != nil {
		return retwis.Token{}, s.Wrap("authenticate token", err)
	}
	t, err := parseTokenRecord(hash, v)
	if err != nil {
		return retwis.Token{}, s.Wrap("authenticate token", err)
	}
	if used, err := res[1].AsInt64(); err == nil {
		t.LastUsed = time.Unix(used, 0)
	}
	if uid != 0 {
		acct, err := s.Account(ctx, uid, true)
		if err != nil {
			return retwis.Token{}, err
		}
		if acct.Username == "" || acct.suspended { // the account is gone, or suspended
			return retwis.Token{}, bad
		}
		t.User = retwis.User{ID: uid, Username: acct.Username, Filtered: acct.Filtered}
	}
	if now := time.Now(); now.Sub(t.LastUsed) >= tokenUseEvery {
		cmd := b.Hset().Key(schema.TokensUsed(uid)).FieldValue().FieldValue(hash, strconv.FormatInt(now.Unix(), 10)).Build()
		if err := s.C.Do(ctx, cmd).Error(); err != nil {
			s.Log.Warn("recording a token's use", "err", err)
		}
	}
	return t, nil
}

func parseTokenRecord(hash, v string) (retwis.Token, error) {
	var r tokenRecord
	if err := json.Unmarshal([]byte(v), &r); err != nil {
		return retwis.Token{}, err
	}
	return retwis.Token{ID: hash, ClientID: r.ClientID, AppName: r.AppName, Scopes: r.Scopes,
		Created: time.Unix(r.Created, 0)}, nil
}

// Tokens lists uid's access tokens, the most recently created first.
func (s *Store) Tokens(ctx context.Context, uid int64) ([]retwis.Token, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Hgetall().Key(schema.Tokens(uid)).Build(), b.Hgetall().Key(schema.TokensUsed(uid)).Build())
	recs, err := res[0].AsStrMap()
	if err != nil {
		return nil, s.Wrap("tokens", err)
	}
	used, err := res[1].AsStrMap()
	if err != nil {
		return nil, s.Wrap("tokens", err)
	}
	out := make([]retwis.Token, 0, len(recs))
	for hash, v := range recs {
		t, err := parseTokenRecord(hash, v)
		if err != nil {
			continue
		}
		if u, err := strconv.ParseInt(used[hash], 10, 64); err == nil {
			t.LastUsed = time.Unix(u, 0)
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b retwis.Token) int {
		return cmp.Or(b.Created.Compare(a.Created), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// RevokeToken ends uid's token with the given ID (as Tokens lists it);
// it stops working at once, and the live streams it opened end, on
// every server; its Web Push subscription goes with it. An unknown ID is
// an error of kind NotFound.
func (s *Store) RevokeToken(ctx context.Context, uid int64, tokenID string) error {
	s.Written.Add(schema.Tokens(uid)) // this server's next read must not be its cached copy
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Hdel().Key(schema.Tokens(uid)).Field(tokenID).Build(),
		b.Hdel().Key(schema.TokensUsed(uid)).Field(tokenID).Build(),
		b.Hdel().Key(schema.PushSubscriptions(uid)).Field(tokenID).Build())
	n, err := res[0].AsInt64()
	if err != nil {
		return s.Wrap("revoke token", err)
	}
	if n == 0 {
		return retwis.Errorf(retwis.NotFound, "There is no such token.")
	}
	s.revoked(ctx, Revocation{What: RevokedToken, User: uid, Ref: tokenID})
	return nil
}

// RevokeTokens revokes every API token of uid at once: each stops
// working on every server, and the live streams they opened end; their
// Web Push subscriptions go with them. Sessions are apart: EndSessions
// ends those.
func (s *Store) RevokeTokens(ctx context.Context, uid int64) error {
	s.Written.Add(schema.Tokens(uid), schema.TokensUsed(uid), schema.PushSubscriptions(uid))
	b := s.C.B()
	ctx = context.WithoutCancel(ctx)
	err := redisconn.FirstErr(s.C.DoMulti(ctx, b.Del().Key(schema.Tokens(uid)).Build(),
		b.Del().Key(schema.TokensUsed(uid)).Build(), b.Del().Key(schema.PushSubscriptions(uid)).Build()))
	if err != nil {
		return s.Wrap("revoke tokens", err)
	}
	s.revoked(ctx, Revocation{What: RevokedTokens, User: uid})
	return nil
}

// RevokeBearer ends the token that bearer is, if it was issued to the
// app clientID (RFC 7009: an unknown token is no error; one of another
// app is left alone).
func (s *Store) RevokeBearer(ctx context.Context, clientID, bearer string) error {
	uid, secret, ok := splitToken(bearer)
	if !ok {
		return nil
	}
	hash := digest(secret)
	v, err := s.C.Do(ctx, s.C.B().Hget().Key(schema.Tokens(uid)).Field(hash).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return nil
	}
	if err != nil {
		return s.Wrap("revoke token", err)
	}
	if t, err := parseTokenRecord(hash, v); err != nil || t.ClientID != clientID {
		return nil
	}
	if err := s.RevokeToken(ctx, uid, hash); retwis.ErrorKind(err) != retwis.NotFound {
		return err
	}
	return nil
}
