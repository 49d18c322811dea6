package posts

import (
	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// UndoJobs return the delivery jobs that finish the deletion of post p
// (not fanned out if fanout is "0"; boosted by some), on shard q: a
// boost's JobUnboost takes it off the timelines and out of its post's
// count; a post's JobUndeliver (if it was fanned out) takes it off the
// timelines, and its JobUnboosts (if it was boosted) deletes its boosts.
func (s *Store) UndoJobs(q schema.Queue, p index.Post, fanout string, boosted bool) rueidis.Commands {
	if p.ReblogOf > 0 {
		return rueidis.Commands{schema.BoostJob(s.C.B(), q, schema.JobUnboost, p.ID, p.Author, p.ReblogOf)}
	}
	var cmds rueidis.Commands
	if boosted {
		cmds = append(cmds, s.JobCmd(q, schema.JobUnboosts, p.ID, p.Author))
	}
	if fanout != "0" && p.Visibility.ToFollowers() { // a direct post's few timelines are DeletedCmds'
		cmds = append(cmds, s.JobCmd(q, schema.JobUndeliver, p.ID, p.Author))
	}
	return cmds
}
