package retwis_test

import (
	"testing"

	"github.com/retwis/retwis"
)

// TestSeenBy: who sees a post of each visibility: the author always,
// those it mentions always, followers a private post too, everyone a
// public or unlisted one, nobody else a private or direct one; and only
// for the private post of someone else that does not mention the viewer
// does the answer depend on a follow.
func TestSeenBy(t *testing.T) {
	t.Parallel()
	const author, mentioned, other = 1, 2, 3
	type viewer struct {
		id      int64
		follows bool
	}
	for _, tc := range []struct {
		v    retwis.Visibility
		sees []viewer
		not  []viewer
	}{
		{retwis.Public, []viewer{{0, false}, {author, false}, {other, false}}, nil},
		{retwis.Unlisted, []viewer{{0, false}, {other, false}}, nil},
		{retwis.Private, []viewer{{author, false}, {mentioned, false}, {other, true}}, []viewer{{0, false}, {0, true}, {other, false}}},
		{retwis.Direct, []viewer{{author, false}, {mentioned, false}}, []viewer{{0, false}, {other, true}}},
	} {
		p := retwis.Post{AuthorID: author, MentionIDs: []int64{mentioned}, Visibility: tc.v}
		for _, v := range tc.sees {
			if !p.SeenBy(v.id, v.follows) {
				t.Errorf("%v post: %+v does not see it", tc.v, v)
			}
		}
		for _, v := range tc.not {
			if p.SeenBy(v.id, v.follows) {
				t.Errorf("%v post: %+v sees it", tc.v, v)
			}
		}
		if got, want := p.NeedsFollow(other), tc.v == retwis.Private; got != want {
			t.Errorf("%v post: NeedsFollow(other) = %v", tc.v, got)
		}
		if p.NeedsFollow(author) || p.NeedsFollow(mentioned) || p.NeedsFollow(0) {
			t.Errorf("%v post: a follow asked of the author, the one mentioned or a visitor", tc.v)
		}
	}
	if got := retwis.Public.Narrower(retwis.Private); got != retwis.Private {
		t.Errorf("public narrowed by private: %v", got)
	}
}

// FuzzParseVisibility: a visibility parses to the one String spells the
// same, "" to public, anything else to an error of kind Invalid.
func FuzzParseVisibility(f *testing.F) {
	for _, s := range []string{"", "public", "unlisted", "private", "direct", "Public", "limited", "direct\x00", "followers"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := retwis.ParseVisibility(s)
		switch {
		case err != nil:
			if retwis.ErrorKind(err) != retwis.Invalid || v != retwis.Public {
				t.Fatalf("%q: %v, %v; want an invalid error", s, v, err)
			}
		case s == "":
			if v != retwis.Public {
				t.Fatalf(`"": %v; want public`, v)
			}
		case v.String() != s:
			t.Fatalf("%q parsed as %v", s, v)
		}
	})
}
