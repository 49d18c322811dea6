package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Card is the cached preview of the page at url (retwis.EncodeCard, or
// CardNone for a page without one), by the SHA-256 of the URL (hex),
// kept a day (a failure to fetch: an hour).
func Card(url string) string {
	sum := sha256.Sum256([]byte(url))
	return "card:" + hex.EncodeToString(sum[:])
}

// CardNone is the value of Card for a URL whose page has no preview.
const CardNone = "none"

// CardShards is how many streams the queue of link previews is cut
// into, by post.
const CardShards = 4

// CardGroup is the consumer group of the card workers on each stream.
const CardGroup = "carders"

// CardQueue returns stream n of the queue of link previews: a job per
// post with a link, recorded by its delivery (fields CardPost,
// CardAuthor, CardURL).
func CardQueue(n int) string { return fmt.Sprintf("cards:jobs:{%02x}", n) }

// CardQueueOf returns the stream of the queue of link previews that
// takes post pid's job.
func CardQueueOf(pid int64) string { return CardQueue(int(fnv32(id(pid)) % CardShards)) }

// The fields of a job of the queue of link previews.
const (
	CardPost   = "post"   // the post's id
	CardAuthor = "author" // its author's
	CardURL    = "url"    // the link previewed
)
