package kernel

import (
	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/schema"
)

// PushBoost puts a boost onto a home timeline unless its owner has the
// post it boosts (they wrote it or follow its author) or got another
// boost of it first, remembering which boost got there; see
// scripts.lua. Build calls with PushBoostCmd.
var PushBoost = newScript("push_boost")

// DropMark removes a field of a hash if it holds a given value; see
// scripts.lua. Build calls with DropBoostCmd.
var DropMark = newScript("drop_mark")

// DropBoostCmd returns the DropMark call that removes uid's mark of
// having boosted post pid, if the mark is boost bid (not a boost made
// since).
func DropBoostCmd(c rueidis.Client, uid, pid, bid int64) rueidis.Completed {
	return DropMark.Cmd(c, []string{schema.Boosts(uid)}, ID(pid), ID(bid))
}

// Boosted is a boost as delivery sees it.
type Boosted struct {
	ID     int64 // the boost
	Of     int64 // the post it boosts
	Author int64 // that post's author
}

// PushBoostCmd returns the PushBoost call that delivers boost b to
// uid's home timeline, unless uid was last seen before horizon (it
// replies -1 then) or already has the post (0).
func (db *DB) PushBoostCmd(uid, horizon int64, b Boosted) rueidis.Completed {
	keys := []string{schema.Home(uid), schema.Archive(uid), schema.User(uid), schema.Following(uid), schema.HomeBoosts(uid)}
	args := append(PushIDsArgs(db.Opts.HomeCap, db.Opts.ArchiveChunk, schema.ArchivePrefix(uid), horizon, nil),
		ID(b.ID), ID(b.Of), ID(b.Author), ID(uid))
	return PushBoost.Cmd(db.C, keys, args...)
}

// BoostSyncCmd returns the MarkSync call that brings who boosted post
// pid, and its count, in line with uid's boost, made at unix ms at (0:
// taken back).
func BoostSyncCmd(c rueidis.Client, pid, uid, at int64) rueidis.Completed {
	return MarkSyncCmd(c, schema.RebloggedBy(pid), schema.Counts(pid), uid, at, schema.FieldReblogs)
}

// UnboostHomeCmds return the commands that take boost bid off uid's
// home timeline and out of the boosts it got, so that another boost of
// the same post may come in its place.
func UnboostHomeCmds(c rueidis.Client, uid, bid int64) rueidis.Commands {
	b := c.B()
	return rueidis.Commands{
		b.Lrem().Key(schema.Home(uid)).Count(0).Element(ID(bid)).Build(),
		b.Zremrangebyscore().Key(schema.HomeBoosts(uid)).Min(ID(bid)).Max(ID(bid)).Build(),
	}
}
