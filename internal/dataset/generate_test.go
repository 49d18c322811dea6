package dataset_test

import (
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/dataset"
)

// recorder keeps the records of a generated network that its boosts
// and favourites refer to.
type recorder struct {
	posts      map[int64]dataset.Post
	boosts     map[int64]dataset.Boost
	following  map[int64][]int64
	favourites map[int64][]dataset.Favourite
}

func (r *recorder) User(dataset.User) error { return nil }
func (r *recorder) Follows(u int64, fs []int64, _ int64) error {
	r.following[u] = fs
	return nil
}
func (r *recorder) Post(p dataset.Post) error   { r.posts[p.ID] = p; return nil }
func (r *recorder) Boost(b dataset.Boost) error { r.boosts[b.ID] = b; return nil }
func (r *recorder) Favourites(uid int64, fs []dataset.Favourite) error {
	r.favourites[uid] = fs
	return nil
}
func (r *recorder) HomeBoosts(int64, []dataset.HomeBoost) error { return nil }
func (r *recorder) Home(int64, []int64) error                   { return nil }
func (r *recorder) Archive(int64, []int64) error                { return nil }
func (r *recorder) Finish(int64, int64) error                   { return nil }
func (r *recorder) Flush() error                                { return nil }

// TestGeneratedInteractions generates a network whose home timelines
// keep 100 entries and checks what its boosts and favourites refer to:
// a boost is of a public or unlisted post of another user among the 100
// ids before it, with that post's author, and a user boosts a post once;
// a favourite is of a post (not a boost) of someone the user follows,
// made after it, each of a user's a millisecond at least after the one
// before.
func TestGeneratedInteractions(t *testing.T) {
	r := &recorder{posts: map[int64]dataset.Post{}, boosts: map[int64]dataset.Boost{}, following: map[int64][]int64{},
		favourites: map[int64][]dataset.Favourite{}}
	stats, err := dataset.Generate(t.Context(), r, dataset.GenerateOptions{
		NetworkOptions: dataset.NetworkOptions{Users: 200, Posts: 20000, AvgFollows: 10, Span: time.Hour,
			Until: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Seed: 3},
		PasswordHash: "x", Timelines: dataset.Timelines{HomeCap: 100},
	})
	if err != nil || stats.Boosts != len(r.boosts) || stats.Boosts < 800 || stats.Posts != len(r.posts)+len(r.boosts) {
		t.Fatalf("stats %+v, %d posts and %d boosts written, %v; want about one in twenty a boost", stats, len(r.posts), len(r.boosts), err)
	}
	boosted := map[[2]int64]bool{}
	for _, b := range r.boosts {
		p, ok := r.posts[b.Of]
		switch {
		case !ok || b.Of < b.ID-100 || b.Of >= b.ID:
			t.Fatalf("boost %d is of %d, not a post of the 100 ids before it", b.ID, b.Of)
		case p.Author != b.OfAuthor.ID || p.AuthorName != b.OfAuthor.Name || p.Author == b.Booster:
			t.Fatalf("boost %d by %d of post %d by %d names its author %+v", b.ID, b.Booster, b.Of, p.Author, b.OfAuthor)
		case !p.Visibility.Boostable():
			t.Fatalf("boost %d is of post %d, which is %s", b.ID, b.Of, p.Visibility)
		case boosted[[2]int64{b.Booster, b.Of}]:
			t.Fatalf("user %d boosted post %d twice", b.Booster, b.Of)
		}
		boosted[[2]int64{b.Booster, b.Of}] = true
	}
	n := 0
	for uid, fs := range r.favourites {
		for i, f := range fs {
			p, ok := r.posts[f.Post]
			switch {
			case !ok || p.Author != f.Author || !slices.Contains(r.following[uid], f.Author):
				t.Fatalf("user %d favourited %+v, not a post of someone they follow", uid, f)
			case f.Time < p.Time*1000 || i > 0 && f.Time <= fs[i-1].Time:
				t.Fatalf("user %d's favourites are not each later than the post and the one before: %+v", uid, fs)
			}
		}
		n += len(fs)
	}
	if n != stats.Favourites || n < 300 {
		t.Fatalf("%d favourites written, %d counted; want about three a user", n, stats.Favourites)
	}
}
