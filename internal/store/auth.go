package store

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// authCacheTTL bounds how long authentication data stays in the
// client-side cache, on top of Redis's invalidation.
const authCacheTTL = time.Minute

// account holds the fields of a user hash that authentication and
// activity tracking need.
type account struct {
	username  string
	auth      string
	hash      string // argon2id PHC string
	legacy    string // plaintext password of an original-Retwis account
	seen      int64  // unix time the user was last seen; 0 if never recorded
	rebuild   bool   // the home timeline awaits a rebuild
	suspended bool   // the account is suspended
}

// account reads the fields of a user hash that authentication needs.
// With cached, the copy in the client-side cache will do: Redis
// invalidates it as soon as the hash changes (a logout, say).
func (s *Store) account(ctx context.Context, uid int64, cached bool) (account, error) {
	cmd := s.c.B().Hmget().Key(schema.User(uid)).Field(schema.FieldUsername, schema.FieldAuth, schema.FieldPasswordHash, schema.FieldPassword, schema.FieldSeen, schema.FieldRebuild, schema.FieldSuspended)
	var r rueidis.RedisResult
	if cached {
		r = s.cached(ctx, cmd.Cache(), authCacheTTL)
	} else {
		r = s.c.Do(ctx, cmd.Build())
	}
	vals, err := r.ToArray()
	if err != nil {
		return account{}, s.wrap("read account", err)
	}
	str := func(i int) string { v, _ := vals[i].ToString(); return v }
	seen, _ := strconv.ParseInt(str(4), 10, 64)
	return account{username: str(0), auth: str(1), hash: str(2), legacy: str(3), seen: seen, rebuild: str(5) != "", suspended: str(6) != ""}, nil
}

// checkPassword verifies pass against the account. A legacy plaintext
// password is compared in constant time and, when it matches, re-stored
// hashed with the plaintext removed.
func (s *Store) checkPassword(ctx context.Context, uid int64, acct account, pass string) (bool, error) {
	switch {
	case acct.hash != "":
		ok, err := s.verifyPassword(ctx, pass, acct.hash)
		if err != nil {
			return false, fmt.Errorf("store: user %d: %w", uid, err)
		}
		return ok, nil
	case acct.legacy != "":
		// Spend what a hashed account costs, then compare in constant time.
		if _, err := s.verifyPassword(ctx, pass, ""); err != nil {
			return false, err
		}
		if subtle.ConstantTimeCompare([]byte(pass), []byte(acct.legacy)) != 1 {
			return false, nil
		}
		hash, err := s.hashPassword(ctx, pass)
		if err != nil {
			return false, err
		}
		err = upgradeLegacy.exec(ctx, s.c, []string{schema.User(uid)}, acct.legacy, hash, schema.FieldPassword, schema.FieldPasswordHash).Error()
		return true, s.wrap("upgrade legacy password", err)
	}
	return s.verifyPassword(ctx, pass, "") // no password at all: nobody can log in
}

// Authenticate maps a session token (the auth cookie) to its user. A
// token is "<user id>:<secret>": the user hash alone answers, its auth
// field compared in constant time with the secret, so authentication
// reads one slot of a cluster, the user's own, and a failed master stops
// only the sessions of the users it holds. A token without the id (a
// cookie of the tutorial's Retwis, or of retwis before layout 3's
// sessions) is mapped to its user through the auths shards first, as the
// tutorial's isLoggedIn does. It writes nothing: reading the home
// timeline is what records that a user is active (see markSeen).
//
// The reads come from the client-side cache when warm, so a page view
// costs no round trip for authentication. Redis tracks the cached keys
// and invalidates them when they change: a logout (which rewrites the
// user's auth field) ends the old cookie on this server at once, and on
// other servers as soon as the invalidation reaches them.
func (s *Store) Authenticate(ctx context.Context, token string) (retwis.User, error) {
	none := retwis.Errorf(retwis.Unauthorized, "Please log in.")
	if token == "" || len(token) > 128 {
		return retwis.User{}, none
	}
	uid, secret, ok := parseToken(token)
	if !ok {
		v, err := s.cached(ctx, s.c.B().Hget().Key(schema.Auths(token)).Field(token).Cache(), authCacheTTL).ToString()
		if rueidis.IsRedisNil(err) {
			return retwis.User{}, none
		}
		if err != nil {
			return retwis.User{}, s.wrap("authenticate", err)
		}
		if uid, err = strconv.ParseInt(v, 10, 64); err != nil {
			return retwis.User{}, none
		}
	}
	acct, err := s.account(ctx, uid, true)
	if err != nil {
		return retwis.User{}, err
	}
	if subtle.ConstantTimeCompare([]byte(acct.auth), []byte(secret)) != 1 || acct.suspended {
		return retwis.User{}, none
	}
	return retwis.User{ID: uid, Username: acct.username}, nil
}

// sessionToken returns the token a user with secret logs in with.
func sessionToken(uid int64, secret string) string { return id(uid) + ":" + secret }

// parseToken splits a session token into the user id and the secret. ok
// is false for a token without the id, whose whole is the secret.
func parseToken(token string) (uid int64, secret string, ok bool) {
	prefix, secret, found := strings.Cut(token, ":")
	if !found {
		return 0, token, false
	}
	uid, err := strconv.ParseInt(prefix, 10, 64)
	if err != nil || uid <= 0 || secret == "" {
		return 0, token, false
	}
	return uid, secret, true
}

// Logout rotates the user's auth secret, as the tutorial's logout.php
// does, so every cookie holding the old one stops working.
func (s *Store) Logout(ctx context.Context, uid int64) error {
	acct, err := s.account(ctx, uid, false)
	if err != nil {
		return err
	}
	// Once started, the rotation completes even if the client goes away.
	_, err = s.rotate(context.WithoutCancel(ctx), uid, acct.auth)
	return err
}

// rotate gives the user a new secret, in the user hash: every cookie
// holding the old one dies there. A secret of the tutorial's kind (the
// token without the user id) is then forgot in its auths shard too; that
// is only tidying, since it no longer matches the user hash, so a failure
// there is logged and the rotation stands.
func (s *Store) rotate(ctx context.Context, uid int64, old string) (string, error) {
	secret := newSecret()
	b := s.c.B()
	s.written.add(schema.User(uid))
	res := s.replicated(ctx, func() rueidis.Commands {
		return rueidis.Commands{b.Hset().Key(schema.User(uid)).FieldValue().FieldValue(schema.FieldAuth, secret).Build()}
	}, schema.User(uid))
	if err := res[0].Error(); err != nil {
		return "", s.wrap("rotate secret", err)
	}
	s.forgetSecret(ctx, uid, old)
	return secret, nil
}

// forgetSecret removes uid's old secret from its auths shard, where a
// secret of the tutorial's kind may be: only tidying, since the secret
// no longer matches the user hash, so a failure is logged.
func (s *Store) forgetSecret(ctx context.Context, uid int64, old string) {
	if old == "" {
		return
	}
	s.written.add(schema.Auths(old))
	if err := s.c.Do(ctx, s.c.B().Hdel().Key(schema.Auths(old)).Field(old).Build()).Error(); err != nil {
		s.log.Warn("an old auth secret stays in its auths shard (it no longer matches)", "user", uid, "err", err)
	}
}
