package index

import (
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// BoostFields are the fields of the hash of boost bid by user uid,
// called name, made at unix time at: a post without a body that shows
// post of, by ofAuthor.
func BoostFields(uid int64, name string, at int64, of int64, ofAuthor retwis.User) []string {
	return []string{schema.FieldUserID, kernel.ID(uid), schema.FieldAuthor, name, schema.FieldTime, strconv.FormatInt(at, 10),
		schema.FieldBody, "", schema.FieldReblogOf, kernel.ID(of), schema.FieldReblogUser, JoinUsers([]retwis.User{ofAuthor})}
}

// BoostWrites are the plain commands that record, on the booster's
// side, user uid's boost bid of post of: uid's mark (which claims the
// boost: a user boosts a post once) and the boost among uid's posts.
func BoostWrites(uid, bid, of int64) [][]string {
	return [][]string{
		{"HSETNX", schema.Boosts(uid), kernel.ID(of), kernel.ID(bid)},
		{"ZADD", schema.UserPosts(uid), kernel.ID(bid), kernel.ID(bid)},
	}
}

// BoostedWrites are the plain commands of user uid's boost of post of,
// by author, counted at unix ms at, on the post's side, for a writer
// that writes each boost once (the bulk writer): what a boost's job
// writes online (kernel.BoostSyncCmd, NotifyCmds): uid among who boosted
// the post and counted, and the author's notification.
func BoostedWrites(uid, of, author, at int64) [][]string {
	cmds := [][]string{
		{"ZADD", schema.RebloggedBy(of), strconv.FormatInt(at, 10), kernel.ID(uid)},
		{"HINCRBY", schema.Counts(of), schema.FieldReblogs, "1"},
	}
	if author == uid {
		return cmds
	}
	return append(cmds, NotifyWrites(author, schema.Note(schema.NoteReblog, uid, of), at)...)
}
