package kernel

import (
	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/schema"
)

// DropConversationPost takes a post out of one of a user's
// conversations, which is then listed by its newest post left, or not
// at all with none left; see scripts.lua. Build calls with
// DropConversationPostCmd.
var DropConversationPost = newScript("drop_conversation_post")

// DropConversationPostCmd returns the DropConversationPost call that
// takes post pid out of uid's conversation conv.
func DropConversationPostCmd(c rueidis.Client, uid, conv, pid int64) rueidis.Completed {
	return DropConversationPost.Cmd(c, []string{schema.Conversation(uid, conv), schema.Conversations(uid), schema.ConversationsRead(uid)},
		ID(pid), ID(conv))
}
