// Package familiar finds an account's familiar followers: those of its
// followers that the viewer follows (Mastodon's familiar_followers),
// for several accounts at once. It is its own package, above the online
// store, because the store's top layer is full (docs/ARCHITECTURE.md).
package familiar

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
)

// Bounds of a reading of familiar followers.
const (
	// MaxAccounts is how many accounts one reading asks about.
	MaxAccounts = 40
	// Scan is how many of the viewer's follows, and of each account's
	// followers (the earliest), are compared: a familiar follower past
	// them is not found.
	Scan = 1000
)

// Followers returns, for each of uids (at most MaxAccounts: the others
// get none), those of its followers viewer follows, the earliest
// followers first, at most each: one read through the client-side cache
// (the viewer's follows and each account's followers), none when warm.
func Followers(ctx context.Context, st *store.Store, viewer int64, uids []int64, each int) ([][]int64, error) {
	out := make([][]int64, len(uids))
	asked := uids[:min(len(uids), MaxAccounts)]
	if viewer == 0 || len(asked) == 0 {
		return out, nil
	}
	b := st.C.B()
	scan := func(key string) rueidis.CacheableTTL {
		return rueidis.CT(b.Zrange().Key(key).Min("0").Max(strconv.Itoa(Scan-1)).Cache(), st.Opts.CacheTTL)
	}
	cmds := []rueidis.CacheableTTL{scan(schema.Following(viewer))}
	for _, uid := range asked {
		cmds = append(cmds, scan(schema.Followers(uid)))
	}
	res := st.CachedMulti(ctx, cmds...)
	ids, err := res[0].AsIntSlice()
	if err != nil {
		return nil, st.Wrap("familiar followers", err)
	}
	following := make(map[int64]bool, len(ids))
	for _, id := range ids {
		following[id] = true
	}
	for i := range asked {
		followers, err := res[1+i].AsIntSlice()
		if err != nil {
			return nil, st.Wrap("familiar followers", err)
		}
		for _, f := range followers {
			if len(out[i]) < each && following[f] {
				out[i] = append(out[i], f)
			}
		}
	}
	return out, nil
}
