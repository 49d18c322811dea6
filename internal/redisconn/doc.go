// Package redisconn connects retwis to Redis, a single server or a
// cluster, and says what went wrong when a call fails.
//
// It knows nothing of retwis's keys (those are internal/store/schema's): it
// dials seed nodes, bounds every call by a deadline so that a frozen node
// fails fast, finds the masters of a cluster and probes them, and sorts
// errors into the kinds a server answers differently (the database is
// away, full, or holds damaged data).
package redisconn
