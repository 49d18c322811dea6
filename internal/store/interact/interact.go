// Package interact keeps what readers do to posts besides writing them,
// in Redis: favourites, bookmarks and pins (the reader's marks on a
// post, marks.go, and who favourited it), boosts (a post of the
// booster's own that shows another, delivered by its jobs: boosts.go)
// and edits (a post's new text, its earlier versions kept, its indexes
// following it through the edit job: edit.go), the direct
// conversations a reader is in (conversations.go), and what a reader
// does with their notifications: dismiss or clear them, and the policy
// of which the client API shows (notification_actions.go,
// notification_policy.go). It is a layer of the
// online store: Store embeds posts.Store, whose read path reads the
// counts and marks of every page of posts, and store.Store embeds it.
package interact

import "github.com/retwis/retwis/internal/store/posts"

// Store reads and writes the interactions with posts, and the posts and
// accounts they are with.
type Store struct {
	*posts.Store
}

// New returns the interactions kept in the database of p.
func New(p *posts.Store) *Store { return &Store{Store: p} }
