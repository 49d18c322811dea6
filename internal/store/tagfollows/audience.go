package tagfollows

import (
	"context"
	"slices"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Tagged is a public post with tags, as Audiences sees it: its author
// and its tags (as written).
type Tagged struct {
	Author int64
	Tags   []string
}

// Audiences returns whom each of posts reaches through the tags it
// bears, besides its author's followers: the followers of any of its
// tags, each once, but the author, the author's followers (who get it
// as followers, or merge it when they read if the author is a
// celebrity), those the author blocked and those who blocked or muted
// the author. However many the posts, each tag's followers are read
// once, batch at a time (the first batch of every tag in one round
// trip, then a round trip per further batch of a tag with more), and
// sifted once per author, in one round trip for all authors (batch
// candidates a command).
func (s *Store) Audiences(ctx context.Context, posts []Tagged, batch int) ([][]int64, error) {
	folded := make([][]string, len(posts))
	var tags []string
	for i, p := range posts {
		for _, t := range p.Tags {
			if f := retwis.FoldTag(t); f != "" && !slices.Contains(folded[i], f) {
				folded[i] = append(folded[i], f)
				if !slices.Contains(tags, f) {
					tags = append(tags, f)
				}
			}
		}
	}
	followers, err := s.tagFollowers(ctx, tags, batch)
	if err != nil {
		return nil, err
	}
	candidates := map[int64][]int64{} // author -> the followers of its posts' tags
	for i, p := range posts {
		for _, f := range folded[i] {
			candidates[p.Author] = append(candidates[p.Author], followers[f]...)
		}
	}
	kept, err := s.sift(ctx, candidates, batch)
	if err != nil {
		return nil, err
	}
	out := make([][]int64, len(posts))
	for i, p := range posts {
		seen := map[int64]bool{}
		for _, f := range folded[i] {
			for _, u := range followers[f] {
				if kept[p.Author][u] && !seen[u] {
					seen[u], out[i] = true, append(out[i], u)
				}
			}
		}
	}
	return out, nil
}

// tagFollowers returns the followers of each of the folded tags.
func (s *Store) tagFollowers(ctx context.Context, folded []string, batch int) (map[string][]int64, error) {
	b := s.st.C.B()
	page := func(f string, from int) rueidis.Completed {
		return b.Zrange().Key(schema.TagFollowers(f)).Min(strconv.Itoa(from)).Max(strconv.Itoa(from + batch - 1)).Build()
	}
	cmds := make(rueidis.Commands, len(folded))
	for i, f := range folded {
		cmds[i] = page(f, 0)
	}
	out := make(map[string][]int64, len(folded))
	if len(cmds) == 0 {
		return out, nil
	}
	for i, r := range s.st.C.DoMulti(ctx, cmds...) {
		for from := 0; ; from += batch {
			ids, err := r.AsIntSlice()
			if err != nil {
				return nil, s.st.Wrap("tag followers", err)
			}
			out[folded[i]] = append(out[folded[i]], ids...)
			if len(ids) < batch {
				break
			}
			r = s.st.C.Do(ctx, page(folded[i], from+batch))
		}
	}
	return out, nil
}

// sift returns, of each author's candidates, those that a post of the
// author reaches through its tags (see Audiences): one round trip.
func (s *Store) sift(ctx context.Context, candidates map[int64][]int64, batch int) (map[int64]map[int64]bool, error) {
	type chunk struct {
		author int64
		users  []int64
		at     int // the index of its first command
	}
	b := s.st.C.B()
	var chunks []chunk
	var cmds rueidis.Commands
	for author, users := range candidates {
		slices.Sort(users)
		users = slices.Compact(users)
		for start := 0; start < len(users); start += batch {
			c := chunk{author: author, users: users[start:min(start+batch, len(users))], at: len(cmds)}
			ids := kernel.IDs(c.users)
			cmds = append(cmds, b.Zmscore().Key(schema.Followers(author)).Member(ids...).Build(),
				b.Zmscore().Key(schema.Blocks(author)).Member(ids...).Build(),
				b.Zmscore().Key(schema.BlockedBy(author)).Member(ids...).Build())
			for _, u := range c.users {
				cmds = append(cmds, b.Zscore().Key(schema.Mutes(u)).Member(kernel.ID(author)).Build())
			}
			chunks = append(chunks, c)
		}
	}
	kept := make(map[int64]map[int64]bool, len(candidates))
	if len(cmds) == 0 {
		return kept, nil
	}
	res := s.st.C.DoMulti(ctx, cmds...)
	for _, c := range chunks {
		if kept[c.author] == nil {
			kept[c.author] = map[int64]bool{}
		}
		excluded, err := s.excluded(res[c.at:c.at+3+len(c.users)], len(c.users))
		if err != nil {
			return nil, err
		}
		for i, u := range c.users {
			if u != c.author && !excluded[i] {
				kept[c.author][u] = true
			}
		}
	}
	return kept, nil
}

// excluded reads the replies of a chunk of sift: three ZMSCOREs (the
// author's followers, blocks and blockers), then a ZSCORE a user (the
// user's mute of the author); it reports which of the n users any of
// them names.
func (s *Store) excluded(res []rueidis.RedisResult, n int) ([]bool, error) {
	out := make([]bool, n)
	for _, r := range res[:3] {
		scores, err := r.ToArray()
		if err != nil {
			return nil, s.st.Wrap("tag followers: sift", err)
		}
		for i, sc := range scores {
			out[i] = out[i] || !sc.IsNil()
		}
	}
	for i, r := range res[3:] {
		_, err := r.AsFloat64()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.st.Wrap("tag followers: mutes", err)
		}
		out[i] = out[i] || err == nil
	}
	return out, nil
}

// ForgetCmds returns the commands that take uid out of the followers of
// every tag it follows, for its account's deletion (which deletes its
// own set of tags followed with its other keys): one round trip to read
// them, at most MaxFollowed.
func (s *Store) ForgetCmds(ctx context.Context, uid int64) (rueidis.Commands, error) {
	b := s.st.C.B()
	tags, err := s.st.C.Do(ctx, b.Zrange().Key(schema.TagsFollowed(uid)).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil {
		return nil, s.st.Wrap("tags followed", err)
	}
	cmds := make(rueidis.Commands, len(tags))
	for i, f := range tags {
		s.st.Written.Add(schema.TagFollowers(f))
		cmds[i] = b.Zrem().Key(schema.TagFollowers(f)).Member(kernel.ID(uid)).Build()
	}
	return cmds, nil
}
