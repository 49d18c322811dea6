package schema_test

import (
	"os"
	"regexp"
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
	t.Parallel()
	const uid = 42
	for _, key := range []string{
		schema.User(uid), schema.Followers(uid), schema.Following(uid), schema.Home(uid), schema.UserPosts(uid),
		schema.FollowedCelebrities(uid), schema.Idempotency(uid, "k"), schema.EditIdempotency(uid, 7, "k"), schema.JobFollowers(uid, "1-0"),
		schema.Sessions(uid), schema.Tokens(uid), schema.TokensUsed(uid), schema.Deleting(uid), schema.DeletingLease(uid), schema.Graph(uid),
		schema.Markers(uid), schema.NotificationPolicy(uid), schema.Filters(uid),
	} {
		if hashTag(key) != "42" {
			t.Errorf("%s hashes on %q; want the user id", key, hashTag(key))
		}
	}
	if hashTag(schema.Names("Alice")) != hashTag(schema.NamesFolded("ALICE")) || hashTag(schema.Names("Alice")) != hashTag(schema.NameReserved("aLiCe")) {
		t.Error("a name's exact and folded indexes and its reservation are in different slots")
	}
	if schema.NameReserved("Alice") != schema.NameReserved("ALICE") {
		t.Error("a name's reservation depends on its case")
	}
	q := schema.QueueOf(uid)
	if hashTag(q.Stream) != hashTag(q.Progress) || hashTag(q.Stream) != hashTag(q.Snapshots) || hashTag(q.Stream) != hashTag(q.Follows) || hashTag(q.Stream) != hashTag(q.Unpublish) {
		t.Errorf("a shard of the queue spans slots: %+v", q)
	}
}

// TestFollowChange: a member of a shard's follows under way gives back
// its follower and followee, and nothing else is taken for one.
func TestFollowChange(t *testing.T) {
	t.Parallel()
	if a, b, ok := schema.FollowChangeOf(schema.FollowChange(12, 345, 6789)); !ok || a != 12 || b != 345 {
		t.Errorf("FollowChangeOf(FollowChange(12, 345, 6789)) = %d, %d, %v", a, b, ok)
	}
	for _, m := range []string{"", "12:345", "12:x:1", "a:345:1", "1:2:3:4"} {
		if _, _, ok := schema.FollowChangeOf(m); ok {
			t.Errorf("FollowChangeOf(%q) is a change", m)
		}
	}
}

// TestUnpublished: a member of a shard's posts to take back gives back
// its post and author, and nothing else is taken for one.
func TestUnpublished(t *testing.T) {
	t.Parallel()
	if pid, author, ok := schema.UnpublishedOf(schema.Unpublished(987, 65)); !ok || pid != 987 || author != 65 {
		t.Errorf("UnpublishedOf(Unpublished(987, 65)) = %d, %d, %v", pid, author, ok)
	}
	for _, m := range []string{"", "987", "987:", "x:65", "987:65:1"} {
		if _, _, ok := schema.UnpublishedOf(m); ok {
			t.Errorf("UnpublishedOf(%q) is a post to take back", m)
		}
	}
}

// TestGraphTwin: each member of a user's part of the graph leads to the
// member of the other user's part that records the same triple.
func TestGraphTwin(t *testing.T) {
	t.Parallel()
	subject, object := schema.GraphEdge(7, schema.RelMentions, 9)
	for _, tc := range []struct{ member, key, twin string }{
		{subject, schema.Graph(9), object},
		{object, schema.Graph(7), subject},
	} {
		if key, twin, ok := schema.GraphTwin(tc.member); !ok || key != tc.key || twin != tc.twin {
			t.Errorf("the twin of %s: %s %s %v; want %s %s", tc.member, key, twin, ok, tc.key, tc.twin)
		}
	}
	for _, bad := range []string{"", "spo:7:follows", "xyz:7:follows:9", "spo:a:follows:9", "ops:7:follows:b"} {
		if _, _, ok := schema.GraphTwin(bad); ok {
			t.Errorf("%q has a twin", bad)
		}
	}
}

func TestQueueShards(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	for _, tc := range []struct {
		kind             string
		post, author, of int64
		want             bool
	}{
		{schema.JobDeliver, 1, 2, 0, true},
		{schema.JobUndeliver, 1, 2, 0, true},
		{schema.JobUnboosts, 1, 2, 0, true},
		{schema.JobCelebrate, 0, 2, 0, true},
		{schema.JobBoost, 1, 2, 3, true},
		{schema.JobUnboost, 1, 2, 3, true},
		{schema.JobBoost, 1, 2, 0, false},
		{schema.JobDeliver, 0, 2, 0, false},
		{schema.JobCelebrate, 0, 0, 0, false},
		{"other", 1, 2, 0, false},
	} {
		if got := schema.JobValid(tc.kind, tc.post, tc.author, tc.of); got != tc.want {
			t.Errorf("JobValid(%q, %d, %d, %d) = %v", tc.kind, tc.post, tc.author, tc.of, got)
		}
	}
}

// TestKeyTablesAgree: the key table of the package's documentation
// (doc.go) and that of docs/KEYS.md, for operators, name the same keys:
// each row of one is a row of the other, or for the keys KEYS.md gives
// a row together (a lock and its fence), named in doc.go's.
func TestKeyTablesAgree(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	inDoc := keysOf(t, "doc.go", regexp.MustCompile(`^//\t([^ \t-][^\t]*?)(?:  |$)`), regexp.MustCompile(`, `))
	inKeys := keysOf(t, "../../../docs/KEYS.md", regexp.MustCompile("^\\| `(.+?)` \\|"), regexp.MustCompile("`[,;] `"))
	delete(inDoc, "key") // the table's header
	for k := range inDoc {
		if !inKeys[k] {
			t.Errorf("doc.go's table has %q; docs/KEYS.md has not", k)
		}
	}
	for k := range inKeys {
		if !inDoc[k] && !strings.Contains(string(doc), k) {
			t.Errorf("docs/KEYS.md has %q; doc.go's table has not", k)
		}
	}
	if len(inDoc) < 50 {
		t.Errorf("only %d keys found in doc.go's table", len(inDoc))
	}
}

// keysOf returns the keys a table of the file at path names: the first
// group of row at the start of each line it matches, split by sep.
func keysOf(t *testing.T, path string, row, sep *regexp.Regexp) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, line := range strings.Split(string(text), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			for _, k := range sep.Split(m[1], -1) {
				keys[strings.TrimSpace(k)] = true
			}
		}
	}
	return keys
}
