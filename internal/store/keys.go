package store

import (
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/retwis/retwis"
)

// Key names, in one place; doc.go documents each.
const (
	keyNextUserID   = "next_user_id"
	keyUsersByTime  = "users_by_time"
	keyNextPostID   = "next_post_id"
	keyTimeline     = "timeline"
	keySchema       = "schema_version"
	deliveryGroup   = "deliverers"
	globalTimelineN = 1000 // the global timeline keeps this many posts
)

// MaintenanceLock is the name of the distributed lock under which one
// server at a time does the database's upkeep (Maintain). Redlock keeps
// it in the keys "retwis:maintenance" and "{retwis:maintenance}:fence"
// of the lock servers (doc.go).
const MaintenanceLock = "retwis:maintenance"

// WorkerLock is the name of the distributed lock that leases id worker
// number n to one server (see internal/snowflake): the keys
// "retwis:worker:<n>" and "{retwis:worker:<n>}:fence" of the lock
// servers.
func WorkerLock(n int) string { return "retwis:worker:" + strconv.Itoa(n) }

// Fields of the user hash user:{<id>}.
const (
	fieldUsername     = "username"
	fieldAuth         = "auth"          // the current auth secret
	fieldPasswordHash = "password_hash" // argon2id, PHC string
	fieldPassword     = "password"      // plaintext, original-Retwis accounts only
	fieldSeen         = "seen"          // unix time last seen
	fieldRebuild      = "rebuild"       // "1" while the home timeline awaits a rebuild
	fieldCelebrity    = "celebrity"     // "1" once the user has had more followers than the threshold
)

// Keys of the tutorial's layout that version 3 spread over shards or
// folded into user hashes; Migrate moves their contents and removes them.
const (
	legacyUsers       = "users"
	legacyUsersFolded = "{users}:folded"
	legacyAuths       = "auths"
	legacyLastSeen    = "last_seen"
	legacyCelebrities = "celebrities"
	legacyDeliveries  = "deliveries"
	legacyProgress    = "delivery_progress"
	legacySnapshots   = "delivery_snapshots"
)

// queueShards is how many streams the delivery queue is cut into, each
// in a hash slot of its own with the records of its jobs; an author's
// jobs all go to one of them.
const queueShards = 16

// queue is one shard of the delivery queue: the stream of jobs with its
// consumer group, the progress of its long jobs and the registry of its
// follower snapshots.
type queue struct{ stream, progress, snapshots string }

// queueN returns shard n of the delivery queue.
func queueN(n int) queue { return queueAt(fmt.Sprintf("deliveries:{%02x}", n)) }

// queueAt returns the shard of the delivery queue whose stream is stream.
func queueAt(stream string) queue {
	return queue{stream: stream, progress: stream + ":progress", snapshots: stream + ":snapshots"}
}

// queueOf returns the shard of the delivery queue that takes author's
// jobs (unless its node is failing over: see Store.enqueue).
func queueOf(author int64) queue { return queueN(queueIndex(author)) }

// queueIndex returns the number of the shard queueOf returns.
func queueIndex(author int64) int {
	h := fnv.New32a()
	h.Write([]byte(id(author)))
	return int(h.Sum32() % queueShards)
}

// shards is how many pieces the indexes that every request would
// otherwise share (auth secrets, usernames) are cut into, each in a hash
// slot of its own, so that on a cluster they spread over the masters and
// no master holds a key that every request needs.
const shards = 256

// shardOf returns the shard of s, as two hex digits.
func shardOf(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%02x", h.Sum32()%shards)
}

// keyAuths is the shard of the auth secrets (secret -> user id) that
// holds secret.
func keyAuths(secret string) string { return "auths:{" + shardOf(secret) + "}" }

// keyNames is the shard of the username index (username, exact case ->
// user id) that holds name; keyNamesFolded, in the same slot, maps the
// name folded to lower case, for case-insensitive uniqueness. Both are
// chosen by the folded name, so every spelling of a name meets in one
// shard.
func keyNames(name string) string { return "users:{" + shardOf(retwis.FoldUsername(name)) + "}" }

// keyNamesFolded is the folded twin of keyNames.
func keyNamesFolded(name string) string { return keyNames(name) + ":folded" }

// Fields of the post hash post:<id>.
const (
	fieldUserID    = "user_id"
	fieldTime      = "time"
	fieldBody      = "body"
	fieldFanout    = "fanout"    // "0" for a post that was not fanned out (a celebrity's)
	fieldDelivered = "delivered" // "1" once its delivery job is done
)

// Fields of a delivery job on the deliveries stream.
const (
	jobKind   = "kind"
	jobPost   = "post"
	jobAuthor = "author"
)

// A user's keys carry the user id as their hash tag, so that all of them
// live in one slot: a request about one user touches one master, and a
// cluster loses the users of a failed master only, not a share of every
// user's keys.
func keyUser(uid int64) string      { return "user:" + tag(uid) }
func keyFollowers(uid int64) string { return "followers:" + tag(uid) }
func keyFollowing(uid int64) string { return "following:" + tag(uid) }
func keyHome(uid int64) string      { return "posts:" + tag(uid) }
func keyUserPosts(uid int64) string { return "user_posts:" + tag(uid) }
func keyPost(pid int64) string      { return "post:" + id(pid) }

// tag returns the hash tag of user uid's keys.
func tag(uid int64) string { return "{" + id(uid) + "}" }

// userKeyPrefixes are the prefixes of the per-user keys, which layouts
// before version 3 wrote without a hash tag (user:<id>); Migrate moves
// them.
var userKeyPrefixes = []string{"user:", "followers:", "following:", "posts:", "user_posts:", "celebrities_followed:"}

// keyIdempotency remembers, for a day, the post author published with an
// idempotency key.
func keyIdempotency(author int64, key string) string { return "idempotency:" + tag(author) + ":" + key }

// keyFollowedCelebrities holds the celebrities uid follows, whose posts
// the home timeline merges when read.
func keyFollowedCelebrities(uid int64) string { return "celebrities_followed:" + tag(uid) }

// keyJobFollowers is the snapshot of uid's followers that delivery job
// walks, in the slot of uid's followers, so that COPY can make it.
func keyJobFollowers(uid int64, job string) string { return keyFollowers(uid) + ":job:" + job }

// legacyJobFollowers is keyJobFollowers before version 3.
func legacyJobFollowers(uid int64, job string) string {
	return "{followers:" + id(uid) + "}:job:" + job
}
