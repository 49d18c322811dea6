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

// drop is the posts of one author to take off a home timeline list.
type drop struct {
	home string
	ids  []string
}

// AuthorOff returns what takes author's posts off the home timeline
// lists of readers, found in two round trips however many they are: the
// lists, then which of their ids are author's (one ZMSCORE of author's
// posts per list).
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
			matches = append(matches, b.Zmscore().Key(schema.UserPosts(author)).Member(home...).Build())
		}
	}
	var drops []drop
	for k, r := range s.C.DoMulti(ctx, matches...) {
		scores, err := r.ToArray()
		if err != nil {
			return nil, s.Wrap("remove posts: match posts", err)
		}
		d := drop{home: schema.Home(owners[k])}
		for i, sc := range scores {
			if !sc.IsNil() {
				d.ids = append(d.ids, homes[k][i])
			}
		}
		if len(d.ids) > 0 {
			drops = append(drops, d)
		}
	}
	return drops, nil
}

// DropPosts takes the posts of drops off their lists, one script call
// (a pass over the list) per list, in one pipeline.
func (s *Store) DropPosts(ctx context.Context, drops []drop) error {
	if len(drops) == 0 {
		return nil
	}
	for _, d := range drops {
		s.Written.Add(d.home)
	}
	return redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, len(drops))
		for i, d := range drops {
			cmds[i] = kernel.DropIDs.Cmd(s.C, []string{d.home}, d.ids...)
		}
		return cmds
	}))
}
