package posts

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// idempotencyTTL is how long a post's idempotency key is remembered.
const idempotencyTTL = 24 * time.Hour

// inFlight marks an idempotency key whose post is being published.
const inFlight = "0"

// CreatePostOnce publishes a post like CreatePost, unless author already
// published one with the same idempotency key in the last day: then it
// returns that post and writes nothing. A client that did not hear the
// answer to a post (a timeout, a dropped connection, a 503) sends it again
// with the same key and gets one post, not two. An empty key is no key.
func (s *Store) CreatePostOnce(ctx context.Context, author int64, text, key string) (retwis.Post, error) {
	return s.Publish(ctx, Draft{Author: author, Text: text, Key: key})
}

// earlierPost returns the post an idempotency key was used for.
func (s *Store) earlierPost(ctx context.Context, k string) (retwis.Post, error) {
	v, err := s.C.Do(ctx, s.C.B().Get().Key(k).Build()).ToString()
	if rueidis.IsRedisNil(err) || v == inFlight {
		return retwis.Post{}, retwis.Errorf(retwis.Conflict, "This post is being published already.")
	}
	if err != nil {
		return retwis.Post{}, s.Wrap("idempotency key", err)
	}
	pid, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return retwis.Post{}, s.Wrap("idempotency key", err)
	}
	return s.post(ctx, reader{all: true}, pid)
}

// checkIdempotencyKey accepts 1 to retwis.MaxIdempotencyKeyLen
// printable ASCII characters.
func checkIdempotencyKey(key string) error {
	if len(key) > retwis.MaxIdempotencyKeyLen {
		return retwis.Errorf(retwis.Invalid, "An idempotency key is at most %d characters long.", retwis.MaxIdempotencyKeyLen)
	}
	for i := range len(key) {
		if key[i] < ' ' || key[i] > '~' {
			return retwis.Errorf(retwis.Invalid, "An idempotency key is made of printable ASCII characters.")
		}
	}
	return nil
}
