package retwis

// Where is a kind of place posts are shown in, which decides whose posts
// a reader's mutes leave out there.
type Where int

const (
	// InTimeline is a timeline: home, the global timeline, a tag's
	// pages. Blocks, mutes and suspensions leave posts out.
	InTimeline Where = iota
	// InConversation is everything else that shows posts: a profile, a
	// thread, a single post, mentions and notifications. Blocks and
	// suspensions leave posts out; a mute changes nothing there.
	InConversation
)

// Hidden is whose posts and notifications a reader does not see: the
// accounts the reader blocked or muted, those that blocked the reader,
// and suspended accounts, which nobody sees.
type Hidden struct {
	Blocked   map[int64]bool // accounts the reader blocked
	Muted     map[int64]bool // accounts the reader muted
	BlockedBy map[int64]bool // accounts that blocked the reader
	Suspended map[int64]bool // suspended accounts
}

// Hides reports whether a post by author is left out for the reader in
// a place of kind where.
func (h Hidden) Hides(author int64, where Where) bool {
	return h.Blocked[author] || h.BlockedBy[author] || h.Suspended[author] ||
		(where == InTimeline && h.Muted[author])
}

// HidesAnyone reports whether Hides hides anybody in where.
func (h Hidden) HidesAnyone(where Where) bool {
	return len(h.Blocked)+len(h.BlockedBy)+len(h.Suspended) > 0 || (where == InTimeline && len(h.Muted) > 0)
}

// Posts returns the posts of posts that are not hidden in where, reusing
// posts' array.
func (h Hidden) Posts(posts []Post, where Where) []Post {
	kept := posts[:0]
	for _, p := range posts {
		if !h.Hides(p.AuthorID, where) {
			kept = append(kept, p)
		}
	}
	return kept
}

// MaxBlocks bounds the accounts one user may block, and the accounts one
// user may mute: the lists are read whenever the user reads posts.
const MaxBlocks = 10000

// Ties is how a viewer and another user are tied: follows, blocks and
// mutes, either way.
type Ties struct {
	Following  bool // the viewer follows the user
	FollowedBy bool // the user follows the viewer
	Blocking   bool // the viewer blocked the user
	BlockedBy  bool // the user blocked the viewer
	Muting     bool // the viewer muted the user
}
