package kernel

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store/schema"
)

// Read-only probes of the database, for benchmarks and operations. They
// answer questions about the data's state; none of them writes.

// IsEmpty reports whether the database holds no users and no posts yet
// (a server may have created its delivery queue already).
func (db *DB) IsEmpty(ctx context.Context) (bool, error) {
	b := db.C.B()
	for _, r := range db.C.DoMulti(ctx,
		b.Exists().Key(schema.NextUserID).Build(), b.Exists().Key(schema.NextPostID).Build(), b.Exists().Key(schema.UsersByTime).Build()) {
		n, err := r.AsInt64()
		if err != nil {
			return false, db.Wrap("is empty", err)
		}
		if n > 0 {
			return false, nil
		}
	}
	return true, nil
}

// UsedMemory returns Redis's own count of the memory it uses (INFO
// memory, used_memory), summed over the nodes of a cluster.
func (db *DB) UsedMemory(ctx context.Context) (int64, error) {
	var total int64
	for _, node := range db.C.Nodes() {
		info, err := node.Do(ctx, node.B().Info().Section("memory").Build()).ToString()
		if err != nil {
			return 0, db.Wrap("used memory", err)
		}
		for line := range strings.SplitSeq(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				total += n
			}
		}
	}
	return total, nil
}

// DeliveryDone reports whether the newest post of author has reached the
// author's last follower. Jobs walk followers in order, so once the last
// one has it, every one has (but those skipped as inactive).
func (db *DB) DeliveryDone(ctx context.Context, author int64) (bool, error) {
	b := db.C.B()
	res := db.C.DoMulti(ctx,
		b.Zrevrange().Key(schema.UserPosts(author)).Start(0).Stop(0).Build(),
		b.Zrange().Key(schema.Followers(author)).Min("-1").Max("-1").Build())
	post, err1 := res[0].AsIntSlice()
	last, err2 := res[1].AsIntSlice()
	if err := errors.Join(err1, err2); err != nil {
		return false, db.Wrap("delivery done", err)
	}
	if len(post) == 0 || len(last) == 0 {
		return true, nil
	}
	head, err := db.C.Do(ctx, b.Lindex().Key(schema.Home(last[0])).Index(0).Build()).AsInt64()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	return head == post[0], db.Wrap("delivery done", err)
}

// DeliveryBacklog returns how many delivery jobs are waiting or running,
// on every shard of the queue.
func (db *DB) DeliveryBacklog(ctx context.Context) (int64, error) {
	cmds := make(rueidis.Commands, schema.QueueShards)
	for n := range cmds {
		cmds[n] = db.C.B().Xlen().Key(schema.QueueN(n).Stream).Build()
	}
	var total int64
	for _, r := range db.C.DoMulti(ctx, cmds...) {
		n, err := r.AsInt64()
		if err != nil {
			return 0, db.Wrap("delivery backlog", err)
		}
		total += n
	}
	return total, nil
}

// DeliveryDelays returns, for the posts of authors made since since, how
// long each took from being made to being delivered to its last
// follower (its delivery job done), in one pipeline per author. Posts
// not delivered yet, and those without a time-ordered id, are left out.
func (db *DB) DeliveryDelays(ctx context.Context, authors []int64, since time.Time) ([]time.Duration, error) {
	b := db.C.B()
	var delays []time.Duration
	for _, a := range authors {
		pids, err := db.C.Do(ctx, b.Zrangebyscore().Key(schema.UserPosts(a)).
			Min(strconv.FormatInt(snowflake.First(since), 10)).Max("+inf").Build()).AsIntSlice()
		if err != nil {
			return nil, db.Wrap("delivery delays", err)
		}
		cmds := make(rueidis.Commands, len(pids))
		for i, pid := range pids {
			cmds[i] = b.Hget().Key(schema.Post(pid)).Field(schema.FieldDelivered).Build()
		}
		for i, r := range db.C.DoMulti(ctx, cmds...) {
			ms, err := r.AsInt64()
			made := snowflake.Time(pids[i])
			if err != nil || made.IsZero() {
				continue
			}
			delays = append(delays, time.UnixMilli(ms).Sub(made))
		}
	}
	return delays, nil
}
