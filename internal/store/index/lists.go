package index

import (
	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// ListTimelineCap is how many posts a list's timeline keeps: the newest.
const ListTimelineCap = 800

// ListJoinCmds returns what putting member in owner's list lid writes:
// the list's members and its reverse index, the lists that hold member
// (schema.Listed), which the delivery of member's posts reads.
func ListJoinCmds(c rueidis.Client, owner, lid, member int64) rueidis.Commands {
	b := c.B()
	return rueidis.Commands{
		b.Sadd().Key(schema.ListMembers(owner, lid)).Member(kernel.ID(member)).Build(),
		b.Sadd().Key(schema.Listed(member)).Member(schema.ListedMember(owner, lid)).Build(),
	}
}

// ListLeaveCmds returns what taking member out of owner's list lid
// writes, undoing ListJoinCmds. The member's posts stay on the list's
// timeline, whose reads leave out the posts of those who are no longer
// members.
func ListLeaveCmds(c rueidis.Client, owner, lid, member int64) rueidis.Commands {
	b := c.B()
	return rueidis.Commands{
		b.Srem().Key(schema.ListMembers(owner, lid)).Member(kernel.ID(member)).Build(),
		b.Srem().Key(schema.Listed(member)).Member(schema.ListedMember(owner, lid)).Build(),
	}
}

// ListPushCmds returns what pushing posts pids onto the timeline of
// owner's list lid writes: the ids, then the timeline cut to
// ListTimelineCap.
func ListPushCmds(c rueidis.Client, owner, lid int64, pids ...int64) rueidis.Commands {
	if len(pids) == 0 {
		return nil
	}
	b := c.B()
	key := schema.ListPosts(owner, lid)
	add := b.Zadd().Key(key).ScoreMember()
	for _, p := range pids {
		add = add.ScoreMember(float64(p), kernel.ID(p))
	}
	return rueidis.Commands{add.Build(), b.Zremrangebyrank().Key(key).Start(0).Stop(-ListTimelineCap - 1).Build()}
}
