package kernel

import (
	"cmp"
	"context"
	"strconv"

	"github.com/redis/rueidis"
)

// Walks over the keys of every master.
const (
	// walkBatch is how many keys one SCAN step of Walk asks for.
	walkBatch = 1000
	// WalkDone marks, in a walk's state, a master whose keys are all
	// visited.
	WalkDone = "done"
)

// Walk walks the keys of type keyType ("hash", "zset"…) matching pattern
// on every master, a SCAN step at a time from the cursors kept in the
// hash state (master address -> cursor, WalkDone once walked; a
// master not in it is walked from the start), calling visit with each
// step's keys and keeping the cursor after it, so that a walk that stops
// resumes there. It walks at most about budget keys (0: no bound), and
// reports whether every master is walked to its end.
func (db *DB) Walk(ctx context.Context, state, pattern, keyType string, budget int, visit func([]string) error) (bool, error) {
	cursors, err := db.C.Do(ctx, db.C.B().Hgetall().Key(state).Build()).AsStrMap()
	if err != nil {
		return false, db.Wrap("walk: state", err)
	}
	walked, done := 0, true
	for addr, node := range db.Nodes.Masters(ctx) {
		cursor := cmp.Or(cursors[addr], "0")
		for cursor != WalkDone && node != nil && (budget <= 0 || walked < budget) {
			keys, next, err := db.scanKeys(ctx, node, pattern, keyType, cursor)
			if err != nil {
				return false, err
			}
			if len(keys) > 0 {
				if err := visit(keys); err != nil {
					return false, err
				}
			}
			walked += len(keys)
			if cursor = next; cursor == "0" {
				cursor = WalkDone
			}
			err = db.C.Do(ctx, db.C.B().Hset().Key(state).FieldValue().FieldValue(addr, cursor).Build()).Error()
			if err != nil {
				return false, db.Wrap("walk: state", err)
			}
		}
		done = done && cursor == WalkDone
	}
	return done, nil
}

// scanKeys takes one SCAN step over the keys of node of type kind
// matching pattern.
func (db *DB) scanKeys(ctx context.Context, node rueidis.Client, pattern, kind, cursor string) ([]string, string, error) {
	c, _ := strconv.ParseUint(cursor, 10, 64)
	e, err := node.Do(ctx, node.B().Scan().Cursor(c).Match(pattern).Count(walkBatch).Type(kind).Build()).AsScanEntry()
	if err != nil {
		return nil, "", db.Wrap("reindex: scan", err)
	}
	return e.Elements, strconv.FormatUint(e.Cursor, 10), nil
}

// ReadEach reads, in one pipeline, each of keys that owner says belongs
// to a user, with the command read builds; it returns those users and
// the replies, in the same order.
func (db *DB) ReadEach(ctx context.Context, keys []string, owner func(string) (int64, bool),
	read func(key string) rueidis.Completed) ([]int64, []rueidis.RedisResult) {
	var uids []int64
	cmds := make(rueidis.Commands, 0, len(keys))
	for _, k := range keys {
		if uid, ok := owner(k); ok {
			uids = append(uids, uid)
			cmds = append(cmds, read(k))
		}
	}
	if len(cmds) == 0 {
		return nil, nil
	}
	return uids, db.C.DoMulti(ctx, cmds...)
}
