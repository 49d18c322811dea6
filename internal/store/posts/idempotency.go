package posts

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
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
	p, err := s.Publish(ctx, Draft{Author: author, Text: text, Key: key})
	return p.Post, err
}

// earlierPost returns the post author used idempotency key k for, with
// author's summary and the post's count of replies read in the same
// call.
func (s *Store) earlierPost(ctx context.Context, author int64, k string) (Published, error) {
	v, err := s.C.Do(ctx, s.C.B().Get().Key(k).Build()).ToString()
	if rueidis.IsRedisNil(err) || v == inFlight {
		return Published{}, retwis.Errorf(retwis.Conflict, "This post is being published already.")
	}
	if err != nil {
		return Published{}, s.Wrap("idempotency key", err)
	}
	pid, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return Published{}, s.Wrap("idempotency key", err)
	}
	along := new(kernel.Batch)
	sum, replies := s.startSummaries([]int64{author}, along), s.startReplyCounts([]int64{pid}, along)
	p, err := s.post(ctx, reader{all: true, along: along}, pid)
	if err != nil {
		return Published{}, err
	}
	sums, err := s.parseSummaries([]int64{author}, sum.Replies())
	if err != nil {
		return Published{}, err
	}
	if len(sums) == 0 {
		return Published{}, retwis.Errorf(retwis.NotFound, "There is no such user.")
	}
	n, err := s.parseReplyCounts(replies.Replies())
	if err != nil {
		return Published{}, err
	}
	return Published{Post: p, Author: sums[0], Replies: n[0]}, nil
}

// CheckIdempotencyKey accepts 1 to retwis.MaxIdempotencyKeyLen
// printable ASCII characters.
func CheckIdempotencyKey(key string) error {
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
