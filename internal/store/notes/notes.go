// Package notes holds the private notes users write about accounts
// (Mastodon's account notes, shown to their writer alone in the
// relationship): one hash a user, schema.Notes. It is its own package,
// above the online store, because the store's top layer is full
// (docs/ARCHITECTURE.md).
package notes

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaxLen is how many characters a note may have, as Mastodon's.
const MaxLen = 2000

// Set keeps uid's note about account target (ignoring the spaces around
// it; empty: none): one round trip. A note too long is Invalid; the
// caller checks that target exists.
func Set(ctx context.Context, st *store.Store, uid, target int64, note string) error {
	note = strings.TrimSpace(note)
	if utf8.RuneCountInString(note) > MaxLen {
		return retwis.Errorf(retwis.Invalid, "A note may have at most %d characters.", MaxLen)
	}
	b := st.C.B()
	cmd := b.Hdel().Key(schema.Notes(uid)).Field(kernel.ID(target)).Build()
	if note != "" {
		cmd = b.Hset().Key(schema.Notes(uid)).FieldValue().FieldValue(kernel.ID(target), note).Build()
	}
	st.Written.Add(schema.Notes(uid))
	return st.Wrap("account note", st.C.Do(ctx, cmd).Error())
}

// Of returns uid's notes about targets ("" for none), in their order:
// one read through the client-side cache (none for no user or none
// asked).
func Of(ctx context.Context, st *store.Store, uid int64, targets []int64) ([]string, error) {
	out := make([]string, len(targets))
	if uid == 0 || len(targets) == 0 {
		return out, nil
	}
	vals, err := st.Cached(ctx, st.C.B().Hmget().Key(schema.Notes(uid)).Field(kernel.IDs(targets)...).Cache(), st.Opts.CacheTTL).ToArray()
	if err != nil {
		return nil, st.Wrap("account notes", err)
	}
	for i, v := range vals {
		if s, err := v.ToString(); err == nil {
			out[i] = s
		} else if !rueidis.IsRedisNil(err) {
			return nil, st.Wrap("account notes", err)
		}
	}
	return out, nil
}
