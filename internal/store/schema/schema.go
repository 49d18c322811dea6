package schema

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
	// RecentBoosts is the stream of the newest boosts and take-backs of
	// boosts (BoostRecord), which maintenance looks at for those whose
	// job vanished; RecentBoostsCap is about how many it keeps.
	RecentBoosts    = "recent_boosts"
	RecentBoostsCap = 1000
)

// Fields of the user hash user:{<id>}.
const (
	FieldUsername     = "username"
	FieldAuth         = "auth"          // the auth secret of before sessions per device, until it ends
	FieldPasswordHash = "password_hash" // argon2id, PHC string
	FieldPassword     = "password"      // plaintext, original-Retwis accounts only
	FieldSeen         = "seen"          // unix time last seen
	FieldRebuild      = "rebuild"       // "1" while the home timeline awaits a rebuild
	FieldCelebrity    = "celebrity"     // "1" once the user has had more followers than the threshold
	FieldNotified     = "notified"      // unix ms the user last read their notifications
	FieldDisplayName  = "display_name"  // the name shown beside the username, if set
	FieldBio          = "bio"           // a few words about the user, if set
	FieldJoined       = "joined"        // unix time of sign-up (version 7 on)
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
// consumer group, the progress of its long jobs, the registry of its
// follower snapshots, the follows and unfollows under way that it holds
// until they are complete (FollowChange), and the posts whose failed
// publication could not be taken back at once (Unpublished).
type Queue struct{ Stream, Progress, Snapshots, Follows, Unpublish string }

// QueueN returns shard n of the delivery queue.
func QueueN(n int) Queue { return QueueAt(fmt.Sprintf("deliveries:{%02x}", n)) }

// QueueAt returns the shard of the delivery queue whose stream is stream.
func QueueAt(stream string) Queue {
	return Queue{Stream: stream, Progress: stream + ":progress", Snapshots: stream + ":snapshots", Follows: stream + ":follows",
		Unpublish: stream + ":unpublish"}
}

// QueueOf returns the shard of the delivery queue that takes author's
// jobs (unless its node is failing over: see Store.enqueue).
func QueueOf(author int64) Queue { return QueueN(QueueIndex(author)) }

// QueueIndex returns the number of the shard QueueOf returns.
func QueueIndex(author int64) int { return int(fnv32(id(author)) % QueueShards) }

// shards is how many pieces the indexes that every request would
// otherwise share (auth secrets, usernames) are cut into, each in a hash
// slot of its own, so that on a cluster they spread over the masters and
// no master holds a key that every request needs.
const shards = 256

// shardOf returns the shard of s, as two hex digits.
func shardOf(s string) string { return fmt.Sprintf("%02x", fnv32(s)%shards) }

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
	FieldAuthor    = "username"   // the author's username, copied when posted (usernames never change)
	FieldFanout    = "fanout"     // "0" for a post that was not fanned out (a celebrity's)
	FieldDelivered = "delivered"  // when its delivery job (a boost's boost job) was done, unix milliseconds
	FieldTags      = "tags"       // the post's tags as written, separated by spaces
	FieldMentions  = "mentions"   // "<user id>:<username>" of each user it mentions (who existed), separated by spaces
	FieldReplyTo   = "reply_to"   // the post it answers
	FieldReplyUser = "reply_user" // "<user id>:<username>" of that post's author
	FieldAncestors = "ancestors"  // the posts above it in its thread, nearest first, separated by commas
	FieldWarning   = "warning"    // its content warning, one line, absent when it has none
	FieldEdited    = "edited"     // when its body or warning last changed, unix ms, absent when never
	FieldHistory   = "history"    // its earlier versions, oldest first: JSON [{"body","warning","time" (unix ms)}], absent when never edited
	// FieldVisibility is who sees it: "unlisted", "private" or "direct"
	// (retwis.Visibility), absent for a public post.
	FieldVisibility = "visibility"
	// FieldReblogOf marks a boost: the post it boosts (a boost has no
	// body of its own), and FieldReblogUser that post's author,
	// "<user id>:<username>".
	FieldReblogOf   = "reblog_of"
	FieldReblogUser = "reblog_user"
)

// Fields of a delivery job on the deliveries stream.
const (
	JobKind   = "kind"
	JobPost   = "post"
	JobAuthor = "author"
	JobOf     = "of" // of a boost's jobs: the post it boosts
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

// ArchiveKeys is the SCAN pattern of the archives' indexes (a chunk's
// name goes on past the tag, so it does not match).
const ArchiveKeys = "archive:{*}"

// ArchiveOf returns the id of the user whose archive index key is.
func ArchiveOf(key string) (int64, bool) { return ownerOf("archive:", key) }

// HistoryTrimState records, per master (its address), how far
// maintenance's walk over the archives, trimming each home timeline to
// its history, has got: a SCAN cursor, or "done"; deleted once every
// master is done, so that the next round begins a new walk.
const HistoryTrimState = "trim:history"

// UserPosts is the sorted set of the posts uid wrote.
func UserPosts(uid int64) string { return "user_posts:" + tag(uid) }

// Post is the hash of post pid (FieldUserID, FieldTime, FieldBody…).
func Post(pid int64) string { return "post:" + id(pid) }

// FollowingKeys is the SCAN pattern of the sets of users followed.
const FollowingKeys = "following:{*}"

// FollowingOf returns the id of the user whose set of users followed
// key is.
func FollowingOf(key string) (int64, bool) { return ownerOf("following:", key) }

// ownerOf returns the id of the user whose key is key, the prefix then
// the user's hash tag, and nothing after.
func ownerOf(prefix, key string) (int64, bool) {
	rest, ok := strings.CutPrefix(key, prefix+"{")
	rest, closed := strings.CutSuffix(rest, "}")
	n, err := strconv.ParseInt(rest, 10, 64)
	return n, ok && closed && err == nil
}

// UserKeys is the SCAN pattern of the user hashes.
const UserKeys = "user:{*}"

// UserOf returns the id of the user whose hash is key.
func UserOf(key string) (int64, bool) { return ownerOf("user:", key) }

// The SCAN patterns of the keys that `retwis check` verifies, and the
// functions that read the user id of one of the per-user keys back.
const (
	FollowersKeys = "followers:{*}" // with the delivery snapshots, which FollowersOf refuses
	GraphKeys     = "graph:{*}"
	NameKeys      = "users:{*}" // both name indexes
	PeopleKeys    = "people:{*}"
	UserPostsKeys = "user_posts:{*}"
	MentionsKeys  = "mentions:{*}"
	DirectKeys    = "direct:{*}"
	BookmarksKeys = "bookmarks:{*}"
	PinsKeys      = "pins:{*}"
	RepliesKeys   = "replies:{*}"
	TagKeys       = "tag:{*}" // the tag's posts, by id and by day
	HomeKeys      = "posts:{*}"
	ChunkKeys     = "archive:{*}:*"
	SnapshotKeys  = "followers:{*}:job:*"
)

// FollowersOf returns the id of the user whose followers key holds.
func FollowersOf(key string) (int64, bool) { return ownerOf("followers:", key) }

// GraphOf returns the id of the user whose part of the graph key is.
func GraphOf(key string) (int64, bool) { return ownerOf("graph:", key) }

// SnapshotOf returns the author and the job of a delivery snapshot key.
func SnapshotOf(key string) (author int64, job string, ok bool) {
	owner, job, found := strings.Cut(key, ":job:")
	author, ok = FollowersOf(owner)
	return author, job, ok && found
}

// CheckState is the progress of walk n of the check of kind, for the
// checks of scope: master address -> SCAN cursor, as ReindexState.
func CheckState(scope, kind string, n int) string {
	return "check:" + scope + ":" + kind + ":" + strconv.Itoa(n)
}

// CheckRotation is the list of the kinds of index that the background
// check takes in turn, rotated (LMOVE from head to tail) at each turn.
const CheckRotation = "check:rotation"

// PostKeys is the SCAN pattern of the post hashes.
const PostKeys = "post:*"

// PostOf returns the id of the post whose hash is key.
func PostOf(key string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(key, "post:"), 10, 64)
	return n, err == nil && strings.HasPrefix(key, "post:")
}

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

// EditIdempotency remembers, for a day, that author edited post pid with
// an idempotency key, so that the edit sent again is applied once.
func EditIdempotency(author, pid int64, key string) string {
	return "idempotency:" + tag(author) + ":edit:" + id(pid) + ":" + key
}

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

// Tag is the index of the posts with a tag, by its folded form (see
// retwis.FoldTag): post ids scored by id. Each tag's keys share the slot
// of the tag.
func Tag(folded string) string { return "tag:{" + folded + "}" }

// TagDays is the composite index of a tag's posts by day: members
// "<YYYYMMDD>:<post id, 16 digits>" all scored 0, so that a day's posts
// are a lexicographic range, in post order (the seed's composite index
// with numerical padding), and ZLEXCOUNT counts them.
func TagDays(folded string) string { return Tag(folded) + ":days" }

// TagAuthors is a HyperLogLog of the authors of a tag's posts on day
// (as Day spells it), for the accounts of the Tag's history; it expires
// TagAuthorsDays after the day began.
func TagAuthors(folded, day string) string { return Tag(folded) + ":authors:" + day }

// TagAuthorsDays is how many days a TagAuthors key lives after its
// day began: a week of history and the day under way.
const TagAuthorsDays = 8

// TagInfo is a hash about a tag: FieldTagName, the tag as first written.
func TagInfo(folded string) string { return Tag(folded) + ":info" }

// FieldTagName is the field of TagInfo that holds the tag as first
// written.
const FieldTagName = "name"

// TagFollowers holds the users who follow a tag (by its folded form):
// user ids scored by the unix time in microseconds of the follow, in the
// tag's slot, so that a post's delivery reads a tag's followers from one
// key; the reverse of TagsFollowed. It does not begin as Tag does, so
// that the walks of TagKeys (the tag's posts) do not take it for one.
func TagFollowers(folded string) string { return "tag_followers:{" + folded + "}" }

// TagsFollowedKeys and TagFollowersKeys match the keys of TagsFollowed
// and TagFollowers, for a check; TagsFollowedOf and TagFollowersOf tell
// whose they are.
const (
	TagsFollowedKeys = "tags_followed:{*}"
	TagFollowersKeys = "tag_followers:{*}"
)

// TagsFollowedOf returns the user whose TagsFollowed key is key.
func TagsFollowedOf(key string) (int64, bool) { return ownerOf("tags_followed:", key) }

// TagFollowersOf returns the folded tag whose TagFollowers key is key.
func TagFollowersOf(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "tag_followers:{")
	folded, closed := strings.CutSuffix(rest, "}")
	return folded, ok && closed && folded != ""
}

// TagsFollowed holds the tags user uid follows: folded tags scored by
// the unix time in microseconds of the follow (the id of the follow in
// the client API's paging).
func TagsFollowed(uid int64) string { return "tags_followed:" + tag(uid) }

// TagDay returns the member of TagDays for post pid, posted at unix
// time ts.
func TagDay(ts, pid int64) string { return fmt.Sprintf("%s:%016d", Day(time.Unix(ts, 0)), pid) }

// Day spells the day (UTC) of t as TagDays does.
func Day(t time.Time) string { return t.UTC().Format("20060102") }

// Mentions is the index of the posts that mention uid: post ids scored
// by id.
func Mentions(uid int64) string { return "mentions:" + tag(uid) }

// Direct is the index of the direct posts uid wrote or is mentioned in
// (their Direct page): post ids scored by id.
func Direct(uid int64) string { return "direct:" + tag(uid) }

// Conversations is uid's list of direct conversations (their Direct
// page): conversation ids (the root of the post's thread, see
// index.ConversationOf) scored by the id of their newest post, so
// newest activity first. A conversation the user deleted is gone from
// it until a later post brings it back.
func Conversations(uid int64) string { return "conversations:" + tag(uid) }

// ConversationsRead holds how far uid read each conversation: ids
// scored by the newest post read; a conversation is unread while its
// score in Conversations is higher.
func ConversationsRead(uid int64) string { return "conversations_read:" + tag(uid) }

// Conversation holds the direct posts of conversation conv in uid's
// list, post ids scored by id, in uid's slot: the newest is the one the
// list shows.
func Conversation(uid, conv int64) string { return "conversation:" + tag(uid) + ":" + id(conv) }

// ConversationsKeys and ConversationKeys are the SCAN patterns of the
// users' Conversations and of their Conversation sets.
const (
	ConversationsKeys = "conversations:{*}"
	ConversationKeys  = "conversation:{*}:*"
)

// ConversationsOf returns the user whose Conversations key is key.
func ConversationsOf(key string) (int64, bool) { return ownerOf("conversations:", key) }

// ConversationOf returns the user and the conversation of a
// Conversation key.
func ConversationOf(key string) (uid, conv int64, ok bool) {
	owner, c, found := strings.Cut(strings.TrimPrefix(key, "conversation:"), "}:")
	uid, err1 := strconv.ParseInt(strings.TrimPrefix(owner, "{"), 10, 64)
	conv, err2 := strconv.ParseInt(c, 10, 64)
	return uid, conv, found && strings.HasPrefix(key, "conversation:{") && err1 == nil && err2 == nil
}

// Notifications holds uid's newest notifications, scored by unix ms:
// members "follow:<actor>", "mention:<actor>:<post>", "reply:<actor>:<post>",
// "update:<actor>:<post>" (one per post however often edited, scored
// by the last edit), "favourite:<actor>:<post>".
func Notifications(uid int64) string { return "notifications:" + tag(uid) }

// Markers is the hash of uid's positions in their timelines, as the
// client API's markers tell them: for each of MarkerHome and
// MarkerNotifications, the id last read, the version of the position
// (counting its saves) and when it was saved (unix ms), in the fields
// MarkerFields names. The position in the notifications is the same fact
// as FieldNotified of the user hash, written with it (index.MarkerCmds).
func Markers(uid int64) string { return "markers:" + tag(uid) }

// The timelines a user has a marker in.
const (
	MarkerHome          = "home"
	MarkerNotifications = "notifications"
)

// MarkerFields returns the fields of a Markers hash that hold the
// marker of timeline: the id last read, the version, when saved.
func MarkerFields(timeline string) (id, version, at string) {
	return timeline, timeline + ":version", timeline + ":at"
}

// Filters is the hash of uid's filters (the client API's filters v2, the
// pages' too): FieldFiltersDoc, the whole list as JSON, and
// FieldFiltersVersion, counting its writes, which a write compares so
// that two at once lose neither (internal/store/filters).
func Filters(uid int64) string { return "filters:" + tag(uid) }

// FiltersOf returns the user whose Filters key is key.
func FiltersOf(key string) (int64, bool) { return ownerOf("filters:", key) }

// FieldFiltered of the user hash is "1" once the user made a filter:
// only then do the lists they read read their Filters.
const FieldFiltered = "filtered"

// Fields of a Filters hash.
const (
	FieldFiltersDoc     = "doc"
	FieldFiltersVersion = "version"
)

// NotificationPolicy is the hash of uid's notification policy: for each
// of the PolicyFields, "accept", "filter" or "drop" (absent: accept).
func NotificationPolicy(uid int64) string { return "notification_policy:" + tag(uid) }

// DomainBlocks is the sorted set of the domains uid blocked (Mastodon's
// user-level domain blocks), each scored by when, in unix ms.
func DomainBlocks(uid int64) string { return "domain_blocks:" + tag(uid) }

// PolicyFields are the fields of a NotificationPolicy hash, as
// Mastodon's NotificationPolicy entity names them.
var PolicyFields = []string{"for_not_following", "for_not_followers", "for_new_accounts", "for_private_mentions", "for_limited_accounts"}

// Kinds of notification, as their members begin.
const (
	NoteFollow    = "follow"
	NoteMention   = "mention"
	NoteReply     = "reply"
	NoteUpdate    = "update"
	NoteFavourite = "favourite" // "favourite:<actor>:<post>", once however often it is toggled
	NoteReblog    = "reblog"    // of the post boosted, by its booster
)

// NotificationsCap is how many notifications a user keeps.
const NotificationsCap = 200

// Note returns a member of Notifications; pid is 0 for a follow.
func Note(kind string, actor, pid int64) string {
	if pid == 0 {
		return kind + ":" + id(actor)
	}
	return kind + ":" + id(actor) + ":" + id(pid)
}

// Replies is the index of the replies to post pid: post ids scored by id.
func Replies(pid int64) string { return "replies:{" + id(pid) + "}" }

// Counts is the hash of the counts of post pid's interactions
// (FieldFavourites, FieldReblogs), in the slot of Replies.
func Counts(pid int64) string { return "counts:{" + id(pid) + "}" }

// CountsOf returns the post whose Counts key is key.
func CountsOf(key string) (int64, bool) { return ownerOf("counts:", key) }

// Fields of a post's Counts.
const (
	FieldFavourites = "favourites" // how many accounts favourited it
	FieldReblogs    = "reblogs"    // how many boosts it has
)

// FavouritedBy holds who favourited post pid: user ids scored by unix
// ms, in the slot of Replies. A user's Favourites are the truth, which
// the delivery worker copies here (see JobFavourite).
func FavouritedBy(pid int64) string { return "favourited_by:{" + id(pid) + "}" }

// Favourites holds the posts uid favourited: post ids scored by unix
// ms (each 1 ms after the one before, at least: see kernel.MarkAdd), in
// the user's slot; what the Favourites page lists, newest first.
func Favourites(uid int64) string { return "favourites:" + tag(uid) }

// Bookmarks holds the posts uid bookmarked, as Favourites.
func Bookmarks(uid int64) string { return "bookmarks:" + tag(uid) }

// Pins holds the posts uid pinned to the top of their profile (at most
// MaxPins of their own), as Favourites.
func Pins(uid int64) string { return "pins:" + tag(uid) }

// MaxPins is how many posts one user may pin.
const MaxPins = 5

// FavouritedByKeys is the SCAN pattern of the FavouritedBy sets.
const FavouritedByKeys = "favourited_by:{*}"

// FavouritesKeys is the SCAN pattern of the users' Favourites.
const FavouritesKeys = "favourites:{*}"

// FavouritesOf returns the user whose Favourites key is key.
func FavouritesOf(key string) (int64, bool) { return ownerOf("favourites:", key) }

// FavouritedByOf returns the post whose FavouritedBy key is key.
func FavouritedByOf(key string) (int64, bool) { return ownerOf("favourited_by:", key) }

// RebloggedBy is who boosted post pid: user ids scored by the unix ms of
// the boost, in the slot of Replies(pid).
func RebloggedBy(pid int64) string { return "reblogged_by:{" + id(pid) + "}" }

// Boosts is what uid boosted: a hash of the boosted post's id to the
// boost's.
func Boosts(uid int64) string { return "boosts:" + tag(uid) }

// BoostsKeys and RebloggedByKeys are the SCAN patterns of Boosts and
// RebloggedBy.
const (
	BoostsKeys      = "boosts:{*}"
	RebloggedByKeys = "reblogged_by:{*}"
)

// BoostsOf returns the user whose Boosts key is key.
func BoostsOf(key string) (int64, bool) { return ownerOf("boosts:", key) }

// RebloggedByOf returns the post whose RebloggedBy key is key.
func RebloggedByOf(key string) (int64, bool) { return ownerOf("reblogged_by:", key) }

// HomeBoosts is which boosts uid's home timeline got: the boosted posts'
// ids scored by the id of the boost that got there first, the newest
// kept as many as the home timeline's entries.
func HomeBoosts(uid int64) string { return "home_boosts:" + tag(uid) }

// TrendShards is how many sorted sets the tag trends are spread over, by
// tag, so that no one key takes a write of every tagged post on a
// cluster; the trending tags read all of them.
const TrendShards = 16

// Trends is shard n of the tag trends: folded tags, each scored by the
// sum over its posts of 2^((post time - epoch) / half-life), the epoch
// being the unix time in TrendEpoch of the same slot: a decayed count,
// kept without rewriting the scores as time passes.
func Trends(n int) string { return fmt.Sprintf("trends:{%02x}", n) }

// TrendEpoch holds the epoch of shard n of the trends.
func TrendEpoch(n int) string { return Trends(n) + ":epoch" }

// TrendsOf returns the shard of the trends that holds folded.
func TrendsOf(folded string) int { return int(fnv32(folded) % TrendShards) }

// StatusTrends is shard n (of TrendShards) of the trending posts: post
// ids, each scored as a tag of Trends is, by the sum over the replies,
// favourites and boosts it got of 2^((their time - epoch) / half-life),
// the epoch in StatusTrendEpoch of the same slot.
func StatusTrends(n int) string { return fmt.Sprintf("trends:statuses:{%02x}", n) }

// StatusTrendEpoch holds the epoch of shard n of the trending posts.
func StatusTrendEpoch(n int) string { return StatusTrends(n) + ":epoch" }

// StatusTrendsOf returns the shard of the trending posts that holds post
// pid.
func StatusTrendsOf(pid int64) int { return int(pid % TrendShards) }

// CompletionShards is how many lexicographic indexes the tag completion
// is spread over: by the tag's first letter, so that a prefix is in one.
const CompletionShards = 16

// Completion is shard n of the tag completion index: members
// "<folded>:<count>:<tag as first written>", all scored 0 (the seed's
// normalized:frequency:original).
func Completion(n int) string { return fmt.Sprintf("tags:complete:{%02x}", n) }

// CompletionOf returns the shard of the completion index that holds the
// folded tags beginning as prefix does (a non-empty folded prefix).
func CompletionOf(prefix string) int {
	r, _ := utf8.DecodeRuneInString(prefix)
	return int(fnv32(string(r)) % CompletionShards)
}

// Graph is user uid's part of the hexastore of relations between users
// (the seed's permutations of subject, predicate, object, cut by user so
// that each query reads one slot): "spo:<uid>:<rel>:<object>" for the
// triples whose subject uid is, "ops:<uid>:<rel>:<subject>" for those
// whose object it is, members of one lexicographic index scored 0. Of
// the other four, the two that begin with the predicate would be one key
// that every follow writes, and the two that put the other user second
// ("sop", "osp": what links two users) are answered by asking for the
// few relations there are: all four would cost memory on every follow
// for nothing a page asks.
func Graph(uid int64) string { return "graph:" + tag(uid) }

// Suggestions is the list of users to follow computed for user uid from
// the graph, kept a while: "<user id>:<followed by>" separated by
// commas, with an expiry; removed when uid follows or unfollows.
func Suggestions(uid int64) string { return "suggestions:" + tag(uid) }

// SuggestionsDismissed holds the users uid dismissed from its users to
// follow, for good: user ids scored by the unix time of the dismissal,
// the newest MaxDismissed kept.
func SuggestionsDismissed(uid int64) string { return "suggestions_dismissed:" + tag(uid) }

// MaxDismissed bounds the users a user's SuggestionsDismissed keeps.
const MaxDismissed = 1000

// Relations between users, the predicates of the graph.
const (
	RelFollows  = "follows"  // the subject follows the object
	RelMentions = "mentions" // the subject mentioned the object in a post
	RelReplies  = "replies"  // the subject replied to a post of the object
)

// GraphEdge returns the members that record the triple (subject, rel,
// object): that of the subject's graph and that of the object's.
func GraphEdge(subject int64, rel string, object int64) (ofSubject, ofObject string) {
	return GraphPrefix("spo", subject, rel) + id(object), GraphPrefix("ops", object, rel) + id(subject)
}

// GraphTwin returns, for a member of a user's part of the graph, the
// key of the other user's part and the member there that records the
// same triple; ok is false for a member that is not one.
func GraphTwin(member string) (key, twin string, ok bool) {
	parts := strings.Split(member, ":")
	if len(parts) != 4 {
		return "", "", false
	}
	self, err1 := strconv.ParseInt(parts[1], 10, 64)
	other, err2 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil {
		return "", "", false
	}
	switch parts[0] {
	case "spo":
		_, twin = GraphEdge(self, parts[2], other)
	case "ops":
		twin, _ = GraphEdge(other, parts[2], self)
	default:
		return "", "", false
	}
	return Graph(other), twin, true
}

// GraphPrefix returns the prefix of a lexicographic range of user uid's
// graph: perm is the permutation ("spo" or "ops") and rel the relation,
// so that the range holds the other users.
func GraphPrefix(perm string, uid int64, rel string) string {
	return perm + ":" + id(uid) + ":" + rel + ":"
}

// People is shard n of the people search index: members "<term>:<user
// id>" (the terms of retwis.SearchTerms), all scored 0, a lexicographic
// index ranked by follower count when read.
func People(n int) string { return fmt.Sprintf("people:{%02x}", n) }

// PeopleOf returns the shard of the people index that holds the terms
// beginning as prefix does (a non-empty folded prefix), by its first
// letter as CompletionOf.
func PeopleOf(prefix string) int { return CompletionOf(prefix) }

// PeopleEntry returns the member of the people index for user uid found
// by term, and PeopleEntryOf reads one back.
func PeopleEntry(term string, uid int64) string { return term + ":" + id(uid) }

// PeopleEntryOf returns the term and the user id of a member of the
// people index.
func PeopleEntryOf(member string) (term string, uid int64, ok bool) {
	i := strings.LastIndexByte(member, ':')
	if i < 0 {
		return "", 0, false
	}
	uid, err := strconv.ParseInt(member[i+1:], 10, 64)
	return member[:i], uid, err == nil
}

// Explore is the directory of accounts, a multi-dimensional index: user
// ids scored by the Z-order code (internal/zorder) of their follower
// count, posts in the last seven days and day of sign-up, so that a box
// of the three is a few ranges of scores. One key, as the global
// timeline: every post and follow writes it, with one command.
const Explore = "explore"

// UsersByActivity is the sorted set of users (ids) scored by the id of
// their newest post (ids grow with time), written with their entries in Explore: the
// client API's directory, most recently active first.
const UsersByActivity = "users_by_activity"

// ExploreStale is the set of the users whose entries in Explore await a
// refresh: each delivery adds the authors of its posts (one SADD in the
// pipeline of their indexes), and maintenance refreshes them, so that an
// author who posts often is refreshed once a round.
const ExploreStale = "explore:stale"

// ReindexState records, per master (its address), how far the indexing
// of the posts written before version 4 has got: a SCAN cursor, or
// "done"; and FieldReindexSince, when the migration asked for it.
const ReindexState = "reindex:posts"

// GraphReindexState records likewise how far the entering of the
// follows made before version 6 in the graph has got.
const GraphReindexState = "reindex:graph"

// PeopleReindexState records likewise how far the entering of the users
// written before version 5 in the people search has got.
const PeopleReindexState = "reindex:people"

// ExploreReindexState records likewise how far the entering of the
// users written before version 7 in the directory has got.
const ExploreReindexState = "reindex:explore"

// ActivityReindexState records likewise how far the entering of the
// users registered before version 9 in UsersByActivity has got.
const ActivityReindexState = "reindex:activity"

// AuthorsReindexState records likewise how far the copying of their
// authors' usernames into the posts written before version 8 has got.
const AuthorsReindexState = "reindex:authors"

// ConversationsReindexState records likewise how far the entering of
// the direct posts written before version 8 in their conversations has
// got (a walk of the Direct indexes).
const ConversationsReindexState = "reindex:conversations"

// FieldReindexSince is the field of ReindexState that the migration
// writes (unix time), so that the indexing starts.
const FieldReindexSince = "since"

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// Version is the layout version this package describes. Version 1 adds
// the own-post indexes to the tutorial's layout; version 2 the per-user
// sets of followed celebrities; version 3 spreads the indexes that every
// request shared (names, auth secrets, the delivery queue) over shards,
// folds the last-seen times and the celebrities into the user hashes,
// and tags each user's keys with the user id, so that they share a slot;
// version 4 indexes posts by tag, mention and reply (the posts written
// before are indexed in the background, see ReindexState); version 5
// adds the people search (the users are entered in the background, see
// PeopleReindexState); version 6 the graph of relations between users
// (the follows are entered in the background, see GraphReindexState);
// version 7 the directory of accounts, Explore (the users are entered in
// the background, see ExploreReindexState); version 8 copies into the
// posts written before posts kept it their author's username, so that
// pages read no user hash to name them, and adds the direct
// conversations (both in the background, see AuthorsReindexState and
// ConversationsReindexState); version 9 orders the users by their newest
// post, UsersByActivity (the users are entered in the background, see
// ActivityReindexState).
const Version = 9

// Kinds of delivery job on the deliveries stream.
const (
	JobDeliver   = "deliver"   // put a post on the global timeline and its author's followers' timelines
	JobUndeliver = "undeliver" // take a deleted post off them
	JobCelebrate = "celebrate" // note in every follower's set that the author is a celebrity
	JobEdit      = "edit"      // make an edited post's indexes follow its text
	JobFavourite = "favourite" // bring a post's favourites in line with the mark of the user in author (see FavouritedBy)
	JobBoost     = "boost"     // count a boost and put it on its booster's followers' timelines
	JobUnboost   = "unboost"   // take a deleted boost off them and out of its post's count
	JobUnboosts  = "unboosts"  // delete every boost of a deleted post
)

// FollowChange is the member of a shard's Follows that records a follow
// or unfollow of followee by follower under way, begun at unix
// nanoseconds at (which tells apart two changes of the same pair).
func FollowChange(follower, followee, at int64) string {
	return id(follower) + ":" + id(followee) + ":" + strconv.FormatInt(at, 10)
}

// FollowChangeOf returns the follower and followee of a member of a
// shard's Follows; ok is false for a member that is not one.
func FollowChangeOf(member string) (follower, followee int64, ok bool) {
	parts := strings.Split(member, ":")
	if len(parts) != 3 {
		return 0, 0, false
	}
	a, err1 := strconv.ParseInt(parts[0], 10, 64)
	b, err2 := strconv.ParseInt(parts[1], 10, 64)
	return a, b, err1 == nil && err2 == nil
}

// Unpublished is the member of a shard's Unpublish that records that
// post pid of author failed to publish and is to be taken back.
func Unpublished(pid, author int64) string { return id(pid) + ":" + id(author) }

// UnpublishedOf returns the post and author of a member of a shard's
// Unpublish; ok is false for a member that is not one.
func UnpublishedOf(member string) (pid, author int64, ok bool) {
	p, a, found := strings.Cut(member, ":")
	pid, err1 := strconv.ParseInt(p, 10, 64)
	author, err2 := strconv.ParseInt(a, 10, 64)
	return pid, author, found && err1 == nil && err2 == nil
}

// Job returns the XADD that records a delivery job on shard q of the
// queue; pid is 0 for a celebrate job.
func Job(b rueidis.Builder, q Queue, kind string, pid, author int64) rueidis.Completed {
	return b.Xadd().Key(q.Stream).Id("*").FieldValue().
		FieldValue(JobKind, kind).FieldValue(JobPost, id(pid)).FieldValue(JobAuthor, id(author)).Build()
}

// BoostJob returns the XADD that records a job about boost pid of
// booster (JobBoost, JobUnboost) on shard q of the queue: of is the post
// it boosts.
func BoostJob(b rueidis.Builder, q Queue, kind string, pid, booster, of int64) rueidis.Completed {
	return b.Xadd().Key(q.Stream).Id("*").FieldValue().FieldValue(JobKind, kind).
		FieldValue(JobPost, id(pid)).FieldValue(JobAuthor, id(booster)).FieldValue(JobOf, id(of)).Build()
}

// BoostRecord returns the XADD that records on RecentBoosts (cut to
// about RecentBoostsCap entries) that booster made boost pid of post of
// (kind JobBoost) or took it back (JobUnboost): the fields of its job,
// in a slot other than the queue's, so that a failover that loses the
// job keeps the record.
func BoostRecord(b rueidis.Builder, kind string, pid, booster, of int64) rueidis.Completed {
	return b.Xadd().Key(RecentBoosts).Maxlen().Almost().Threshold(strconv.Itoa(RecentBoostsCap)).Id("*").FieldValue().
		FieldValue(JobKind, kind).FieldValue(JobPost, id(pid)).FieldValue(JobAuthor, id(booster)).FieldValue(JobOf, id(of)).Build()
}

// JobValid reports whether a job read from the queue makes sense (of:
// the JobOf field, 0 if none).
func JobValid(kind string, pid, author, of int64) bool {
	switch kind {
	case JobBoost, JobUnboost:
		return pid > 0 && author > 0 && of > 0
	case JobDeliver, JobUndeliver, JobEdit, JobFavourite, JobUnboosts:
		return pid > 0 && author > 0
	case JobCelebrate:
		return author > 0
	}
	return false
}

// MaintenanceLock is the name of the distributed lock under which one
// server at a time does the database's upkeep (Maintain). Redlock keeps
// it in the keys "retwis:maintenance" and "{retwis:maintenance}:fence"
// of the lock servers, or on a cluster in "{<tag>}retwis:maintenance"
// and its ":fence" for each of the tags redlock.NewOnCluster spreads
// over the slots (see the table in doc.go).
const MaintenanceLock = "retwis:maintenance"

// WorkerLock is the name of the distributed lock that leases id worker
// number n to one server (see internal/snowflake): the keys
// "retwis:worker:<n>" and "{retwis:worker:<n>}:fence" of the lock
// servers.
func WorkerLock(n int) string { return "retwis:worker:" + strconv.Itoa(n) }

// App is the hash of the API client app with the given client id: its
// fields below, the client secret only as its SHA-256.
func App(clientID string) string { return "app:{" + clientID + "}" }

// Fields of an App hash.
const (
	FieldAppName      = "name"
	FieldAppWebsite   = "website"
	FieldAppRedirects = "redirect_uris" // separated by newlines
	FieldAppScopes    = "scopes"        // separated by spaces
	FieldAppSecret    = "secret"        // SHA-256 of the client secret, hex
	FieldAppCreated   = "created"       // unix time
)

// OAuthCode is the grant waiting for the authorization code whose SHA-256
// (hex) is hash: JSON, expiring, taken once with GETDEL.
func OAuthCode(hash string) string { return "oauth_code:{" + hash + "}" }

// Tokens holds uid's API access tokens (uid 0: apps' own tokens): the
// SHA-256 (hex) of each token's secret -> its JSON record.
func Tokens(uid int64) string { return "tokens:" + tag(uid) }

// TokensUsed holds, in the slot of Tokens, when each of uid's tokens
// was last used (unix time), apart so that recording a use does not
// invalidate the cached records.
func TokensUsed(uid int64) string { return "tokens_used:" + tag(uid) }

// Sessions holds uid's sessions (the logins of the pages, one per
// device): the SHA-256 (hex) of each session's secret -> its JSON
// record, in the user's slot, so that authentication reads one slot.
func Sessions(uid int64) string { return "sessions:" + tag(uid) }

// UserStream is the sharded pub/sub channel of uid's live events, in
// the user's slot: the posts delivered to uid's home timeline and uid's
// notifications. Its messages are "<event>:<id>" (Event…).
func UserStream(uid int64) string { return "stream:" + tag(uid) }

// TagStream is the channel of the live events of the tag whose folded
// form is folded, in the slot of the tag's keys.
func TagStream(folded string) string { return "stream:" + Tag(folded) }

// PublicStream is the channel of every new post and deletion.
const PublicStream = "stream:{public}"

// Revocations is the channel on which every server hears of access
// taken away (a token revoked, sessions ended), so that it ends the
// live streams that access opened. Its messages are RevocationEvent's.
const Revocations = "stream:{revocations}"

// The events of a stream, as its messages begin.
const (
	EventUpdate       = "update"        // "update:<post id>"
	EventDelete       = "delete"        // "delete:<post id>"
	EventEdit         = "status.update" // "status.update:<post id>:<unix ms of the edit>"
	EventNotification = "notification"  // "notification:<score>:<member of Notifications>"
	EventRevoke       = "revoke"        // "revoke:<what>:<user id>:<token or session id>"
)

// RevocationEvent is the message, on Revocations, that uid's access
// named what ("token", "tokens", "session", "sessions") and the token's
// or session's ID (as Tokens and Sessions hold them; "" for none) ended.
func RevocationEvent(what string, uid int64, ref string) string {
	return EventRevoke + ":" + what + ":" + id(uid) + ":" + ref
}

// PostEvent is the message of an update or delete event of post pid.
func PostEvent(kind string, pid int64) string { return kind + ":" + id(pid) }

// EditEvent is the message of the edit of post pid made at unix ms at.
func EditEvent(pid, at int64) string {
	return EventEdit + ":" + id(pid) + ":" + strconv.FormatInt(at, 10)
}

// NoteEvent is the message of the notification note made at unix ms at.
func NoteEvent(at int64, note string) string {
	return EventNotification + ":" + strconv.FormatInt(at, 10) + ":" + note
}

// RateLimit is the state of the rate limit of a subject (what is
// limited, and whose: "login:addr:<address>", "post:<user id>"…): the
// theoretical arrival time of its next action, unix ms (GCRA),
// expiring when it falls behind the clock. One key, so one slot, per
// subject.
func RateLimit(subject string) string { return "ratelimit:{" + subject + "}" }

// The subjects of the rate limits, for RateLimit.
func LoginAddrLimit(addr string) string      { return "login:addr:" + addr }
func LoginAccountLimit(folded string) string { return "login:user:" + folded }
func LoginDeviceLimit(device string) string  { return "login:device:" + device }
func SignupAddrLimit(addr string) string     { return "signup:addr:" + addr }
func PostLimit(uid int64) string             { return "post:" + id(uid) }
func FollowLimit(uid int64) string           { return "follow:" + id(uid) }
func ActionLimit(uid int64) string           { return "action:" + id(uid) }
func APITokenLimit(token string) string      { return "api:token:" + token }
func APIAddrLimit(addr string) string        { return "api:addr:" + addr }

// DeviceKey holds the key (random, base64url) with which the servers
// sign and check device cookies: made by the first server that needs
// it; deleting it forgets every device.
const DeviceKey = "device_key"

// LoginFailures holds the times (unix ms) of the failed logins to uid's
// account since its last login, newest first (the newest
// LoginFailuresKept), expiring a day after the last.
func LoginFailures(uid int64) string { return "login_failures:" + tag(uid) }

// LoginNotice holds the failures of LoginFailures that the owner has not
// been told of yet: moved there by their next login, shown (and
// removed) by their home page; it expires after a week.
func LoginNotice(uid int64) string { return "login_notice:" + tag(uid) }

// LoginFailuresKept is how many failed logins an account keeps.
const LoginFailuresKept = 20

// Blocks holds the users uid blocked: user id scored by the unix time of
// the block.
func Blocks(uid int64) string { return "blocks:" + tag(uid) }

// Mutes holds the users uid muted, as Blocks.
func Mutes(uid int64) string { return "mutes:" + tag(uid) }

// Notes holds uid's private notes about accounts: account id -> the
// note.
func Notes(uid int64) string { return "notes:" + tag(uid) }

// FeaturedTags holds the tags uid features on its profile: folded tags
// scored by the unix time in microseconds they were featured (their id).
func FeaturedTags(uid int64) string { return "featured_tags:" + tag(uid) }

// BlockedBy holds the users who blocked uid, scored as in Blocks, in
// uid's slot, so that whatever uid reads is filtered with keys of uid's
// slot alone.
func BlockedBy(uid int64) string { return "blocked_by:" + tag(uid) }

// BlocksKeys and BlockedByKeys match the keys of Blocks and BlockedBy,
// for a check; BlocksOf and BlockedByOf tell whose they are.
const (
	BlocksKeys    = "blocks:{*}"
	BlockedByKeys = "blocked_by:{*}"
)

// BlocksOf returns the user whose Blocks key is key.
func BlocksOf(key string) (int64, bool) { return ownerOf("blocks:", key) }

// BlockedByOf returns the user whose BlockedBy key is key.
func BlockedByOf(key string) (int64, bool) { return ownerOf("blocked_by:", key) }

// Suspended holds the ids of suspended accounts, whose posts nobody
// sees: one key, read through the client-side cache with every page.
const Suspended = "suspended"

// Fields of the user hash for moderation.
const (
	FieldSuspended = "suspended" // unix time the account was suspended, while it is
	FieldRole      = "role"      // RoleModerator, or absent
)

// RoleModerator is the role of a moderator in FieldRole.
const RoleModerator = "moderator"

// Audit is the stream of moderators' and operators' actions: one entry
// per action, with the fields Field…Audit, trimmed to about AuditKept.
const Audit = "audit"

// AuditKept is about how many actions Audit keeps.
const AuditKept = 100000

// Fields of an entry of Audit.
const (
	FieldAuditActor  = "actor"  // "@<username>" of a moderator, or "cli:<os user>"
	FieldAuditAction = "action" // a retwis.Action: suspend, unsuspend, grant-moderator, revoke-moderator, delete-post, close-report
	FieldAuditTarget = "target" // "@<username>", "post <id>" or "report <id>"
	FieldAuditReason = "reason" // optional
)

// Reports is the stream of open reports, trimmed to about ReportsKept:
// one entry per report, with the fields Field…Report; closing a report
// deletes its entry (the audit log keeps it).
const (
	Reports     = "reports"
	ReportsKept = 10000
)

// Fields of an entry of Reports.
const (
	FieldReportBy     = "by"     // the reporter's user id
	FieldReportUser   = "user"   // the reported user's id
	FieldReportPost   = "post"   // the reported posts' ids, comma-separated (up to retwis.MaxReportedPosts), or absent
	FieldReportReason = "reason" // what the reporter wrote
)

// ReportLimit is the rate-limit subject of uid's reports.
func ReportLimit(uid int64) string { return "report:" + id(uid) }

// NameReserved is the reservation of a name after its account was
// deleted: a string holding the deleted user's id, expiring when the
// name may be registered again. It lives in the slot of the name's shard
// of the name indexes (Names), so that one script claims a name and
// checks its reservation at once.
func NameReserved(name string) string {
	return Names(name) + ":reserved:" + retwis.FoldUsername(name)
}

// Deleting is the state of the deletion of uid's account, a hash (the
// Field… below) in the user's slot: it marks the account as being
// deleted until every trace of it is gone.
func Deleting(uid int64) string { return "deleting:" + tag(uid) }

// DeletingLease is the lease of the deletion of uid's account to one
// runner: a random token, expiring unless the runner renews it, so that
// a runner that dies leaves the deletion to another.
func DeletingLease(uid int64) string { return Deleting(uid) + ":lease" }

// Deletions is the sorted set of the accounts being deleted: user ids
// scored by the unix time the deletion began, for maintenance to resume
// those whose runner died.
const Deletions = "deletions"

// Fields of a Deleting hash.
const (
	FieldDelUsername  = "username"     // the account's username
	FieldDelDisplay   = "display_name" // its display name, if any: the terms of the people search it is found by
	FieldDelCelebrity = "celebrity"    // "1" if its posts were not fanned out
	FieldDelPosts     = "posts"        // how many posts it had when the deletion began
	FieldDelFollows   = "follows"      // how many follows, both ways, likewise
	FieldDelBegun     = "begun"        // unix time the deletion began
	FieldDelBatch     = "batch"        // the batch of posts being deleted: JSON, their ids and fields
	FieldDelCounted   = "counted"      // "1" once that batch's tag counts were taken back
)

// Rules is the hash of the instance's rules, which the operator sets
// (retwis admin rules): rule id -> JSON (text, hint), ids from
// NextRuleID; shown on the sign-up page and to the client API.
const (
	Rules      = "instance:{rules}"
	NextRuleID = "instance:{rules}:next_id"
)

// The instance's activity: the posts published and the sign-ups of
// each week, counted in ActivityWeek's hash (fields FieldActivity…), and
// the users active that week (who logged in, signed up or published) in
// ActivityUsers's HyperLogLog, as Mastodon counts its logins. All the
// keys share one slot, so that one PFCOUNT reads several weeks; a
// week's hash expires after ActivityKept, its HyperLogLog after
// ActivityUsersKept (half a year, for nodeinfo's active users).
// ActivityTotal's hash keeps the counts since counting began.
const (
	FieldActivityStatuses      = "statuses"
	FieldActivityRegistrations = "registrations"
	ActivityTotal              = "activity:{instance}:total"
	ActivityKept               = 13 * 7 * 24 * time.Hour
	ActivityUsersKept          = 27 * 7 * 24 * time.Hour
)

// Week returns the unix time of the start of the week (Monday 00:00
// UTC) that holds t, which names the week's activity keys.
func Week(t time.Time) int64 {
	t = t.UTC()
	day := t.Truncate(24 * time.Hour)
	return day.AddDate(0, 0, -(int(day.Weekday())+6)%7).Unix()
}

// ActivityWeek is the hash of the counts of the week that begins at
// unix time week (see Week): FieldActivity… -> count.
func ActivityWeek(week int64) string { return "activity:{instance}:" + id(week) }

// ActivityUsers is the HyperLogLog of the ids of the users who logged
// in, signed up or published in the week that begins at week.
func ActivityUsers(week int64) string { return ActivityWeek(week) + ":users" }

// NextListID is the counter of list ids when the store has no id
// generator (kernel.DB.NewID).
const NextListID = "next_list_id"

// Lists is the sorted set of uid's lists: their ids, scored by id.
func Lists(uid int64) string { return "lists:" + tag(uid) }

// List is the hash of uid's list lid: FieldListTitle and
// FieldListReplies.
func List(uid, lid int64) string { return "list:" + tag(uid) + ":" + id(lid) }

// Fields of a List hash.
const (
	FieldListTitle   = "title"
	FieldListReplies = "replies_policy" // followed, list or none
)

// ListMembers is the set of the accounts in uid's list lid.
func ListMembers(uid, lid int64) string { return List(uid, lid) + ":members" }

// ListPosts is the timeline of uid's list lid: the post ids its members'
// deliveries pushed, scored by id, capped.
func ListPosts(uid, lid int64) string { return List(uid, lid) + ":posts" }

// Listed is the set of the lists that hold uid, each ListedMember: the
// reverse index of ListMembers, in uid's slot, which the delivery of
// uid's posts reads.
func Listed(uid int64) string { return "listed:" + tag(uid) }

// ListedMember is the member of a Listed set that stands for owner's
// list lid.
func ListedMember(owner, lid int64) string { return id(owner) + ":" + id(lid) }

// ParseListedMember returns the owner and list of a ListedMember.
func ParseListedMember(m string) (owner, lid int64, ok bool) {
	o, l, found := strings.Cut(m, ":")
	owner, err1 := strconv.ParseInt(o, 10, 64)
	lid, err2 := strconv.ParseInt(l, 10, 64)
	return owner, lid, found && err1 == nil && err2 == nil
}

// ListedKeys matches the Listed keys, for a check; ListedOf tells whose
// a key is. ListMembersKeys and ListPostsKeys match the ListMembers and
// ListPosts keys; ListMembersOf tells whose list a key is.
const (
	ListedKeys      = "listed:{*}"
	ListMembersKeys = "list:{*}:*:members"
	ListPostsKeys   = "list:{*}:*:posts"
)

// ListMembersOf returns the owner and the list of a ListMembers key.
func ListMembersOf(key string) (owner, lid int64, ok bool) {
	rest, found := strings.CutPrefix(key, "list:{")
	rest, members := strings.CutSuffix(rest, ":members")
	o, l, cut := strings.Cut(rest, "}:")
	owner, lid, ok = ParseListedMember(o + ":" + l)
	return owner, lid, ok && found && members && cut
}

// ListedOf returns the user whose Listed key is key.
func ListedOf(key string) (int64, bool) { return ownerOf("listed:", key) }

// PushSubscriptions holds uid's Web Push subscriptions, one per API
// token, in the user's slot so that a token's revocation removes its
// subscription in the same round trip: the token's ID (as Tokens names
// it) -> the subscription's JSON record.
func PushSubscriptions(uid int64) string { return "push:" + tag(uid) }

// PushSubscriptionsKeys is the SCAN pattern of the users' push
// subscriptions (the queue's push:jobs:{<n>} and push:vapid do not
// match it).
const PushSubscriptionsKeys = "push:{*}"

// PushSubscriptionsOf returns the id of the user whose subscriptions
// key holds.
func PushSubscriptionsOf(key string) (int64, bool) { return ownerOf("push:", key) }

// PushVAPID holds the instance's VAPID key pair, JSON, written once
// (SET NX) so that every server signs its pushes with the same key.
const PushVAPID = "push:vapid"

// PushShards is how many streams the push queue is cut into, by user.
const PushShards = 4

// PushGroup is the consumer group of the push workers on each stream.
const PushGroup = "pushers"

// PushQueue returns stream n of the push queue: a job per notification
// made for a user who has a push subscription (fields PushUser,
// PushNote, PushAt).
func PushQueue(n int) string { return fmt.Sprintf("push:jobs:{%02x}", n) }

// PushQueueOf returns the stream of the push queue that takes uid's
// jobs.
func PushQueueOf(uid int64) string { return PushQueue(int(fnv32(id(uid)) % PushShards)) }

// The fields of a push job.
const (
	PushUser = "user" // whom the notification is for
	PushNote = "note" // the member of Notifications
	PushAt   = "at"   // its score there, unix ms
)

// PushJob returns the XADD that records a push job: notification note
// of uid, made at unix ms at.
func PushJob(b rueidis.Builder, uid int64, note string, at int64) rueidis.Completed {
	return b.Xadd().Key(PushQueueOf(uid)).Id("*").FieldValue().FieldValue(PushUser, id(uid)).
		FieldValue(PushNote, note).FieldValue(PushAt, id(at)).Build()
}
