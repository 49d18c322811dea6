package redisconn

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/redis/rueidis"
)

// IsReply reports whether err came from a reply of the server (an error
// reply, a nil, a reply of an unexpected type, or a value that does not
// parse as what it should hold) rather than from failing to reach it.
func IsReply(err error) bool {
	if _, ok := errors.AsType[*rueidis.RedisError](err); ok || rueidis.IsParseErr(err) {
		return true
	}
	_, ok := errors.AsType[*strconv.NumError](err)
	return ok
}

// IsDamage reports whether err says that data is not what it should be
// (the wrong type, a value that does not parse), as opposed to Redis
// being unreachable, busy or full.
func IsDamage(err error) bool {
	return err != nil && IsReply(err) && !IsTemporary(err) && !IsFull(err) && !rueidis.IsRedisNil(err)
}

// IsFull reports whether err is Redis refusing a write because it reached
// its memory limit.
func IsFull(err error) bool {
	return Refusal(err) == "oom"
}

// IsTemporary reports whether err is an error reply saying the server
// cannot serve right now but will: a master without the replicas its
// min-replicas-to-write asks for, a replica or a master that lost its
// own (READONLY, MASTERDOWN), loading its data after a restart, busy
// with a script, or a cluster that is failing over or reconfiguring.
func IsTemporary(err error) bool {
	class := Refusal(err)
	return class != "" && class != "oom"
}

// refusals are the prefixes of the error replies by which Redis refuses
// a command it would carry out at another time (Refusal's classes are
// their lower-case forms).
var refusals = []string{"NOREPLICAS", "OOM", "READONLY", "MASTERDOWN", "LOADING", "BUSY", "TRYAGAIN", "CLUSTERDOWN"}

// Refusal returns the class of an error reply by which Redis refuses a
// command it would carry out at another time — "noreplicas", "oom",
// "readonly", "masterdown", "loading", "busy", "tryagain" or
// "clusterdown", after the reply's prefix — or "" when err is no such
// reply. A connection whose handshake the server refused so (a node
// loading or busy when the client reconnects) counts too. Metrics count
// failures by it.
func Refusal(err error) string {
	msg := ""
	if re, ok := errors.AsType[*rueidis.RedisError](err); ok {
		msg = re.Error()
	}
	for e := err; e != nil && msg == ""; e = errors.Unwrap(e) {
		if errors.Unwrap(e) == rueidis.ErrNoCache { // "<reply>: [CLIENT TRACKING …]\n…"
			msg = e.Error()
		}
	}
	for _, prefix := range refusals {
		if rest, ok := strings.CutPrefix(msg, prefix); ok && (rest == "" || rest[0] == ' ') {
			return strings.ToLower(prefix)
		}
	}
	return ""
}

// IsOutage reports whether err says that the node a command went to
// cannot be reached or cannot serve right now (refused, timed out,
// loading, failing over): what another node holds may still be read. A
// full Redis and a cancelled request are not outages.
func IsOutage(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled) && !IsFull(err) &&
		(IsTemporary(err) || !IsReply(err))
}

// FirstErr returns the first error among the results of a pipeline; a nil
// reply is not an error.
func FirstErr(results []rueidis.RedisResult) error {
	for _, r := range results {
		if err := r.Error(); err != nil && !rueidis.IsRedisNil(err) {
			return err
		}
	}
	return nil
}
