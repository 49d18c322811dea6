package store

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// RemoveAuthor takes followee's posts off follower's home timeline list.
// The archive keeps them: pages read from it leave out the posts of
// authors no longer followed (see posts.Store.HomeTimeline), which costs less than
// walking an archive of any size at every unfollow.
func (s *Store) RemoveAuthor(ctx context.Context, follower, followee int64) error {
	drops, err := s.AuthorOff(ctx, []int64{follower}, followee)
	if err != nil {
		return err
	}
	return s.Wrap("unfollow: remove posts", s.DropPosts(ctx, drops))
}

// drop is the posts of one author to take off a home timeline list,
// and the entries of its boosts among the boosts the timeline got
// (schema.HomeBoosts: the posts they boost), so that another's boost of
// those posts may come.
type drop struct {
	home, homeBoosts string
	ids, boosted     []string
}

// AuthorOff returns what takes author's posts off the home timeline
// lists of readers, found in two round trips however many they are: the
// lists, then which of their ids are author's (one ZMSCORE of author's
// posts per list) and which boosts the timelines got.
func (s *Store) AuthorOff(ctx context.Context, readers []int64, author int64) ([]drop, error) {
	b := s.C.B()
	reads := make(rueidis.Commands, len(readers))
	for i, r := range readers {
		reads[i] = b.Lrange().Key(schema.Home(r)).Start(0).Stop(-1).Build()
	}
	homes := make([][]string, 0, len(readers))
	var owners []int64
	var matches rueidis.Commands
	for i, r := range s.C.DoMulti(ctx, reads...) {
		home, err := r.AsStrSlice()
		if err != nil {
			return nil, s.Wrap("remove posts: read timelines", err)
		}
		if len(home) > 0 {
			homes, owners = append(homes, home), append(owners, readers[i])
			matches = append(matches, b.Zmscore().Key(schema.UserPosts(author)).Member(home...).Build(),
				b.Zrange().Key(schema.HomeBoosts(readers[i])).Min("0").Max("-1").Withscores().Build())
		}
	}
	res := s.C.DoMulti(ctx, matches...)
	var drops []drop
	for k := range owners {
		scores, err := res[2*k].ToArray()
		if err != nil {
			return nil, s.Wrap("remove posts: match posts", err)
		}
		got, err := res[2*k+1].AsZScores()
		if err != nil {
			return nil, s.Wrap("remove posts: boosts got", err)
		}
		d := drop{home: schema.Home(owners[k]), homeBoosts: schema.HomeBoosts(owners[k])}
		for i, sc := range scores {
			if !sc.IsNil() {
				d.ids = append(d.ids, homes[k][i])
			}
		}
		if len(got) > 0 {
			theirs := make(map[string]bool, len(d.ids))
			for _, id := range d.ids {
				theirs[id] = true
			}
			for _, g := range got {
				if theirs[kernel.ID(int64(g.Score))] {
					d.boosted = append(d.boosted, g.Member)
				}
			}
		}
		if len(d.ids) > 0 {
			drops = append(drops, d)
		}
	}
	return drops, nil
}

// DropPosts takes the posts of drops off their lists, one script call
// (a pass over the list) per list, and their boosts' entries out of the
// boosts the timelines got, in one pipeline.
func (s *Store) DropPosts(ctx context.Context, drops []drop) error {
	if len(drops) == 0 {
		return nil
	}
	for _, d := range drops {
		s.Written.Add(d.home)
	}
	return redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, 0, len(drops))
		for _, d := range drops {
			cmds = append(cmds, kernel.DropIDs.Cmd(s.C, []string{d.home}, d.ids...))
			if len(d.boosted) > 0 {
				cmds = append(cmds, s.C.B().Zrem().Key(d.homeBoosts).Member(d.boosted...).Build())
			}
		}
		return cmds
	}))
}
