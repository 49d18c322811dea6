package store

import (
	"context"
	"fmt"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// About returns the display name and bio user uid set (empty when not),
// through the client-side cache.
func (s *Store) About(ctx context.Context, uid int64) (name, bio string, err error) {
	return s.parseAbout(s.cachedMulti(ctx, s.aboutCmd(uid))[0])
}

// SetAbout sets the display name and bio of user uid, normalised by the
// domain's rules (retwis.NormalizeDisplayName, retwis.NormalizeBio); an
// empty one is removed. Nothing is written unless both are valid, and
// never to a user who does not exist.
func (s *Store) SetAbout(ctx context.Context, uid int64, name, bio string) error {
	name, err := retwis.NormalizeDisplayName(name)
	if err != nil {
		return err
	}
	if bio, err = retwis.NormalizeBio(bio); err != nil {
		return err
	}
	ctx, cancel := detach(ctx)
	defer cancel()
	key := schema.User(uid)
	s.written.add(key)
	n, err := updateFields.exec(ctx, s.c, []string{key}, schema.FieldDisplayName, name, schema.FieldBio, bio).AsInt64()
	if err != nil {
		return s.wrap("set about", err)
	}
	if n == 0 {
		return retwis.Errorf(retwis.NotFound, "No such user.")
	}
	return nil
}

// aboutCmd reads the display name and bio of user uid.
func (s *Store) aboutCmd(uid int64) rueidis.CacheableTTL {
	return rueidis.CT(s.c.B().Hmget().Key(schema.User(uid)).Field(schema.FieldDisplayName, schema.FieldBio).Cache(), s.opts.CacheTTL)
}

// parseAbout reads the reply to aboutCmd.
func (s *Store) parseAbout(r rueidis.RedisResult) (name, bio string, err error) {
	vals, err := r.ToArray()
	if err != nil {
		return "", "", s.wrap("about", err)
	}
	if len(vals) != 2 {
		return "", "", s.wrap("about", fmt.Errorf("HMGET answered %d values for 2 fields", len(vals)))
	}
	name, _ = vals[0].ToString() // nil: not set
	bio, _ = vals[1].ToString()
	return name, bio, nil
}
