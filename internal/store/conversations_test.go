package store_test

import (
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/interact"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/upkeep"
	"github.com/retwis/retwis/internal/testkit/must"
)

// conversationsOf returns uid's first page of conversations as
// "<id>:<last post>:<unread>" strings.
func (f *fixture) conversationsOf(t *testing.T, uid int64) []string {
	t.Helper()
	page := must.Value(f.St.Conversations(f.Ctx, uid, retwis.Cursor{}, 20))(t)
	out := make([]string, len(page.Conversations))
	for i, c := range page.Conversations {
		out[i] = itoa(c.ID) + ":" + itoa(c.Last.ID) + ":" + map[bool]string{true: "unread", false: "read"}[c.Unread]
	}
	return out
}

// TestConversations: a thread of three direct posts between alice and
// bob is one conversation for both, whose id is the thread's root and
// whose last post is the newest; it is unread for bob until he reads it,
// and for alice after bob replies, never for one's own post; reading the
// list marks nothing; a delete hides it from the one who deleted it until
// a new post, which alone is then in it; a replayed delivery writes
// nothing twice.
func TestConversations(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p1 := f.post(t, posts.Draft{Author: alice.ID, Text: "@bob psst", Visibility: retwis.Direct})
		f.Drain(t)
		conv := itoa(p1.ID)
		if got, want := f.conversationsOf(t, bob.ID), []string{conv + ":" + conv + ":unread"}; !slices.Equal(got, want) {
			t.Errorf("bob's conversations: %v; want %v", got, want)
		}
		if got, want := f.conversationsOf(t, alice.ID), []string{conv + ":" + conv + ":read"}; !slices.Equal(got, want) {
			t.Errorf("alice's conversations after her own post: %v; want %v", got, want)
		}
		f.conversationsOf(t, bob.ID) // reading marks nothing
		c := must.Value(f.St.ReadConversation(f.Ctx, bob.ID, p1.ID))(t)
		if c.Unread || c.Last.ID != p1.ID || !slices.Equal(c.With, []int64{alice.ID}) {
			t.Errorf("bob reads the conversation: %+v; want read, with alice", c)
		}
		p2 := f.post(t, posts.Draft{Author: bob.ID, Text: "yes?", InReplyTo: p1.ID, Visibility: retwis.Direct})
		p3 := f.post(t, posts.Draft{Author: alice.ID, Text: "tonight", InReplyTo: p2.ID, Visibility: retwis.Direct})
		f.Drain(t)
		if got, want := f.conversationsOf(t, alice.ID), []string{conv + ":" + itoa(p3.ID) + ":read"}; !slices.Equal(got, want) {
			t.Errorf("alice's conversations after three posts: %v; want %v", got, want)
		}
		if got, want := f.conversationsOf(t, bob.ID), []string{conv + ":" + itoa(p3.ID) + ":unread"}; !slices.Equal(got, want) {
			t.Errorf("bob's conversations after three posts: %v; want %v", got, want)
		}
		must.OK(t, f.St.MarkConversationsRead(f.Ctx, bob.ID, must.Value(f.St.Conversations(f.Ctx, bob.ID, retwis.Cursor{}, 20))(t).Conversations))
		f.replay(t, p3)
		if got, want := f.conversationsOf(t, bob.ID), []string{conv + ":" + itoa(p3.ID) + ":read"}; !slices.Equal(got, want) {
			t.Errorf("bob's conversations, read, after a replayed delivery: %v; want %v", got, want)
		}
		p4 := f.post(t, posts.Draft{Author: bob.ID, Text: "ok", InReplyTo: p3.ID, Visibility: retwis.Direct})
		f.Drain(t)
		if got, want := f.conversationsOf(t, alice.ID), []string{conv + ":" + itoa(p4.ID) + ":unread"}; !slices.Equal(got, want) {
			t.Errorf("alice's conversations after bob's reply: %v; want %v", got, want)
		}
		must.OK(t, f.St.DeleteConversation(f.Ctx, alice.ID, p1.ID))
		if got := f.conversationsOf(t, alice.ID); len(got) != 0 {
			t.Errorf("alice's conversations after she deleted it: %v; want none", got)
		}
		if err := f.St.DeleteConversation(f.Ctx, alice.ID, p1.ID); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("a second delete: %v; want not found", err)
		}
		if got := f.conversationsOf(t, bob.ID); len(got) != 1 {
			t.Errorf("bob's conversations after alice deleted hers: %v; want it still", got)
		}
		p5 := f.post(t, posts.Draft{Author: bob.ID, Text: "@alice still there?", InReplyTo: p4.ID, Visibility: retwis.Direct})
		f.Drain(t)
		if got, want := f.conversationsOf(t, alice.ID), []string{conv + ":" + itoa(p5.ID) + ":unread"}; !slices.Equal(got, want) {
			t.Errorf("alice's conversations after a new post: %v; want %v", got, want)
		}
		if got := f.Strs(t, "ZRANGE", "conversation:{"+itoa(alice.ID)+"}:"+conv, "0", "-1"); !slices.Equal(got, []string{itoa(p5.ID)}) {
			t.Errorf("alice's conversation brought back holds %v; want the new post alone", got)
		}
		if rep := f.check(t, false); len(rep.Problems) > 0 {
			t.Errorf("the check finds %v", problems(rep))
		}
	})
}

// directScene is alice's direct post to bob and bob's direct reply (a
// conversation), and carol's direct post to alice (another), delivered.
func (f *fixture) directScene(t *testing.T) (alice, bob, carol retwis.User, p1, p2, c1 retwis.Post) {
	t.Helper()
	alice, bob, carol = f.Register(t, "alice"), f.Register(t, "bob"), f.Register(t, "carol")
	p1 = f.post(t, posts.Draft{Author: alice.ID, Text: "@bob hi", Visibility: retwis.Direct})
	p2 = f.post(t, posts.Draft{Author: bob.ID, Text: "hi", InReplyTo: p1.ID, Visibility: retwis.Direct})
	c1 = f.post(t, posts.Draft{Author: carol.ID, Text: "@alice hello", Visibility: retwis.Direct})
	f.Drain(t)
	return alice, bob, carol, p1, p2, c1
}

// TestConversationsHidden: a conversation whose newest post is deleted
// shows the one before, and is read if that one is the reader's own; one
// whose newest post is of a user the reader blocked does not show; the conversations of a thread and of a new
// direct post are two, newest activity first, paged by cursor; one
// whose every post is deleted leaves the lists.
func TestConversationsHidden(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol, p1, p2, c1 := f.directScene(t)
		page := must.Value(f.St.Conversations(f.Ctx, alice.ID, retwis.Cursor{}, 1))(t)
		if len(page.Conversations) != 1 || page.Conversations[0].ID != c1.ID || !page.Older || page.Newer {
			t.Fatalf("alice's first page of one: %+v; want carol's, older ones", page)
		}
		next := must.Value(f.St.Conversations(f.Ctx, alice.ID, retwis.Cursor{Before: page.Conversations[0].Newest}, 1))(t)
		if len(next.Conversations) != 1 || next.Conversations[0].ID != p1.ID || next.Older || !next.Newer {
			t.Errorf("alice's second page: %+v; want bob's, the last", next)
		}
		must.OK(t, f.St.DeletePost(f.Ctx, bob.ID, p2.ID))
		f.Drain(t)
		want := []string{itoa(c1.ID) + ":" + itoa(c1.ID) + ":unread", itoa(p1.ID) + ":" + itoa(p1.ID) + ":read"} // her own post is the newest left
		if got := f.conversationsOf(t, alice.ID); !slices.Equal(got, want) {
			t.Errorf("alice's conversations after bob deleted his reply: %v; want %v", got, want)
		}
		must.OK(t, f.St.Block(f.Ctx, alice.ID, carol.ID))
		if got := f.conversationsOf(t, alice.ID); !slices.Equal(got, want[1:]) {
			t.Errorf("alice's conversations once she blocked carol: %v; want %v", got, want[1:])
		}
		if _, err := f.St.ReadConversation(f.Ctx, alice.ID, c1.ID); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("alice reads the conversation of carol, blocked: %v; want not found", err)
		}
		if _, err := f.St.ReadConversation(f.Ctx, bob.ID, c1.ID); err != interact.ErrNoConversation {
			t.Errorf("bob reads a conversation not his: %v; want ErrNoConversation", err)
		}
		must.OK(t, f.St.DeletePost(f.Ctx, alice.ID, p1.ID))
		f.Drain(t)
		for _, u := range []retwis.User{alice, bob} {
			if got := f.Strs(t, "ZRANGE", schema.Conversations(u.ID), "0", "-1"); slices.Contains(got, itoa(p1.ID)) {
				t.Errorf("%s's conversations once its only post is deleted: %v; want it gone", u.Username, got)
			}
		}
	})
}

// replay writes again what the delivery of post p wrote to the indexes,
// as a job run twice does.
func (f *fixture) replay(t *testing.T, p retwis.Post) {
	t.Helper()
	r := f.St.C.Do(f.Ctx, f.St.C.B().Hmget().Key(schema.Post(p.ID)).Field(index.JobFields...).Build())
	jp, _, ok, err := index.ParseJobPost(p.ID, r)
	if err != nil || !ok {
		t.Fatalf("read post %d: %v, %v", p.ID, ok, err)
	}
	must.OK(t, redisconn.FirstErr(f.St.C.DoMulti(f.Ctx, index.Cmds(f.St.C, jp)...)))
}

// TestConversationsCheck: the check finds and repairs what a delivery,
// a deletion or a conversation's removal stopped midway leaves: a
// conversation without posts (it leaves the list), one not scored by its
// newest post, posts outside the list (listed again), a post that is
// gone; then it finds nothing.
func TestConversationsCheck(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob, carol, p1, p2, c1 := f.directScene(t)
		conv, other := itoa(p1.ID), itoa(c1.ID)
		f.Do(t, "DEL", schema.Conversation(bob.ID, p1.ID))
		f.Do(t, "ZADD", schema.Conversations(alice.ID), "XX", "1", conv)
		f.Do(t, "ZREM", schema.Conversations(carol.ID), other)
		f.Do(t, "ZADD", schema.Conversation(alice.ID, c1.ID), "7", "7")
		want := []string{"conversations: a conversation not scored by its newest post ×1", "conversations: a conversation without posts ×1",
			"conversations: a conversation's posts outside its user's list ×1", "conversations: an index entry of a post that is gone ×1"}
		if got := problems(f.check(t, true)); !slices.Equal(got, want) {
			t.Errorf("the check finds %v; want %v", got, want)
		}
		if got := f.conversationsOf(t, alice.ID); !slices.Equal(got, []string{other + ":" + other + ":unread", conv + ":" + itoa(p2.ID) + ":unread"}) {
			t.Errorf("alice's conversations once repaired: %v", got)
		}
		if got := f.conversationsOf(t, carol.ID); !slices.Equal(got, []string{other + ":" + other + ":read"}) {
			t.Errorf("carol's conversations once repaired: %v", got)
		}
		if got := f.conversationsOf(t, bob.ID); len(got) != 0 {
			t.Errorf("bob's conversations once repaired: %v; want none, its posts lost", got)
		}
		if got := problems(f.check(t, false)); len(got) > 0 {
			t.Errorf("the check after the repair finds %v", got)
		}
	})
}

// TestConversationsBackfilled: the direct posts of a database of
// version 7, which had no conversations, are entered in them by
// maintenance after the migration, read by everyone; a post written
// since the migration is left to its delivery.
func TestConversationsBackfilled(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		p1 := f.post(t, posts.Draft{Author: alice.ID, Text: "@bob psst", Visibility: retwis.Direct})
		p2 := f.post(t, posts.Draft{Author: bob.ID, Text: "yes", InReplyTo: p1.ID, Visibility: retwis.Direct})
		late := f.post(t, posts.Draft{Author: bob.ID, Text: "@alice later", Visibility: retwis.Direct})
		f.Drain(t)
		old := itoa(time.Now().Unix() - 60)
		for _, p := range []retwis.Post{p1, p2} {
			f.Do(t, "HSET", schema.Post(p.ID), schema.FieldTime, old)
		}
		for _, u := range []retwis.User{alice, bob} {
			f.Do(t, "DEL", schema.Conversations(u.ID), schema.ConversationsRead(u.ID), schema.Conversation(u.ID, p1.ID), schema.Conversation(u.ID, late.ID))
		}
		f.Do(t, "SET", schema.VersionKey, "7")
		must.OK(t, f.St.Migrate(f.Ctx, slog.New(slog.DiscardHandler)))
		// late stands for a post written after the migration (whose
		// delivery enters it): dated after it, whatever the clock did
		// between its posting and the migration on a loaded machine.
		f.Do(t, "HSET", schema.Post(late.ID), schema.FieldTime, itoa(time.Now().Unix()+60))
		_, err := upkeep.Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep", ClaimIdle: time.Hour}), deletion.New(f.St))
		must.OK(t, err)
		want := []string{itoa(p1.ID) + ":" + itoa(p2.ID) + ":read"}
		for _, u := range []retwis.User{alice, bob} {
			if got := f.conversationsOf(t, u.ID); !slices.Equal(got, want) {
				t.Errorf("%s's conversations after the backfill: %v; want %v", u.Username, got, want)
			}
		}
	})
}
