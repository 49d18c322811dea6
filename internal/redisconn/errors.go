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
	re, ok := errors.AsType[*rueidis.RedisError](err)
	return ok && strings.HasPrefix(re.Error(), "OOM ")
}

// IsTemporary reports whether err is an error reply saying the server
// cannot serve right now but will: loading its data after a restart, busy
// with a script, failing over, or a cluster that is reconfiguring.
func IsTemporary(err error) bool {
	re, ok := errors.AsType[*rueidis.RedisError](err)
	if !ok {
		return false
	}
	if re.IsLoading() || re.IsClusterDown() || re.IsTryAgain() {
		return true
	}
	for _, prefix := range []string{"BUSY ", "MASTERDOWN ", "READONLY "} {
		if strings.HasPrefix(re.Error(), prefix) {
			return true
		}
	}
	return false
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
