package kernel

import (
	"context"
	"fmt"

	"github.com/retwis/retwis/internal/store/schema"
)

// Health checks that every Redis master answers a PING, all at once:
// the database can serve. It returns an Unavailable error naming a
// master that does not.
func (db *DB) Health(ctx context.Context) error {
	return db.Wrap("health", db.Nodes.Ping(ctx))
}

// Readiness returns why the database should not receive traffic, or
// nothing when it should: a node that does not answer, a cluster whose
// state is not ok, a master that refuses writes (at its memory limit, or
// without the replicas its min-replicas-to-write asks for), or
// a database that has lost retwis's data (its layout version is gone,
// as after a restart without persistence: every session would be dead).
func (db *DB) Readiness(ctx context.Context) []string {
	var problems []string
	for _, n := range db.Nodes.Probe(ctx) {
		switch {
		case n.Err != nil:
			problems = append(problems, fmt.Sprintf("Redis %s does not answer: %v", n.Addr, n.Err))
		case n.Cluster != "" && n.Cluster != "ok":
			problems = append(problems, fmt.Sprintf("Redis %s: cluster state %s", n.Addr, n.Cluster))
		case n.Master && n.Full():
			problems = append(problems, fmt.Sprintf("Redis %s is full: %d of %d bytes used, writes fail", n.Addr, n.Used, n.Limit))
		case n.Master && !n.Writable():
			problems = append(problems, fmt.Sprintf("Redis %s refuses writes: %d of the %d replicas its min-replicas-to-write asks for",
				n.Addr, n.GoodReplicas, n.MinReplicas))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	n, err := db.C.Do(ctx, db.C.B().Exists().Key(schema.VersionKey).Build()).AsInt64()
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("reading the layout version: %v", err))
	case n == 0:
		db.Log.Error("the database has lost retwis's data (no layout version): was Redis restarted without persistence?")
		problems = append(problems, "the database is empty: its layout version is gone (a restart without persistence?)")
	}
	return problems
}
