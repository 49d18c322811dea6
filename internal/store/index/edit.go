package index

import (
	"slices"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// EditCmds return the commands that make the indexes of post before
// follow after, the same post once edited (Noted: the time of the
// edit): the tags and mentions before had and after has not are taken
// out (tag posts and days, the trends and completion counts, the
// mentions; a removed mention keeps its notification, as in Mastodon),
// those after adds are entered as Cmds enters a new post's (the newly
// mentioned are notified of the mention), and each of notified is
// told of the edit (an update notification, one per post, at the time
// of its last edit). Only the counts are not safe to repeat.
func EditCmds(c rueidis.Client, before, after Post, notified []int64) rueidis.Commands {
	gone, added := ConvDiff(before.Conv, after.Conv)
	b := c.B()
	pid := kernel.ID(after.ID)
	var cmds rueidis.Commands
	for _, tag := range gone.Tags {
		f := retwis.FoldTag(tag)
		cmds = append(cmds,
			b.Zrem().Key(schema.Tag(f)).Member(pid).Build(),
			b.Zrem().Key(schema.TagDays(f)).Member(schema.TagDay(before.Time, before.ID)).Build())
	}
	for _, u := range gone.Mentions {
		cmds = append(cmds, b.Zrem().Key(schema.Mentions(u.ID)).Member(pid).Build())
	}
	cmds = append(cmds, UncountCmds(c, Post{ID: before.ID, Time: before.Time, Conv: Conversation{Tags: gone.Tags}})...)
	plus := after
	plus.Conv = Conversation{Tags: added.Tags, Mentions: added.Mentions, ReplyUser: after.Conv.ReplyUser}
	cmds = append(cmds, Cmds(c, plus)...)
	for _, n := range updated(after, notified) {
		cmds = append(cmds, NotifyCmds(c, n.User, n.Note, n.At)...)
	}
	return cmds
}

// EditNotified returns the notifications EditCmds makes: the mentions
// after adds, and the update each of notified is told of.
func EditNotified(before, after Post, notified []int64) []kernel.Notified {
	_, added := ConvDiff(before.Conv, after.Conv)
	plus := after
	plus.Conv = Conversation{Mentions: added.Mentions, ReplyUser: after.Conv.ReplyUser}
	return append(plus.Notified(), updated(after, notified)...)
}

// updated returns the update notifications of the edit after for each
// of notified.
func updated(after Post, notified []int64) []kernel.Notified {
	notes := make([]kernel.Notified, len(notified))
	for i, u := range notified {
		notes[i] = kernel.Notified{User: u, Note: schema.Note(schema.NoteUpdate, after.Author, after.ID), At: after.Noted}
	}
	return notes
}

// ConvDiff returns the tags (by folded form) and the mentions (by user)
// of after that before lacks (added), and those of before that after
// lacks (gone).
func ConvDiff(before, after Conversation) (gone, added Conversation) {
	gone.Tags, added.Tags = tagsNotIn(before.Tags, after.Tags), tagsNotIn(after.Tags, before.Tags)
	gone.Mentions, added.Mentions = usersNotIn(before.Mentions, after.Mentions), usersNotIn(after.Mentions, before.Mentions)
	return gone, added
}

// tagsNotIn returns the tags of a whose folded form is not that of one
// of b, leaving out those that fold to nothing.
func tagsNotIn(a, b []string) []string {
	var out []string
	for _, t := range a {
		f := retwis.FoldTag(t)
		if f != "" && !slices.ContainsFunc(b, func(u string) bool { return retwis.FoldTag(u) == f }) {
			out = append(out, t)
		}
	}
	return out
}

// usersNotIn returns the users of a that are not in b.
func usersNotIn(a, b []retwis.User) []retwis.User {
	var out []retwis.User
	for _, u := range a {
		if !slices.ContainsFunc(b, func(v retwis.User) bool { return v.ID == u.ID }) {
			out = append(out, u)
		}
	}
	return out
}

// ConvFields returns the field-value pairs of the post hash that record
// the tags and mentions of c, an empty value for none (for
// kernel.UpdateFields, which removes the field).
func ConvFields(c Conversation) []string {
	return []string{schema.FieldTags, strings.Join(c.Tags, " "), schema.FieldMentions, JoinUsers(c.Mentions)}
}
