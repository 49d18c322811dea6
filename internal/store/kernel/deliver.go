package kernel

import (
	"context"
	"slices"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
)

// FixIDs puts back in order the head of a home timeline onto which
// Deliver pushed ids without a script, when they turned out not to be
// the newest (a delivery that raced another), and archives what passes
// the cap; see scripts.lua. Build calls with fixHomeCmd.
var FixIDs = newScript("fix_ids")

// Delivery is one follower's share of a fanout: the post ids to put on
// their home timeline.
type Delivery struct {
	UID int64
	IDs []int64
}

// fixHomeCmd returns the FixIDs call for uid's home timeline, after ids
// were pushed onto its head (none: only archive).
func (db *DB) fixHomeCmd(uid int64, ids []int64) rueidis.Completed {
	return FixIDs.Cmd(db.C, []string{schema.Home(uid), schema.Archive(uid)}, db.fixArgs(uid, 0, ids)...)
}

// redeliverCmd returns the FixIDs call that delivers ids to uid again,
// unless uid was last seen before horizon (it replies -1 then).
func (db *DB) redeliverCmd(uid, horizon int64, ids []int64) rueidis.Completed {
	return FixIDs.Cmd(db.C, []string{schema.Home(uid), schema.Archive(uid), schema.User(uid)}, db.fixArgs(uid, horizon, ids)...)
}

// fixArgs returns the arguments of FixIDs.
func (db *DB) fixArgs(uid, horizon int64, ids []int64) []string {
	args := []string{strconv.Itoa(db.Opts.HomeCap), strconv.Itoa(db.Opts.ArchiveChunk), schema.ArchivePrefix(uid),
		strconv.FormatInt(horizon, 10), schema.FieldSeen}
	for _, id := range ids {
		args = append(args, ID(id))
	}
	return args
}

// Redeliver is Deliver for a delivery that may have run before and
// failed part way (a job tried again, or taken over): an earlier attempt
// may have pushed ids onto a head without putting them back in order
// (its FixIDs never ran), so every owner's delivery goes through FixIDs,
// which finds every copy of the ids in the list and puts the head down
// to the deepest in order, in one pipeline of script calls.
func (db *DB) Redeliver(ctx context.Context, horizon int64, ds []Delivery) ([]bool, error) {
	ds = sortedDeliveries(ds)
	homes := make([]string, len(ds))
	for i, d := range ds {
		homes[i] = schema.Home(d.UID)
	}
	res := db.Replicated(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, len(ds))
		for i, d := range ds {
			cmds[i] = db.redeliverCmd(d.UID, horizon, d.IDs)
		}
		return cmds
	}, homes...)
	if err := redisconn.FirstErr(res); err != nil {
		return nil, db.Wrap("redeliver", err)
	}
	reached := make([]bool, len(ds))
	for i, r := range res[:len(ds)] {
		n, err := r.AsInt64()
		reached[i] = err == nil && n >= 0
	}
	return reached, nil
}

// Deliver puts each delivery's ids onto its owner's home timeline, as
// DeliverCmd does, and reports which owners it reached (those seen since
// horizon, unix time, or never), without a script call in the usual
// case, where the ids are newer than the timeline's head:
//
//  1. one pipeline reads every owner's last-seen time and head (HGET,
//     LINDEX 0);
//  2. one pipeline pushes, for each active owner whose ids are all newer
//     than the head read, the ids with a transaction (MULTI, LPUSH,
//     LINDEX of the entry just below them, EXEC), which shows, atomically
//     with the push, whether the ids went above something at least as
//     new (another delivery got in between);
//  3. only if some need it, one pipeline of scripts: DeliverCmd for the
//     late owners (an id not newer than the head: it goes in its place,
//     or is there already), FixIDs for those whose push raced another
//     (it puts the head back in order) and for those whose list grew past
//     the cap plus a chunk (it moves a chunk to the archive).
//
// Writes wait for replicas as DB.Replicated does. An owner seen again
// between the first step and the second is skipped as one away (their
// timeline is rebuilt when they come back), as if the delivery had come
// a moment earlier.
func (db *DB) Deliver(ctx context.Context, horizon int64, ds []Delivery) ([]bool, error) {
	ds = sortedDeliveries(ds)
	reached := make([]bool, len(ds))
	heads, err := db.readHeads(ctx, horizon, ds, reached)
	if err != nil {
		return nil, err
	}
	var fast, late []int
	for i, d := range ds {
		switch {
		case !reached[i] || len(d.IDs) == 0:
		case heads[i] < d.IDs[0]:
			fast = append(fast, i)
		default:
			late = append(late, i)
		}
	}
	fix, err := db.pushHeads(ctx, ds, fast)
	if err != nil {
		return nil, err
	}
	if len(late)+len(fix) == 0 {
		return reached, nil
	}
	return reached, db.settleHeads(ctx, horizon, ds, late, fix, reached)
}

// sortedDeliveries returns ds with each one's ids sorted and without
// repeats.
func sortedDeliveries(ds []Delivery) []Delivery {
	out := make([]Delivery, len(ds))
	for i, d := range ds {
		ids := slices.Clone(d.IDs)
		slices.Sort(ids)
		out[i] = Delivery{UID: d.UID, IDs: slices.Compact(ids)}
	}
	return out
}

// readHeads reads, in one pipeline, each owner's last-seen time and the
// head of their home timeline (0 when empty); it marks in reached the
// owners seen since horizon (or never).
func (db *DB) readHeads(ctx context.Context, horizon int64, ds []Delivery, reached []bool) ([]int64, error) {
	b := db.C.B()
	cmds := make(rueidis.Commands, 0, 2*len(ds))
	for _, d := range ds {
		cmds = append(cmds, b.Hget().Key(schema.User(d.UID)).Field(schema.FieldSeen).Build(),
			b.Lindex().Key(schema.Home(d.UID)).Index(0).Build())
	}
	res := db.C.DoMulti(ctx, cmds...)
	heads := make([]int64, len(ds))
	for i := range ds {
		seen, err := optionalInt(res[2*i].ToMessage())
		if err != nil {
			return nil, db.Wrap("deliver: last seen", err)
		}
		reached[i] = seen == 0 || seen >= horizon
		if heads[i], err = optionalInt(res[2*i+1].ToMessage()); err != nil {
			return nil, db.Wrap("deliver: head", err)
		}
	}
	return heads, nil
}

// optionalInt reads an integer reply, or a string holding one; nil (and
// a string that is not a number, as the scripts' tonumber reads it) is 0.
func optionalInt(m rueidis.RedisMessage, err error) (int64, error) {
	if err != nil || m.IsNil() {
		return 0, ignoreNil(err)
	}
	if m.IsInt64() {
		return m.AsInt64()
	}
	s, err := m.ToString()
	if err != nil {
		return 0, err
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n, nil
}

// ignoreNil returns err unless it is a nil reply.
func ignoreNil(err error) error {
	if rueidis.IsRedisNil(err) {
		return nil
	}
	return err
}

// pushHeads pushes the ids of the deliveries at fast onto their owners'
// heads, each in a transaction that also reads the entry below them, and
// returns those that need FixIDs: with their ids when these went above
// an entry at least as new, without when the list only passed the cap
// plus a chunk. The pipeline holds no script: DB.Pipeline sends a
// pipeline again only when a script is missing, and a push is not safe
// to repeat.
func (db *DB) pushHeads(ctx context.Context, ds []Delivery, fast []int) ([]Delivery, error) {
	if len(fast) == 0 {
		return nil, nil
	}
	homes := make([]string, len(fast))
	for n, i := range fast {
		homes[n] = schema.Home(ds[i].UID)
	}
	res := db.Replicated(ctx, func() rueidis.Commands {
		b := db.C.B()
		cmds := make(rueidis.Commands, 0, 4*len(fast))
		for n, i := range fast {
			d := ds[i]
			cmds = append(cmds, b.Multi().Build().SetSlot(homes[n]),
				b.Lpush().Key(homes[n]).Element(IDs(d.IDs)...).Build(),
				b.Lindex().Key(homes[n]).Index(int64(len(d.IDs))).Build(),
				b.Exec().Build().SetSlot(homes[n]))
		}
		return cmds
	}, homes...)
	if err := redisconn.FirstErr(res); err != nil {
		return nil, db.Wrap("deliver: push", err)
	}
	var fix []Delivery
	for n, i := range fast {
		out, err := res[4*n+3].ToArray()
		if err != nil || len(out) != 2 {
			return nil, db.Wrap("deliver: push", ErrShape)
		}
		length, err := out[0].AsInt64()
		if err != nil {
			return nil, db.Wrap("deliver: push", err)
		}
		below, err := optionalInt(out[1], nil)
		if err != nil {
			return nil, db.Wrap("deliver: push", err)
		}
		switch {
		case below >= ds[i].IDs[0]:
			fix = append(fix, ds[i])
		case length > int64(db.Opts.HomeCap+db.Opts.ArchiveChunk):
			fix = append(fix, Delivery{UID: ds[i].UID})
		}
	}
	return fix, nil
}

// settleHeads sends, in one pipeline, DeliverCmd for the late deliveries
// (unmarking in reached the owners it finds away) and FixIDs for those
// that need it.
func (db *DB) settleHeads(ctx context.Context, horizon int64, ds []Delivery, late []int, fix []Delivery, reached []bool) error {
	homes := make([]string, 0, len(late)+len(fix))
	for _, i := range late {
		homes = append(homes, schema.Home(ds[i].UID))
	}
	for _, d := range fix {
		homes = append(homes, schema.Home(d.UID))
	}
	res := db.Replicated(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, 0, len(homes))
		for _, i := range late {
			cmds = append(cmds, db.DeliverCmd(ds[i].UID, horizon, ds[i].IDs...))
		}
		for _, d := range fix {
			cmds = append(cmds, db.fixHomeCmd(d.UID, d.IDs))
		}
		return cmds
	}, homes...)
	if err := redisconn.FirstErr(res); err != nil {
		return db.Wrap("deliver: settle", err)
	}
	for n, i := range late {
		if v, err := res[n].AsInt64(); err == nil && v < 0 {
			reached[i] = false
		}
	}
	return nil
}
