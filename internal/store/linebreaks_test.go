package store_test

import (
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestPostLengthLimit: the store enforces its MaxPostChars on every
// post, a link counting as 23 and a reply's "@name " prefix counting
// too, with a message that says the limit.
func TestPostLengthLimit(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, redistest.Start(t).URL, store.Options{MaxPostChars: 30}, true)
	alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
	parent := f.Post(t, posts.Draft{Author: bob.ID, Text: "hi"})
	f.Post(t, posts.Draft{Author: alice.ID, Text: strings.Repeat("é", 30)})
	f.Post(t, posts.Draft{Author: alice.ID, Text: "see https://example.com/" + strings.Repeat("x", 100) + " ok"})
	f.Post(t, posts.Draft{Author: alice.ID, Text: strings.Repeat("r", 25), InReplyTo: parent.ID}) // "@bob " + 25
	f.Drain(t)                                                                                    // the posts above delivered: nothing changes but what is refused
	before := f.Snapshot(t)
	for _, d := range []posts.Draft{
		{Author: alice.ID, Text: strings.Repeat("é", 31)},
		{Author: alice.ID, Text: strings.Repeat("r", 26), InReplyTo: parent.ID},
	} {
		_, err := f.St.Publish(f.Ctx, d)
		storetest.WantKind(t, err, retwis.Invalid)
		if err == nil || !strings.Contains(err.Error(), "at most 30 characters") {
			t.Errorf("%q: %v; want the limit said", d.Text, err)
		}
	}
	f.AssertUnchanged(t, before)
}

// TestLineBreaksKept: a post's line breaks are stored as "\n", and its
// mentions and tags next to them are found as next to spaces.
func TestLineBreaksKept(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
	p := f.Post(t, posts.Draft{Author: alice.ID, Text: "first\r\n@bob\r\n\r\n\r\n#verse\nend"})
	if p.Body != "first\n@bob\n\n#verse\nend" || len(p.Mentions) != 1 || p.Mentions[0] != "bob" {
		t.Fatalf("published %q mentioning %q; want the line breaks kept and bob mentioned", p.Body, p.Mentions)
	}
	f.Drain(t)
	tagged, err := f.St.TagPosts(f.Ctx, 0, "verse", retwis.Cursor{}, 10)
	if err != nil || len(tagged.Posts) != 1 || tagged.Posts[0].Body != p.Body {
		t.Errorf("tag page %+v, %v; want the post", tagged, err)
	}
	mentions, err := f.St.Mentions(f.Ctx, bob.ID, retwis.Cursor{}, 10)
	if err != nil || len(mentions.Posts) != 1 || mentions.Posts[0].ID != p.ID {
		t.Errorf("bob's mentions %+v, %v; want the post", mentions, err)
	}
}
