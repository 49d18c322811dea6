package check

import (
	"context"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// checkConversationPosts verifies the posts of the users' conversations
// (the conversation keys): each of a post that exists (else it goes),
// and each conversation in its user's list (else it is listed again, by
// its newest post: its delivery stopped midway).
func (s checker) checkConversationPosts(ctx context.Context, keys []string, run *checkRun) ([]finding, error) {
	found, err := s.checkPostRefs(ctx, keys, run)
	if err != nil {
		return nil, err
	}
	b := s.C.B()
	cmds := make(rueidis.Commands, 0, 2*len(keys))
	for _, k := range keys {
		uid, conv, _ := schema.ConversationOf(k)
		cmds = append(cmds, b.Zscore().Key(schema.Conversations(uid)).Member(kernel.ID(conv)).Build(),
			b.Zrevrange().Key(k).Start(0).Stop(0).Withscores().Build())
	}
	res := s.doMany(ctx, cmds)
	for i, k := range keys {
		uid, conv, ok := schema.ConversationOf(k)
		_, err := res[2*i].AsFloat64()
		if !ok || !rueidis.IsRedisNil(err) {
			if err != nil && !rueidis.IsRedisNil(err) {
				return nil, s.Wrap("check: read conversations", err)
			}
			continue
		}
		newest, err := res[2*i+1].AsZScores()
		if err != nil {
			return nil, s.Wrap("check: read "+k, err)
		}
		if len(newest) > 0 {
			found = append(found, finding{"a conversation's posts outside its user's list", k, k,
				[][]string{{"ZADD", schema.Conversations(uid), "GT", score64(newest[0].Score), kernel.ID(conv)}}})
		}
	}
	return found, nil
}

// checkConversations verifies the users' lists of conversations (the
// conversations keys): each conversation has posts (else it leaves the
// list, with its read mark: its deletion stopped midway) and is scored
// by its newest.
func (s checker) checkConversations(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	cmds := make(rueidis.Commands, len(entries))
	for i, e := range entries {
		uid, _ := schema.ConversationsOf(e.key)
		conv, _ := strconv.ParseInt(e.Member, 10, 64)
		cmds[i] = s.C.B().Zrevrange().Key(schema.Conversation(uid, conv)).Start(0).Stop(0).Withscores().Build()
	}
	var found []finding
	for i, r := range s.doMany(ctx, cmds) {
		newest, err := r.AsZScores()
		if err != nil {
			return nil, s.Wrap("check: read conversations", err)
		}
		e := entries[i]
		uid, _ := schema.ConversationsOf(e.key)
		where := e.key + " " + e.Member
		switch {
		case len(newest) == 0:
			found = append(found, finding{"a conversation without posts", where, e.key,
				[][]string{{"ZREM", e.key, e.Member}, {"ZREM", schema.ConversationsRead(uid), e.Member}}})
		case newest[0].Score != e.Score:
			found = append(found, finding{"a conversation not scored by its newest post", where, e.key,
				[][]string{{"ZADD", e.key, "XX", score64(newest[0].Score), e.Member}}})
		}
	}
	return found, nil
}
