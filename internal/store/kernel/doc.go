// Package kernel is the bottom of retwis's store: DB, the handle on
// Redis that every other package of the store shares (the online
// layers accounts, posts and store embed it; delivery, deletion, check,
// upkeep and bulk reach it through them or directly).
//
// It holds what is about talking to Redis rather than about a concept
// of retwis:
//
//   - the client, every call bounded by a per-call deadline, and the
//     classification of its errors (Wrap: canceled, full, unavailable,
//     internal) (kernel.go);
//   - pipelines that reload the Lua scripts a node forgot (Pipeline),
//     writes that wait for replicas (Replicated, replicas.go), and the
//     re-reading from the master of what a lagging replica lacks
//     (replica_reads.go);
//   - the client-side cache (Cached, CachedMulti, cache.go) and the
//     read-your-writes window of keys this server changed a moment ago
//     (Written, written.go);
//   - the Lua scripts, all in scripts.lua (embedded), each an exported
//     variable (PushIDs, CreateIfAbsent, RateTake…), and the commands
//     built on them that several packages send (PushHomeCmd, DeliverCmd,
//     PushGlobalCmd) (scripts.go);
//   - delivery onto home timelines with plain commands, scripts only for
//     late or raced ids (Deliver, deliver.go);
//   - the minting of ids and the records created under them (NewID,
//     CreateHash, ids.go) and the shard of the queue that takes a
//     delivery job or another durable record (Enqueue, OnShard, JobCmd,
//     jobs.go);
//   - the password hasher (hashing.go), the metrics (metrics.go), the
//     probes of health, readiness and the delivery backlog (health.go,
//     probes.go) and the walks over every master's keys (Walk, ReadEach,
//     scan.go).
//
// It knows the keys only through package schema, and of the facts of
// retwis (users, posts, follows) only what several packages share (the
// fields of a post hash, the push onto a timeline): the operations on
// them belong to the layers above it.
package kernel
