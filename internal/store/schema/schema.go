package schema

import (
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// Key names, in one place; doc.go documents each.
const (
	NextUserID    = "next_user_id"
	UsersByTime   = "users_by_time"
	NextPostID    = "next_post_id"
	Timeline      = "timeline"
	VersionKey    = "schema_version"
	DeliveryGroup = "deliverers"
	TimelineCap   = 1000 // the global timeline keeps this many posts
)

// Fields of the user hash user:{<id>}.
const (
	FieldUsername     = "username"
	FieldAuth         = "auth"          // the current auth secret
	FieldPasswordHash = "password_hash" // argon2id, PHC string
	FieldPassword     = "password"      // plaintext, original-Retwis accounts only
	FieldSeen         = "seen"          // unix time last seen
	FieldRebuild      = "rebuild"       // "1" while the home timeline awaits a rebuild
	FieldCelebrity    = "celebrity"     // "1" once the user has had more followers than the threshold
)

// Keys of the tutorial's layout that version 3 spread over shards or
// folded into user hashes; Migrate moves their contents and removes them.
const (
	LegacyUsers       = "users"
	LegacyUsersFolded = "{users}:folded"
	LegacyAuths       = "auths"
	LegacyLastSeen    = "last_seen"
	LegacyCelebrities = "celebrities"
	LegacyDeliveries  = "deliveries"
	LegacyProgress    = "delivery_progress"
	LegacySnapshots   = "delivery_snapshots"
)

// QueueShards is how many streams the delivery queue is cut into, each
// in a hash slot of its own with the records of its jobs; an author's
// jobs all go to one of them.
const QueueShards = 16

// Queue is one shard of the delivery queue: the stream of jobs with its
// consumer group, the progress of its long jobs and the registry of its
// follower snapshots.
type Queue struct{ Stream, Progress, Snapshots string }

// QueueN returns shard n of the delivery queue.
func QueueN(n int) Queue { return QueueAt(fmt.Sprintf("deliveries:{%02x}", n)) }

// QueueAt returns the shard of the delivery queue whose stream is stream.
func QueueAt(stream string) Queue {
	return Queue{Stream: stream, Progress: stream + ":progress", Snapshots: stream + ":snapshots"}
}

// QueueOf returns the shard of the delivery queue that takes author's
// jobs (unless its node is failing over: see Store.enqueue).
func QueueOf(author int64) Queue { return QueueN(QueueIndex(author)) }

// QueueIndex returns the number of the shard QueueOf returns.
func QueueIndex(author int64) int {
	h := fnv.New32a()
	h.Write([]byte(id(author)))
	return int(h.Sum32() % QueueShards)
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

// Auths is the shard of the auth secrets (secret -> user id) that
// holds secret.
func Auths(secret string) string { return "auths:{" + shardOf(secret) + "}" }

// Names is the shard of the username index (username, exact case ->
// user id) that holds name; NamesFolded, in the same slot, maps the
// name folded to lower case, for case-insensitive uniqueness. Both are
// chosen by the folded name, so every spelling of a name meets in one
// shard.
func Names(name string) string { return "users:{" + shardOf(retwis.FoldUsername(name)) + "}" }

// NamesFolded is the folded twin of Names.
func NamesFolded(name string) string { return Names(name) + ":folded" }

// Fields of the post hash post:<id>.
const (
	FieldUserID    = "user_id"
	FieldTime      = "time"
	FieldBody      = "body"
	FieldAuthor    = "username"  // the author's username, copied when posted (usernames never change)
	FieldFanout    = "fanout"    // "0" for a post that was not fanned out (a celebrity's)
	FieldDelivered = "delivered" // when its delivery job was done, unix milliseconds
)

// Fields of a delivery job on the deliveries stream.
const (
	JobKind   = "kind"
	JobPost   = "post"
	JobAuthor = "author"
)

// A user's keys carry the user id as their hash tag, so that all of them
// live in one slot: a request about one user touches one master, and a
// cluster loses the users of a failed master only, not a share of every
// user's keys.

// User is the hash of user uid (FieldUsername, FieldAuth…).
func User(uid int64) string { return "user:" + tag(uid) }

// Followers is the sorted set of the users following uid.
func Followers(uid int64) string { return "followers:" + tag(uid) }

// Following is the sorted set of the users uid follows.
func Following(uid int64) string { return "following:" + tag(uid) }

// Home is the home timeline list of uid (the tutorial's posts:<id>).
func Home(uid int64) string { return "posts:" + tag(uid) }

// Archive is the index of the archive of uid's home timeline: a sorted
// set of chunk numbers, each scored by the oldest post id in its chunk.
func Archive(uid int64) string { return "archive:" + tag(uid) }

// ArchivePrefix is the prefix of the names of the chunks of uid's
// archive: chunk n is the list ArchivePrefix(uid) + n (the Lua scripts
// name chunks so).
func ArchivePrefix(uid int64) string { return Archive(uid) + ":" }

// ArchiveChunk is chunk n of the archive of uid's home timeline: a list
// of post ids, newest first.
func ArchiveChunk(uid, n int64) string { return ArchivePrefix(uid) + id(n) }

// UserPosts is the sorted set of the posts uid wrote.
func UserPosts(uid int64) string { return "user_posts:" + tag(uid) }

// Post is the hash of post pid (FieldUserID, FieldTime, FieldBody…).
func Post(pid int64) string { return "post:" + id(pid) }

// tag returns the hash tag of user uid's keys.
func tag(uid int64) string { return "{" + id(uid) + "}" }

func id(n int64) string { return strconv.FormatInt(n, 10) }

// UserKeyPrefixes are the prefixes of the per-user keys, which layouts
// before version 3 wrote without a hash tag (user:<id>); Migrate moves
// them.
var UserKeyPrefixes = []string{"user:", "followers:", "following:", "posts:", "user_posts:", "celebrities_followed:"}

// Idempotency remembers, for a day, the post author published with an
// idempotency key.
func Idempotency(author int64, key string) string { return "idempotency:" + tag(author) + ":" + key }

// FollowedCelebrities holds the celebrities uid follows, whose posts
// the home timeline merges when read.
func FollowedCelebrities(uid int64) string { return "celebrities_followed:" + tag(uid) }

// JobFollowers is the snapshot of uid's followers that delivery job
// walks, in the slot of uid's followers, so that COPY can make it.
func JobFollowers(uid int64, job string) string { return Followers(uid) + ":job:" + job }

// LegacyJobFollowers is JobFollowers before version 3.
func LegacyJobFollowers(uid int64, job string) string {
	return "{followers:" + id(uid) + "}:job:" + job
}

// Version is the layout version this package describes. Version 1 adds
// the own-post indexes to the tutorial's layout; version 2 the per-user
// sets of followed celebrities; version 3 spreads the indexes that every
// request shared (names, auth secrets, the delivery queue) over shards,
// folds the last-seen times and the celebrities into the user hashes,
// and tags each user's keys with the user id, so that they share a slot.
const Version = 3

// Kinds of delivery job on the deliveries stream.
const (
	JobDeliver   = "deliver"   // put a post on the global timeline and its author's followers' timelines
	JobUndeliver = "undeliver" // take a deleted post off them
	JobCelebrate = "celebrate" // note in every follower's set that the author is a celebrity
)

// Job returns the XADD that records a delivery job on shard q of the
// queue; pid is 0 for a celebrate job.
func Job(b rueidis.Builder, q Queue, kind string, pid, author int64) rueidis.Completed {
	return b.Xadd().Key(q.Stream).Id("*").FieldValue().
		FieldValue(JobKind, kind).FieldValue(JobPost, id(pid)).FieldValue(JobAuthor, id(author)).Build()
}

// JobValid reports whether a job read from the queue makes sense.
func JobValid(kind string, pid, author int64) bool {
	switch kind {
	case JobDeliver, JobUndeliver:
		return pid > 0 && author > 0
	case JobCelebrate:
		return author > 0
	}
	return false
}

// MaintenanceLock is the name of the distributed lock under which one
// server at a time does the database's upkeep (Maintain). Redlock keeps
// it in the keys "retwis:maintenance" and "{retwis:maintenance}:fence"
// of the lock servers (see the table in doc.go).
const MaintenanceLock = "retwis:maintenance"

// WorkerLock is the name of the distributed lock that leases id worker
// number n to one server (see internal/snowflake): the keys
// "retwis:worker:<n>" and "{retwis:worker:<n>}:fence" of the lock
// servers.
func WorkerLock(n int) string { return "retwis:worker:" + strconv.Itoa(n) }
