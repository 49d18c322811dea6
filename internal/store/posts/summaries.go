package posts

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// summaryReads is how many reads Summaries makes of each user.
const summaryReads = 5

// summaryFields are the fields of the user hash a summary shows, in the
// order summaryOf expects.
var summaryFields = []string{schema.FieldUsername, schema.FieldDisplayName, schema.FieldBio, schema.FieldJoined, schema.FieldAvatar, schema.FieldHeader}

// Summaries returns the profile and counts of each of uids that exists,
// in their order (the others left out): five reads of each user's slot,
// all in one pipeline through the client-side cache, so that a page of
// posts by many authors costs one round trip, and none once warm.
func (s *Store) Summaries(ctx context.Context, uids []int64) ([]retwis.Summary, error) {
	if len(uids) == 0 {
		return nil, nil
	}
	var b kernel.Batch
	read := s.startSummaries(uids, &b)
	s.ReadBatch(ctx, &b)
	return s.parseSummaries(uids, read.Replies())
}

// startSummaries adds to b the reads of the summaries of uids (see
// parseSummaries).
func (s *Store) startSummaries(uids []int64, b *kernel.Batch) kernel.Slot {
	c := s.C.B()
	cmds := make([]rueidis.CacheableTTL, 0, summaryReads*len(uids))
	for _, uid := range uids {
		cmds = append(cmds,
			rueidis.CT(c.Hmget().Key(schema.User(uid)).Field(summaryFields...).Cache(), s.Opts.CacheTTL),
			rueidis.CT(c.Zcard().Key(schema.Followers(uid)).Cache(), s.Opts.CacheTTL),
			rueidis.CT(c.Zcard().Key(schema.Following(uid)).Cache(), s.Opts.CacheTTL),
			rueidis.CT(c.Zcard().Key(schema.UserPosts(uid)).Cache(), s.Opts.CacheTTL),
			rueidis.CT(c.Zrange().Key(schema.UserPosts(uid)).Min("+inf").Max("-inf").Byscore().Rev().Limit(0, 1).Cache(), s.Opts.CacheTTL))
	}
	return b.Add(cmds...)
}

// parseSummaries reads the replies res to startSummaries' reads of uids.
func (s *Store) parseSummaries(uids []int64, res []rueidis.RedisResult) ([]retwis.Summary, error) {
	out := make([]retwis.Summary, 0, len(uids))
	for i, uid := range uids {
		sum, ok, err := parseSummary(uid, res[summaryReads*i:summaryReads*(i+1)])
		if err != nil {
			return nil, s.Wrap("accounts", err)
		}
		if ok {
			out = append(out, sum)
		}
	}
	return out, nil
}

// Summary returns uid's profile and counts, or an error of kind NotFound.
func (s *Store) Summary(ctx context.Context, uid int64) (retwis.Summary, error) {
	sums, err := s.Summaries(ctx, []int64{uid})
	if err != nil {
		return retwis.Summary{}, err
	}
	if len(sums) == 0 {
		return retwis.Summary{}, retwis.Errorf(retwis.NotFound, "There is no such user.")
	}
	return sums[0], nil
}

// parseSummary reads the replies to Summaries' reads of uid; ok is
// false for a user that does not exist.
func parseSummary(uid int64, res []rueidis.RedisResult) (sum retwis.Summary, ok bool, err error) {
	vals, err := res[0].ToArray()
	if err != nil {
		return sum, false, err
	}
	if sum, ok = summaryOf(uid, vals); !ok {
		return sum, false, nil
	}
	var counts [3]int64
	for i := range counts {
		if counts[i], err = res[1+i].AsInt64(); err != nil {
			return sum, false, err
		}
	}
	sum.Counts = retwis.Counts{Followers: counts[0], Following: counts[1]}
	sum.Posts = counts[2]
	newest, err := res[4].AsStrSlice()
	if err != nil {
		return sum, false, err
	}
	if len(newest) == 1 {
		pid, _ := strconv.ParseInt(newest[0], 10, 64)
		sum.LastPost = postTime(pid)
	}
	return sum, true, nil
}

// summaryOf starts uid's summary with the values of summaryFields read
// from the user hash; ok is false for a user that does not exist (no
// name).
func summaryOf(uid int64, vals []rueidis.RedisMessage) (sum retwis.Summary, ok bool) {
	str := func(i int) string { v, _ := vals[i].ToString(); return v }
	if str(0) == "" {
		return sum, false
	}
	sum = retwis.Summary{User: retwis.User{ID: uid, Username: str(0)}, DisplayName: str(1), Bio: str(2)}
	if joined, err := strconv.ParseInt(str(3), 10, 64); err == nil {
		sum.Joined = time.Unix(joined, 0)
	}
	sum.Avatar, sum.Header = picture(str(4)), picture(str(5))
	return sum, true
}

// postTime is when post pid was posted, as its id tells (zero for a
// legacy id, which tells no time).
func postTime(pid int64) time.Time {
	if pid < accounts.FirstSnowflake {
		return time.Time{}
	}
	return snowflake.Time(pid)
}

// ReplyCounts returns how many replies each of pids has, through the
// client-side cache, in one round trip (none once warm).
func (s *Store) ReplyCounts(ctx context.Context, pids []int64) ([]int64, error) {
	var b kernel.Batch
	read := s.startReplyCounts(pids, &b)
	s.ReadBatch(ctx, &b)
	return s.parseReplyCounts(read.Replies())
}

// startReplyCounts adds to b the reads of the counts of replies of pids.
func (s *Store) startReplyCounts(pids []int64, b *kernel.Batch) kernel.Slot {
	cmds := make([]rueidis.CacheableTTL, len(pids))
	for i, pid := range pids {
		cmds[i] = rueidis.CT(s.C.B().Zcard().Key(schema.Replies(pid)).Cache(), s.Opts.CacheTTL)
	}
	return b.Add(cmds...)
}

// parseReplyCounts reads the replies res to startReplyCounts' reads.
func (s *Store) parseReplyCounts(res []rueidis.RedisResult) ([]int64, error) {
	out := make([]int64, len(res))
	for i, r := range res {
		n, err := r.AsInt64()
		if err != nil {
			return nil, s.Wrap("reply counts", err)
		}
		out[i] = n
	}
	return out, nil
}

// Posts returns those of pids that exist and viewer (0: logged out)
// sees, in their order, with their authors' names: one pipeline through
// the client-side cache.
func (s *Store) Posts(ctx context.Context, viewer int64, pids []int64) ([]retwis.Post, error) {
	rd := reader{id: viewer, where: retwis.InConversation}
	posts, hidden, _, err := s.posts(ctx, rd, pids)
	if err != nil {
		return nil, err
	}
	return s.visible(ctx, rd, posts, hidden)
}

// picture decodes a user's avatar or header (nil: none).
func picture(v string) *retwis.Attachment {
	if as := retwis.DecodeAttachments(v); len(as) == 1 {
		return &as[0]
	}
	return nil
}
