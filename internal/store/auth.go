package store

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// authCacheTTL bounds how long authentication data stays in the
// client-side cache, on top of Redis's invalidation.
const authCacheTTL = time.Minute

// account holds the fields of a user hash that authentication and
// activity tracking need.
type account struct {
	username string
	auth     string
	hash     string // argon2id PHC string
	legacy   string // plaintext password of an original-Retwis account
	seen     int64  // unix time the user was last seen; 0 if never recorded
	rebuild  bool   // the home timeline awaits a rebuild
}

// account reads the fields of a user hash that authentication needs.
// With cached, the copy in the client-side cache will do: Redis
// invalidates it as soon as the hash changes (a logout, say).
func (s *Store) account(ctx context.Context, uid int64, cached bool) (account, error) {
	cmd := s.c.B().Hmget().Key(keyUser(uid)).Field(fieldUsername, fieldAuth, fieldPasswordHash, fieldPassword, fieldSeen, fieldRebuild)
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
	return account{username: str(0), auth: str(1), hash: str(2), legacy: str(3), seen: seen, rebuild: str(5) != ""}, nil
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
		err = upgradeLegacy.exec(ctx, s.c, []string{keyUser(uid)}, acct.legacy, hash).Error()
		return true, s.wrap("upgrade legacy password", err)
	}
	return s.verifyPassword(ctx, pass, "") // no password at all: nobody can log in
}

// Authenticate maps an auth cookie to its user, as the tutorial's
// isLoggedIn does: through the auths hash, double-checked (in constant
// time) against the user's own auth field, which is the true secret. It
// writes nothing: reading the home timeline is what records that a user
// is active (see markSeen).
//
// Both reads come from the client-side cache when warm, so a page view
// costs no round trip for authentication. Redis tracks the cached keys
// and invalidates them when they change: a logout (which rewrites the
// user's auth field) ends the old cookie on this server at once, and on
// other servers as soon as the invalidation reaches them.
func (s *Store) Authenticate(ctx context.Context, secret string) (retwis.User, error) {
	none := retwis.Errorf(retwis.Unauthorized, "Please log in.")
	if secret == "" || len(secret) > 128 {
		return retwis.User{}, none
	}
	v, err := s.cached(ctx, s.c.B().Hget().Key(keyAuths(secret)).Field(secret).Cache(), authCacheTTL).ToString()
	if rueidis.IsRedisNil(err) {
		return retwis.User{}, none
	}
	if err != nil {
		return retwis.User{}, s.wrap("authenticate", err)
	}
	uid, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return retwis.User{}, none
	}
	acct, err := s.account(ctx, uid, true)
	if err != nil {
		return retwis.User{}, err
	}
	if subtle.ConstantTimeCompare([]byte(acct.auth), []byte(secret)) != 1 {
		return retwis.User{}, none
	}
	return retwis.User{ID: uid, Username: acct.username}, nil
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

// rotate gives the user a new secret and forgets the old one, in three
// ordered steps because the auths shards and user:<id> may be on
// different nodes:
//  1. map the new secret in its auths shard (harmless: nobody holds it
//     yet);
//  2. set it in the user hash, the true secret: the old cookie dies here,
//     and the new one works, since step 1 is done;
//  3. forget the old secret (only tidying: it no longer matches).
//
// A failure at any step leaves the user able to log in.
func (s *Store) rotate(ctx context.Context, uid int64, old string) (string, error) {
	secret := newSecret()
	b := s.c.B()
	type step struct {
		key string
		cmd func() rueidis.Completed // built anew if the pipeline is sent again
	}
	steps := []step{
		{keyAuths(secret), func() rueidis.Completed {
			return b.Hset().Key(keyAuths(secret)).FieldValue().FieldValue(secret, id(uid)).Build()
		}},
		{keyUser(uid), func() rueidis.Completed {
			return b.Hset().Key(keyUser(uid)).FieldValue().FieldValue(fieldAuth, secret).Build()
		}},
	}
	if old != "" {
		steps = append(steps, step{keyAuths(old), func() rueidis.Completed { return b.Hdel().Key(keyAuths(old)).Field(old).Build() }})
	}
	for _, st := range steps {
		s.written.add(st.key)
		res := s.replicated(ctx, func() rueidis.Commands { return rueidis.Commands{st.cmd()} }, st.key)
		if err := res[0].Error(); err != nil {
			return "", s.wrap("rotate secret", err)
		}
	}
	return secret, nil
}

// mapSecret makes sure the auths shard of the user's secret maps it to
// the user. The tutorial calls auths "volatile": an interrupted script, or a database
// repaired by hand, can lose the entry, and without it the cookie that
// login hands out would never work.
func (s *Store) mapSecret(ctx context.Context, uid int64, secret string) error {
	res := s.replicated(ctx, func() rueidis.Commands {
		return rueidis.Commands{s.c.B().Hset().Key(keyAuths(secret)).FieldValue().FieldValue(secret, id(uid)).Build()}
	}, keyAuths(secret))
	return s.wrap("map auth secret", res[0].Error())
}
