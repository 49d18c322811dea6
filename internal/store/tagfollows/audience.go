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

// Audience returns whom a public post of author with tags reaches
// through the tags it bears, besides the author's followers: the
// followers of any of its tags, each once, but the author, the author's
// followers (who get it as followers, or merge it when they read if
// the author is a celebrity), those the author blocked and those who
// blocked or muted the author. The tags' followers are read batch at a
// time (the first batch of every tag in one round trip, then a round
// trip per further batch of a tag with more) and sifted batch at a time
// (a round trip each).
func (s *Store) Audience(ctx context.Context, author int64, tags []string, batch int) ([]int64, error) {
	folded := make([]string, 0, len(tags))
	for _, t := range tags {
		if f := retwis.FoldTag(t); f != "" && !slices.Contains(folded, f) {
			folded = append(folded, f)
		}
	}
	candidates, err := s.tagFollowers(ctx, folded, batch)
	if err != nil || len(candidates) == 0 {
		return nil, err
	}
	var out []int64
	for start := 0; start < len(candidates); start += batch {
		kept, err := s.sift(ctx, author, candidates[start:min(start+batch, len(candidates))])
		if err != nil {
			return nil, err
		}
		out = append(out, kept...)
	}
	return out, nil
}

// tagFollowers returns the followers of the folded tags, each once.
func (s *Store) tagFollowers(ctx context.Context, folded []string, batch int) ([]int64, error) {
	b := s.st.C.B()
	page := func(f string, from int) rueidis.Completed {
		return b.Zrange().Key(schema.TagFollowers(f)).Min(strconv.Itoa(from)).Max(strconv.Itoa(from + batch - 1)).Build()
	}
	cmds := make(rueidis.Commands, len(folded))
	for i, f := range folded {
		cmds[i] = page(f, 0)
	}
	seen := map[int64]bool{}
	var out []int64
	for i, r := range s.st.C.DoMulti(ctx, cmds...) {
		for from := 0; ; from += batch {
			ids, err := r.AsIntSlice()
			if err != nil {
				return nil, s.st.Wrap("tag followers", err)
			}
			for _, id := range ids {
				if !seen[id] {
					seen[id], out = true, append(out, id)
				}
			}
			if len(ids) < batch {
				break
			}
			r = s.st.C.Do(ctx, page(folded[i], from+batch))
		}
	}
	return out, nil
}

// sift returns those of candidates that a post of author reaches through
// its tags (see Audience): one round trip.
func (s *Store) sift(ctx context.Context, author int64, candidates []int64) ([]int64, error) {
	b := s.st.C.B()
	ids := kernel.IDs(candidates)
	cmds := rueidis.Commands{
		b.Zmscore().Key(schema.Followers(author)).Member(ids...).Build(),
		b.Zmscore().Key(schema.Blocks(author)).Member(ids...).Build(),
		b.Zmscore().Key(schema.BlockedBy(author)).Member(ids...).Build(),
	}
	for _, c := range candidates {
		cmds = append(cmds, b.Zscore().Key(schema.Mutes(c)).Member(kernel.ID(author)).Build())
	}
	res := s.st.C.DoMulti(ctx, cmds...)
	excluded := make([]bool, len(candidates))
	for _, r := range res[:3] {
		scores, err := r.ToArray()
		if err != nil {
			return nil, s.st.Wrap("tag followers: sift", err)
		}
		for i, sc := range scores {
			excluded[i] = excluded[i] || !sc.IsNil()
		}
	}
	var out []int64
	for i, c := range candidates {
		_, err := res[3+i].AsFloat64()
		muted := err == nil
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.st.Wrap("tag followers: mutes", err)
		}
		if c != author && !excluded[i] && !muted {
			out = append(out, c)
		}
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
