// Package store keeps retwis's data in Redis: accounts, sessions, posts,
// follows, timelines, their delivery, upkeep and migration. Domain rules
// are checked here, so every interface (HTML, API, CLI) gets the same.
// It queues the delivery of posts to followers as jobs; the workers that
// carry them out are package delivery's (which imports store, not the
// reverse).
//
// The Redis layout (every key and field, with the complete key table) is
// in package schema, the only package that spells a key; store composes
// engines that know no key names of their own (internal/jobqueue for the
// delivery queue, internal/redisconn for the connection).
//
// Every command, script and transaction touches keys of one hash slot
// only, so the same code runs on a single server and on Redis Cluster.
// Operations that change keys in several slots are ordered so that a
// crash half-way leaves the data usable: a new user becomes visible only
// once the name is claimed (a crash before leaves an unreachable user
// hash); a post id is pushed on timelines only after the post hash exists;
// a session lives in the user's slot alone (a logout removes it there),
// so a user can always log in; user and post hashes
// are created only if absent, so an id handed out twice (a counter
// rolled back by a failover) never overwrites what exists; follows are written to
// both sets idempotently, so repeating one repairs it. A post is
// published completely or taken back. Fanout is a durable job on the
// deliveries stream: a crash mid-delivery leaves the job to another
// worker (package delivery), which resumes it. An account's deletion
// begins with one script in the user's slot, after which every step is
// safe to repeat, and maintenance resumes it should its runner stop.
package store
