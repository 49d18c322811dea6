package accounts

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
)

// MaxUserPage bounds the users one page of a list of users reads,
// whatever the caller asks.
const MaxUserPage = 100

// UserPage reads a page of the list of users key (a sorted set of user
// ids scored by unix time, the newest first: followers, following, who
// favourited or boosted a post): the first page through
// the client-side cache, any other by the rank of the cursor's user (one
// script call), so that users who followed in the same second are
// neither skipped nor repeated; then their names (cached).
func (s *Store) UserPage(ctx context.Context, key string, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	n = max(1, min(n, MaxUserPage))
	var page retwis.FollowPage
	var entries []rueidis.ZScore
	if c.Before > 0 || c.After > 0 {
		var err error
		if entries, page.Newer, page.Older, err = s.pageByRank(ctx, key, c, n); err != nil {
			return page, s.Wrap("list of users", err)
		}
	} else {
		var err error
		entries, err = s.Cached(ctx, s.C.B().Zrevrange().Key(key).Start(0).Stop(int64(n)).Withscores().Cache(), s.Opts.CacheTTL).AsZScores()
		if err != nil {
			return page, s.Wrap("list of users", err)
		}
		if len(entries) > n {
			entries, page.Older = entries[:n], true
		}
	}
	var err error
	page.Follows, err = s.UsersSince(ctx, entries)
	if err != nil {
		return page, err
	}
	return page, nil
}

// pageByRank reads the n entries of the sorted set key (newest first)
// next to the member the cursor c names, and whether newer and older
// ones exist.
func (s *Store) pageByRank(ctx context.Context, key string, c retwis.Cursor, n int) (entries []rueidis.ZScore, newer, older bool, err error) {
	member, dir := c.Before, "before"
	if c.After > 0 {
		member, dir = c.After, "after"
	}
	res, err := kernel.RankPage.Exec(ctx, s.C, []string{key}, kernel.ID(member), strconv.Itoa(n), dir).ToArray()
	if err != nil {
		return nil, false, false, err
	}
	if len(res) != 3 {
		return nil, false, false, kernel.ErrScriptReply
	}
	nw, err := res[0].AsInt64()
	if err != nil {
		return nil, false, false, err
	}
	od, err := res[1].AsInt64()
	if err != nil {
		return nil, false, false, err
	}
	entries, err = res[2].AsZScores()
	return entries, nw == 1, od == 1, err
}

// UsersSince names the users of entries, members of a sorted set of
// user ids scored by unix time, in their order; those whose record is
// gone or who are suspended, and members that are not user ids, are
// left out.
func (s *Store) UsersSince(ctx context.Context, entries []rueidis.ZScore) ([]retwis.ListedUser, error) {
	uids := make([]int64, 0, len(entries))
	for _, e := range entries {
		if uid, err := strconv.ParseInt(e.Member, 10, 64); err == nil {
			uids = append(uids, uid)
		}
	}
	var b kernel.Batch
	read, susp := s.StartNames(uids, &b), b.Add(s.SuspendedCmd())
	s.ReadBatch(ctx, &b)
	names, err := read.Usernames(ctx)
	if err != nil {
		return nil, err
	}
	suspended, err := s.ParseSuspended(susp.Replies()[0])
	if err != nil {
		return nil, err
	}
	out := make([]retwis.ListedUser, 0, len(uids))
	for _, e := range entries {
		uid, err := strconv.ParseInt(e.Member, 10, 64)
		if err == nil && names[uid] != "" && !suspended[uid] {
			out = append(out, retwis.ListedUser{User: retwis.User{ID: uid, Username: names[uid]}, Since: time.Unix(int64(e.Score), 0)})
		}
	}
	return out, nil
}
