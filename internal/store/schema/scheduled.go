package schema

import (
	"fmt"
	"strconv"
	"strings"
)

// Scheduled is the hash of user uid's scheduled posts: scheduled post
// id -> JSON (the post's parameters and the time it is due), at most a
// few hundred (package scheduled bounds them).
func Scheduled(uid int64) string { return "scheduled:" + tag(uid) }

// ScheduledKeys is the SCAN pattern of the users' hashes of scheduled
// posts; ScheduledOf returns the user of one.
const ScheduledKeys = "scheduled:{*}"

// ScheduledOf returns the user whose scheduled posts key holds.
func ScheduledOf(key string) (int64, bool) { return ownerOf("scheduled:", key) }

// NextScheduledID is the counter of scheduled posts' ids when the store
// has no id generator.
const NextScheduledID = "next_scheduled_id"

// DueShards is how many sorted sets the scheduled posts' due times are
// spread over, by author, so that on a cluster no one master takes every
// scheduled post; maintenance reads all of them.
const DueShards = 16

// Due is shard n of the scheduled posts' due times: members
// "<uid>:<scheduled post id>", scored by the unix time they are due.
func Due(n int) string { return fmt.Sprintf("scheduled_due:{%02x}", n) }

// DueOf returns the shard of the due times that holds uid's.
func DueOf(uid int64) int { return int(fnv32(id(uid)) % DueShards) }

// DueMember is the member of the due times of uid's scheduled post sid.
func DueMember(uid, sid int64) string { return id(uid) + ":" + id(sid) }

// DueMemberOf reads a member of the due times.
func DueMemberOf(m string) (uid, sid int64, ok bool) {
	a, b, found := strings.Cut(m, ":")
	uid, err1 := strconv.ParseInt(a, 10, 64)
	sid, err2 := strconv.ParseInt(b, 10, 64)
	return uid, sid, found && err1 == nil && err2 == nil
}
