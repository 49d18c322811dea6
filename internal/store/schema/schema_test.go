package schema_test

import (
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/store/schema"
)

// hashTag returns the part of key that Redis Cluster hashes.
func hashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// TestUserKeysShareASlot: every per-user key hashes on the user id, so
// that a request about one user touches one slot; a job's follower
// snapshot stays in its followers' slot (COPY needs it).
func TestUserKeysShareASlot(t *testing.T) {
	const uid = 42
	for _, key := range []string{
		schema.User(uid), schema.Followers(uid), schema.Following(uid), schema.Home(uid), schema.UserPosts(uid),
		schema.FollowedCelebrities(uid), schema.Idempotency(uid, "k"), schema.JobFollowers(uid, "1-0"),
		schema.Sessions(uid), schema.Tokens(uid), schema.TokensUsed(uid),
	} {
		if hashTag(key) != "42" {
			t.Errorf("%s hashes on %q; want the user id", key, hashTag(key))
		}
	}
	if hashTag(schema.Names("Alice")) != hashTag(schema.NamesFolded("ALICE")) {
		t.Error("a name's exact and folded indexes are in different slots")
	}
	q := schema.QueueOf(uid)
	if hashTag(q.Stream) != hashTag(q.Progress) || hashTag(q.Stream) != hashTag(q.Snapshots) {
		t.Errorf("a shard of the queue spans slots: %+v", q)
	}
}

func TestQueueShards(t *testing.T) {
	seen := map[int]bool{}
	for author := int64(1); author <= 1000; author++ {
		n := schema.QueueIndex(author)
		if n < 0 || n >= schema.QueueShards {
			t.Fatalf("author %d: shard %d out of range", author, n)
		}
		seen[n] = true
		if schema.QueueOf(author) != schema.QueueN(n) || schema.QueueAt(schema.QueueN(n).Stream) != schema.QueueN(n) {
			t.Fatalf("author %d: QueueOf, QueueN and QueueAt disagree", author)
		}
	}
	if len(seen) != schema.QueueShards {
		t.Errorf("1000 authors fell in %d of %d shards", len(seen), schema.QueueShards)
	}
}

func TestJobValid(t *testing.T) {
	for _, tc := range []struct {
		kind         string
		post, author int64
		want         bool
	}{
		{schema.JobDeliver, 1, 2, true},
		{schema.JobUndeliver, 1, 2, true},
		{schema.JobCelebrate, 0, 2, true},
		{schema.JobDeliver, 0, 2, false},
		{schema.JobCelebrate, 0, 0, false},
		{"other", 1, 2, false},
	} {
		if got := schema.JobValid(tc.kind, tc.post, tc.author); got != tc.want {
			t.Errorf("JobValid(%q, %d, %d) = %v", tc.kind, tc.post, tc.author, got)
		}
	}
}
