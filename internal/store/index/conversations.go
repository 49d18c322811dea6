package index

import (
	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// ConversationOf returns the id of the conversation a direct post p is
// in: the root of its thread, the farthest of its ancestors (at most
// retwis.MaxAncestors up), or p itself when it answers nothing. It is
// Mastodon's conversation of a status (the thread, whatever the
// visibility of the posts above), read from the post alone, so that a
// replayed job, the bulk writer and the check find the same one.
func ConversationOf(p Post) int64 {
	if n := len(p.Conv.Ancestors); n > 0 {
		return p.Conv.Ancestors[n-1]
	}
	if p.Conv.ReplyTo > 0 {
		return p.Conv.ReplyTo
	}
	return p.ID
}

// ConversationWrites are the plain commands that enter a direct post p
// in the conversation lists of its author and of those it mentions
// (nothing for another post): its conversation's posts
// (schema.Conversation), the conversation in the list, scored by its
// newest post (schema.Conversations), and, for its author, the
// conversation read up to p (schema.ConversationsRead): one's own post
// leaves it read; for the others it is unread until they read it. Every
// command only raises a score, so a replayed job writes nothing twice
// and an older post delivered late moves nothing back. With readByAll
// (the backfill of posts older than the lists) it is read for everyone.
func ConversationWrites(p Post, readByAll bool) [][]string {
	conv, pid := ConversationOf(p), kernel.ID(p.ID)
	c := kernel.ID(conv)
	var cmds [][]string
	for _, uid := range p.directTo() {
		cmds = append(cmds,
			[]string{"ZADD", schema.Conversation(uid, conv), pid, pid},
			[]string{"ZADD", schema.Conversations(uid), "GT", pid, c})
		if uid == p.Author || readByAll {
			cmds = append(cmds, []string{"ZADD", schema.ConversationsRead(uid), "GT", pid, c})
		}
	}
	return cmds
}

// ConversationUnlistCmds are the commands that take a deleted direct
// post p out of the conversations of those it was between: each is then
// listed by its newest post left, or not at all with none left
// (kernel.DropConversationPost). Each is safe to repeat.
func ConversationUnlistCmds(c rueidis.Client, p Post) rueidis.Commands {
	conv := ConversationOf(p)
	var cmds rueidis.Commands
	for _, uid := range p.directTo() {
		cmds = append(cmds, kernel.DropConversationPostCmd(c, uid, conv, p.ID))
	}
	return cmds
}
