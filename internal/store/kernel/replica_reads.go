package kernel

import (
	"context"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/schema"
)

// ReadFromReplica reports whether cmd is one of the store's reads that a
// replica may answer (Options.ReplicaReads): the reads of data that
// never changes once written (but for an edit, which waits for the
// replicas as every write does), a post hash (HMGET post:<id> with the
// fields postFields) and a username (HGET user:{<id>} username). Give it
// to redisconn.DialWith. What a lagging replica does not hold yet, the
// store reads again from the master with commands this refuses: HMGET
// post:<id> with one more field (fanout), HMGET user:{<id>} username.
func ReadFromReplica(cmd rueidis.Completed) bool {
	c := cmd.Commands()
	switch {
	case len(c) == 2+len(PostFields) && c[0] == "HMGET" && strings.HasPrefix(c[1], "post:"):
		return true
	case len(c) == 3 && c[0] == "HGET" && strings.HasPrefix(c[1], "user:{") && c[2] == schema.FieldUsername:
		return true
	}
	return false
}

// FromMaster re-reads, when reads may come from replicas, what a replica
// did not hold: res[i] is replaced by the reply to master(i) wherever
// absent(res[i]) (a post or user created a moment ago, which the replica
// has not received yet).
func (db *DB) FromMaster(ctx context.Context, res []rueidis.RedisResult,
	absent func(rueidis.RedisResult) bool, master func(i int) rueidis.Completed) {
	if !db.Opts.ReplicaReads {
		return
	}
	var idx []int
	var cmds rueidis.Commands
	for i, r := range res {
		if absent(r) {
			idx = append(idx, i)
			cmds = append(cmds, master(i))
		}
	}
	if len(cmds) == 0 {
		return
	}
	for k, r := range db.C.DoMulti(ctx, cmds...) {
		res[idx[k]] = r
	}
}

// PostFields are the fields of a post hash that the store reads, in the
// order parsePost expects.
var PostFields = []string{schema.FieldUserID, schema.FieldTime, schema.FieldBody, schema.FieldAuthor,
	schema.FieldMentions, schema.FieldReplyTo, schema.FieldReplyUser, schema.FieldWarning, schema.FieldEdited, schema.FieldVisibility,
	schema.FieldReblogOf, schema.FieldReblogUser, schema.FieldMedia, schema.FieldSensitive, schema.FieldCard}
