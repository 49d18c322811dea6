package store

// Key names, in one place; doc.go documents each.
const (
	keyNextUserID   = "next_user_id"
	keyUsers        = "users"
	keyUsersFolded  = "{users}:folded"
	keyAuths        = "auths"
	keyUsersByTime  = "users_by_time"
	keyNextPostID   = "next_post_id"
	keyTimeline     = "timeline"
	keySchema       = "schema_version"
	keyCelebrities  = "celebrities"
	keyDeliveries   = "deliveries"
	keyProgress     = "delivery_progress"
	keyLastSeen     = "last_seen"
	deliveryGroup   = "deliverers"
	globalTimelineN = 1000 // the global timeline keeps this many posts
)

func keyUser(uid int64) string      { return "user:" + id(uid) }
func keyFollowers(uid int64) string { return "followers:" + id(uid) }
func keyFollowing(uid int64) string { return "following:" + id(uid) }
func keyPost(pid int64) string      { return "post:" + id(pid) }
func keyHome(uid int64) string      { return "posts:" + id(uid) }
func keyUserPosts(uid int64) string { return "user_posts:" + id(uid) }

// keyJobFollowers is the snapshot of uid's followers that delivery job
// walks. Its hash tag puts it in the slot of followers:<uid>, so that
// COPY can make it.
func keyJobFollowers(uid int64, job string) string {
	return "{" + keyFollowers(uid) + "}:job:" + job
}
