package check

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/store/schema"
)

// dueEntry is a scheduled post as its user's hash has it: the member
// and score it should have in the due times.
type dueEntry struct {
	key, member string
	uid         int64
	due         int64
}

// checkScheduled verifies that each scheduled post of the users' hashes
// keys is in the due times at its time (a post there is published when
// due; one missing from them never would be), putting back what is not.
// An entry of the due times whose post is gone needs no check: the
// round that finds it due drops it.
func (s checker) checkScheduled(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		cmds[i] = s.C.B().Hgetall().Key(k).Build()
	}
	var entries []dueEntry
	for i, r := range s.doMany(ctx, cmds) {
		all, err := r.AsStrMap()
		if err != nil {
			return nil, s.Wrap("check: scheduled posts", err)
		}
		uid, ok := schema.ScheduledOf(keys[i])
		for id, v := range all {
			sid, err := strconv.ParseInt(id, 10, 64)
			var p scheduled.Post
			if ok && err == nil && json.Unmarshal([]byte(v), &p) == nil {
				entries = append(entries, dueEntry{key: keys[i], member: schema.DueMember(uid, sid), uid: uid, due: p.At.Unix()})
			}
		}
	}
	return s.undue(ctx, entries)
}

// undue returns a finding for each of entries not in the due times at
// its time, with its ZADD as the fix; one pipeline.
func (s checker) undue(ctx context.Context, entries []dueEntry) ([]finding, error) {
	cmds := make(rueidis.Commands, len(entries))
	for i, e := range entries {
		cmds[i] = s.C.B().Zscore().Key(schema.Due(schema.DueOf(e.uid))).Member(e.member).Build()
	}
	var found []finding
	for i, r := range s.doMany(ctx, cmds) {
		score, err := r.AsInt64()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.Wrap("check: due times", err)
		}
		if e := entries[i]; rueidis.IsRedisNil(err) || score != e.due {
			found = append(found, finding{what: "a scheduled post not due at its time", where: "scheduled post " + e.member, key: e.key,
				fix: [][]string{{"ZADD", schema.Due(schema.DueOf(e.uid)), fmt.Sprint(e.due), e.member}}})
		}
	}
	return found, nil
}
