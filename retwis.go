// Package retwis is the domain of the retwis microblog: users, posts and
// the rules their fields obey (validate.go, profile_text.go,
// moderation.go, oauth.go), the kinds of error (errors.go), what a
// reader does not see (hidden.go) and the paths of pages (paths.go).
// Storage (internal/store and the packages under it) and the interfaces
// (internal/web, internal/api, internal/streaming) are adapters around
// these types; the wiring lives in cmd/retwis. It imports no package of
// its own module.
package retwis

import "time"

// User is a registered account.
type User struct {
	ID       int64
	Username string
	// Filtered is set, for the user a request is authenticated as, once
	// they made a filter: only then are their filters read with the
	// lists they read.
	Filtered bool
}

// Post is a status update. Its author may edit its body and warning
// (up to MaxEdits times), nothing else.
type Post struct {
	ID       int64
	AuthorID int64
	Author   string // username of the author, resolved when the post is read
	Time     time.Time
	Body     string
	// Edited is when the body or warning last changed (zero: never);
	// the earlier versions are read on request (Version).
	Edited time.Time
	// Warning is the post's content warning ("": none), shown before
	// the body, which is behind a disclosure.
	Warning string
	// Visibility is who sees the post (the zero value: everyone).
	Visibility Visibility
	// AuthorDisplayName is the display name the author set ("": none),
	// read only by the pages that show it (store.Store.NameAuthors).
	AuthorDisplayName string
	// Mentions are the users the body mentions who existed when it was
	// posted, by their usernames as registered; MentionIDs their ids, in
	// the same order.
	Mentions   []string
	MentionIDs []int64
	// InReplyTo is the post this one answers (0: none), and ReplyTo and
	// ReplyToID the username and id of that post's author.
	InReplyTo int64
	ReplyTo   string
	ReplyToID int64
	// Favourites and Reblogs are how many accounts favourited and
	// boosted the post; Favourited, Reblogged, Bookmarked and Pinned are
	// the reader's marks on it (none for a visitor logged out).
	Favourites, Reblogs                       int64
	Favourited, Reblogged, Bookmarked, Pinned bool
	// Reblog, for a boost (a post of its own, by the booster, without a
	// body), is the post it boosts, as the reader sees it; nil for a
	// post.
	Reblog *Post
	// Media are the pictures attached (at most MaxAttachments), shown
	// behind the warning when Sensitive is set.
	Media     []Attachment
	Sensitive bool
	// Card is the preview of the first link of the body, once made (nil:
	// none, or not yet).
	Card *Card
}

// Summary is a user as the API describes them: the profile and counts.
type Summary struct {
	User        User
	DisplayName string
	Bio         string
	Joined      time.Time // zero for an account older than the record of it
	Counts      Counts
	Posts       int64
	LastPost    time.Time // zero: no posts
	// Avatar and Header are the pictures the user uploaded (nil: none;
	// see AvatarPath and HeaderPath).
	Avatar, Header *Attachment
}

// Deletion is how far the deletion of an account has got, as those who
// look for it see it while its name stays reserved: the posts and the
// follows (both ways) it had when the deletion began, and how many of
// them are gone.
type Deletion struct {
	Done                    bool // every trace of the account is gone
	Posts, PostsRemoved     int64
	Follows, FollowsRemoved int64
	// Reserved is when the name may be registered again (zero: not
	// known).
	Reserved time.Time
}

// Version is one version of an edited post: its text and pictures as
// they were, and since when.
type Version struct {
	Body, Warning string
	Media         []Attachment
	Time          time.Time
}

// MaxEdits bounds how many times a post may be edited: its earlier
// versions are kept in the post itself.
const MaxEdits = 20

// MaxMentions bounds the users one post mentions: further @names stay
// plain text. MaxTags bounds the tags of one post that are indexed
// (further ones still link to their pages).
const (
	MaxMentions = 20
	MaxTags     = 10
)

// MaxAncestors bounds how far up its thread a reply remembers.
const MaxAncestors = 50

// Counts summarises a user's social graph.
type Counts struct {
	Followers int64
	Following int64
}

// Cursor picks a page of a timeline. The zero Cursor is the newest page.
// Pages are addressed by post id rather than by offset, so posts arriving
// between two page loads neither repeat nor skip a post.
type Cursor struct {
	Before int64 // the page of posts just older than this post id (in follow lists: this user id)
	After  int64 // the page of posts just newer than this post id (likewise)
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
	// Veiled are the posts of the page a warn filter of the reader
	// matched, by id, each with the filter's title: the pages show them
	// collapsed behind it (nil: none).
	Veiled map[int64]string
}

// Person is a user as a search finds them.
type Person struct {
	User        User
	DisplayName string
	Followers   int64
}

// Relationship is what links a viewer to a user whose profile they
// see, from the graph of relations.
type Relationship struct {
	FollowsYou   bool // the user follows the viewer
	MentionedYou bool // the user mentioned the viewer in a post
	RepliedToYou bool // the user replied to a post of the viewer
	// FollowedBy names up to two of the FollowedByCount users the viewer
	// follows who follow the user.
	FollowedBy      []User
	FollowedByCount int
	// BothFollow counts the users the viewer and the user both follow.
	BothFollow int
}

// FollowedByOthers is how many of the users FollowedByCount counts
// FollowedBy does not name.
func (r Relationship) FollowedByOthers() int { return r.FollowedByCount - len(r.FollowedBy) }

// Suggestion is a user to follow, and how many of those the viewer
// follows follow them.
type Suggestion struct {
	User       User
	FollowedBy int
}

// ListedUser is a user in a list of users (followers, following, blocked,
// muted), and since when.
type ListedUser struct {
	User  User
	Since time.Time
}

// FollowPage is one page of a follower or following list, the most
// recent first.
type FollowPage struct {
	Follows []ListedUser
	Newer   bool // more recent follows exist than the first on this page
	Older   bool // earlier ones exist than the last on this page
}

// Profile is what a profile page shows about a user.
type Profile struct {
	User User
	// DisplayName and Bio are what the user wrote about themselves
	// (empty: nothing).
	DisplayName string
	Bio         string
	Counts      Counts
	// Followed reports whether the viewer follows this user; Blocked and
	// Muted whether the viewer blocked or muted them; Suspended whether
	// the account is suspended (its posts hidden from everyone).
	Followed, Blocked, Muted, Suspended bool
	Page                                Page
	// Pinned are the posts the user pinned to the top of their profile,
	// the newest pin first, shown above the first page.
	Pinned []Post
}

// Thread is a post with its conversation: the posts it answers and the
// replies it got.
type Thread struct {
	// Ancestors are the posts above Post, the thread's first post first,
	// as far up as they still exist; ParentGone says the chain breaks at
	// a deleted post.
	Ancestors  []Post
	ParentGone bool
	Post       Post
	// Replies are the post's replies, oldest first: Older means earlier
	// replies exist than this page's first, Newer later ones than its
	// last.
	Replies Page
}

// NotificationKind says what a notification is about.
type NotificationKind int

// The kinds of notification.
const (
	NotificationFollow    NotificationKind = iota + 1 // Actor followed the user
	NotificationMention                               // Actor mentioned the user in Post
	NotificationReply                                 // Actor replied to the user's post with Post
	NotificationUpdate                                // Actor edited Post, which the user interacted with
	NotificationFavourite                             // Actor favourited the user's Post
	NotificationReblog                                // Actor boosted the user's Post
)

// String names the kind: "follow", "mention", "reply", "update",
// "favourite" or "reblog".
func (k NotificationKind) String() string {
	switch k {
	case NotificationFollow:
		return "follow"
	case NotificationMention:
		return "mention"
	case NotificationReply:
		return "reply"
	case NotificationUpdate:
		return "update"
	case NotificationFavourite:
		return "favourite"
	case NotificationReblog:
		return "reblog"
	}
	return "unknown"
}

// Notification tells a user that someone followed, mentioned or replied
// to them, edited a post they interacted with, or favourited their post.
type Notification struct {
	// ID orders notifications, newest highest, and names one for paging:
	// its time in unix ms, times 1000, plus a hash of what it says, so
	// that two of the same millisecond differ.
	ID     int64
	Kind   NotificationKind
	Actor  User
	Post   int64 // the mention, the reply, the post edited, favourited or boosted; 0 for a follow
	Time   time.Time
	Unread bool // newer than the last time the user read them
	// ActorDisplayName is the display name the actor set ("": none), and
	// Status the post of a mention or a reply: read for the pages
	// (Notifications), not for the client API, which reads its own.
	ActorDisplayName string
	Status           *Post
}

// DayCount is how many posts a tag had on one day (UTC).
type DayCount struct {
	Day   time.Time
	Posts int64
	// Accounts is how many accounts wrote those posts, estimated, when
	// asked for.
	Accounts int64
}

// Trend is a tag and its weight among recent posts: the number of posts
// that used it, each counting less the older it is.
type Trend struct {
	Tag    string // as first written
	Weight float64
}
