// Package dataset makes and converts whole social networks offline: a
// synthetic one with power-law popularity (Generate), or a real one from
// a follow graph in the SNAP edge-list format with users and posts in CSV
// or JSON Lines (Import). It knows neither Redis nor key names: it hands
// domain records, in order, to a Writer, which internal/store provides
// (as a RESP stream for `retwis load`, or straight into a live database),
// so that every index the server keeps is also written for generated and
// imported data.
package dataset

// User is one account of a dataset.
type User struct {
	ID           int64
	Name         string
	PasswordHash string // argon2id, PHC string
	Registered   int64  // unix seconds
	Seen         int64  // unix seconds
}

// Post is one post of a dataset.
type Post struct {
	ID     int64
	Author int64
	Time   int64 // unix seconds
	Body   string
}

// Writer receives a dataset, in this order: every user; the follows;
// the posts, in ascending ids; every home timeline; then Finish. Flush
// makes what was written so far durable (progress reports call it, so
// that they measure what was really written).
type Writer interface {
	User(u User) error
	// Follows records that follower follows each of followees since the
	// unix time at.
	Follows(follower int64, followees []int64, at int64) error
	Post(p Post) error
	// Home writes uid's home timeline: post ids, newest first, complete
	// down to the last.
	Home(uid int64, ids []int64) error
	// Finish records that users and posts (the highest ids) exist, and
	// flushes.
	Finish(users, posts int64) error
	Flush() error
}

// Stats says what was written.
type Stats struct {
	Users, Follows, Posts, TimelineEntries int
	MaxFollowers                           int // followers of the most followed user (Generate)
	Skipped                                int // input lines skipped (Import)
}
