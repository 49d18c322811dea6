package kernel

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/snowflake"
)

// maxIDTries bounds how often a write takes a new id because the one it
// got was in use already.
const maxIDTries = 5

// NewID returns a new user or post id: from the id generator when the
// store has one (Options.IDs), which needs no round trip; else from the
// tutorial's counter, which costs one.
func (db *DB) NewID(ctx context.Context, counter string) (int64, error) {
	if db.Opts.IDs == nil {
		n, err := db.C.Do(ctx, db.C.B().Incr().Key(counter).Build()).AsInt64()
		return n, db.Wrap("next id", err)
	}
	n, err := db.Opts.IDs.Next(ctx)
	if errors.Is(err, snowflake.ErrNoLease) {
		return 0, &retwis.Error{Kind: retwis.Unavailable, Err: err,
			Message: "The server cannot number new posts and accounts right now. Please try again in a moment."}
	}
	if err != nil {
		return 0, fmt.Errorf("store: next id: %w", err)
	}
	return n, nil
}

// dropRecord takes back record k, of id n, that CreateHash wrote, or may
// have written, but gives up after err: at once if its node answers (a
// node that timed out would time the deletion out too); else through
// abandon, if not nil, which records it to be taken back once its node
// answers. What neither takes back is logged, and left to the check.
func (db *DB) dropRecord(ctx context.Context, k string, n int64, err error, abandon func(context.Context, int64) error) {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		if err = db.C.Do(ctx, db.C.B().Del().Key(k).Build()).Error(); err == nil {
			return
		}
	}
	if abandon != nil {
		aerr := abandon(ctx, n)
		if aerr == nil {
			return
		}
		err = errors.Join(err, aerr)
	}
	db.Log.Warn("a record given up could not be taken back", "key", k, "err", err)
}

// refused reports whether err says that a write was not carried out:
// never sent (its node's circuit was open, or no connection to it could
// be made), or refused by an error reply (a master short of replicas, a
// replica, a cluster failing over).
func refused(err error) bool {
	op, isOp := errors.AsType[*net.OpError](err)
	return errors.Is(err, redisconn.ErrCircuitOpen) || (isOp && op.Op == "dial") || redisconn.IsTemporary(err)
}

// CreateHash writes the hash key(n) with fields, n being a new id, and
// returns n. It never overwrites: should the key exist, the id has been
// handed out before (a counter that lost its last increments in a
// failover, or a clock that went back), so it is logged and another id
// is taken. So is one whose key's node cannot be reached; unless it was
// refused, its write may stand all the same (applied, even replicated,
// before the answer was lost), so it is taken back (see dropRecord).
// abandon, if not nil, records such an id for the caller's maintenance
// to take back when it cannot be at once. first, if not zero, is an id
// already taken for this write.
func (db *DB) CreateHash(ctx context.Context, first int64, counter string, key func(int64) string, abandon func(context.Context, int64) error, fields ...string) (int64, error) {
	n := first
	var lastOutage error
	for range maxIDTries {
		if n == 0 {
			var err error
			if n, err = db.NewID(ctx, counter); err != nil {
				return 0, err
			}
		}
		k := key(n)
		res := db.Replicated(ctx, func() rueidis.Commands {
			return rueidis.Commands{CreateIfAbsent.Cmd(db.C, []string{k}, fields...)}
		}, k)
		created, err := res[0].AsInt64()
		if redisconn.IsOutage(err) && ctx.Err() == nil {
			// The node of this key cannot be reached (it is failing
			// over): another id puts the record in another slot, most
			// likely on a master that works. Unless refused, the write
			// may have been applied without an answer, or not
			// replicated in time: nothing refers to the record, which
			// is taken back.
			if !refused(err) {
				db.dropRecord(ctx, k, n, err, abandon)
			}
			lastOutage, n = err, 0
			continue
		}
		if err != nil {
			return 0, db.Wrap("create "+k, err)
		}
		if created == 1 {
			return n, nil
		}
		db.Log.Error("an id was handed out twice; the existing record is kept and another id taken", "key", k)
		n = 0
	}
	if lastOutage != nil {
		return 0, db.Wrap("create a record", lastOutage)
	}
	return 0, fmt.Errorf("store: %d ids in a row were in use already (%s)", maxIDTries, counter)
}
