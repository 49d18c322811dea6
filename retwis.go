// Package retwis is the domain of the retwis microblog: users, posts and
// the rules their fields obey. Storage (internal/store) and the web
// interface (internal/web) are adapters around these types; the wiring
// lives in cmd/retwis.
package retwis

import "time"

// User is a registered account.
type User struct {
	ID       int64
	Username string
}

// Post is a status update. Posts are immutable once written.
type Post struct {
	ID       int64
	AuthorID int64
	Author   string // username of the author, resolved when the post is read
	Time     time.Time
	Body     string
}

// Counts summarises a user's social graph.
type Counts struct {
	Followers int64
	Following int64
}

// Cursor picks a page of a timeline. The zero Cursor is the newest page.
// Pages are addressed by post id rather than by offset, so posts arriving
// between two page loads neither repeat nor skip a post.
type Cursor struct {
	Before int64 // the page of posts just older than this post id
	After  int64 // the page of posts just newer than this post id
}

// Page is one page of posts from a timeline, newest first.
type Page struct {
	Posts []Post
	Newer bool // newer posts exist than the first on this page
	Older bool // older posts exist than the last on this page
	// Missing counts the posts left out because they cannot be read right
	// now (the database node holding them is failing over): the page
	// shows the rest, and says so.
	Missing int
}

// Profile is what a profile page shows about a user.
type Profile struct {
	User   User
	Counts Counts
	// Followed reports whether the viewer follows this user.
	Followed bool
	Page     Page
}
