package upkeep

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// conversationFields are the post hash fields the backfill of the
// conversations reads: the author, the time, the visibility, then
// index.ConversationFields.
var conversationFields = append([]string{schema.FieldUserID, schema.FieldTime, schema.FieldVisibility}, index.ConversationFields...)

// reindexConversations enters the direct posts of the Direct indexes
// keys, written before the migration to version 8 asked for it, in the
// conversations of those they are between, read by everyone (nobody
// finds old messages unread), and returns how many users' posts it
// entered. Entering one again changes nothing; a post written since was
// entered by its delivery, and is left alone, so that a conversation
// removed since does not come back.
func (s keeper) reindexConversations(ctx context.Context, keys []string) (int, error) {
	since, err := s.C.Do(ctx, s.C.B().Hget().Key(schema.ConversationsReindexState).Field(schema.FieldReindexSince).Build()).AsInt64()
	if err != nil {
		return 0, s.Wrap("reindex conversations: state", err)
	}
	pids, err := s.directPosts(ctx, keys)
	if err != nil {
		return 0, err
	}
	cmds := make(rueidis.Commands, len(pids))
	for i, pid := range pids {
		cmds[i] = s.C.B().Hmget().Key(schema.Post(pid)).Field(conversationFields...).Build()
	}
	var writes [][]string
	for i, r := range s.C.DoMulti(ctx, cmds...) {
		vals, err := r.ToArray()
		if err != nil {
			return 0, s.Wrap("reindex conversations: read posts", err)
		}
		str := make([]string, len(vals))
		for k, v := range vals {
			str[k], _ = v.ToString()
		}
		author, err := strconv.ParseInt(str[0], 10, 64)
		ts, _ := strconv.ParseInt(str[1], 10, 64)
		if err != nil || ts >= since || index.VisibilityOf(str[2]) != retwis.Direct {
			continue // gone, written since, or not direct
		}
		p := index.Post{ID: pids[i], Author: author, Time: ts, Conv: index.ParseConversation(str[3:]), Visibility: retwis.Direct}
		writes = append(writes, index.ConversationWrites(p, true)...)
	}
	if len(writes) == 0 {
		return 0, nil
	}
	err = redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return index.Commands(s.C, writes) }))
	return len(keys), s.Wrap("reindex conversations: write", err)
}

// directPosts returns the posts of the Direct indexes keys, each once.
func (s keeper) directPosts(ctx context.Context, keys []string) ([]int64, error) {
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		cmds[i] = s.C.B().Zrange().Key(k).Min("0").Max("-1").Build()
	}
	var pids []int64
	seen := map[int64]bool{}
	for _, r := range s.C.DoMulti(ctx, cmds...) {
		ids, err := r.AsIntSlice()
		if err != nil {
			return nil, s.Wrap("reindex conversations: read direct posts", err)
		}
		for _, id := range ids {
			if !seen[id] {
				seen[id], pids = true, append(pids, id)
			}
		}
	}
	return pids, nil
}
