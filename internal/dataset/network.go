package dataset

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NetworkOptions describe a synthetic social network. The same options
// (Seed included) always give the same network.
type NetworkOptions struct {
	Users      int           // number of users, named user1, user2, …
	Posts      int           // number of posts, one in twenty or so a boost
	AvgFollows int           // average number of accounts a user follows
	Span       time.Duration // posts are spread over this long…
	Until      time.Time     // …up to this time
	Seed       uint64
	Skew       float64 // Zipf exponent of popularity (> 1; 1.2 when zero)
}

func (o *NetworkOptions) check() error {
	if o.Skew == 0 {
		o.Skew = 1.2
	}
	switch {
	case o.Users < 2:
		return errorf("a network needs at least 2 users")
	case o.Posts < 0 || o.AvgFollows < 0:
		return errorf("posts and follows cannot be negative")
	case o.AvgFollows >= o.Users:
		return errorf("the average number of follows must be smaller than the number of users")
	case o.Skew <= 1:
		return errorf("the popularity skew must be greater than 1")
	case o.Users > math.MaxInt32 || o.Posts > math.MaxInt32:
		return errorf("at most %d users and posts", math.MaxInt32)
	}
	return nil
}

// network generates a social network. Popularity follows a power law: a
// user's rank in a random permutation decides how likely others are to
// follow them and how much they post. Who follows whom is recomputed from
// the seed whenever it is needed, rather than stored, so memory grows with
// users and posts (4 to 16 bytes each) but not with follows.
type network struct {
	o       NetworkOptions
	perm    []int32   // popularity rank -> user index
	cdf     []float64 // cumulative posting weight by user index
	offsets []int32   // posts of user index i are pids[offsets[i]:offsets[i+1]]
	pids    []int32   // ascending within each user
	boosts  boosts    // the posts that are boosts, as the posts stage makes them
}

func newNetwork(o NetworkOptions) *network {
	rng := rand.New(rand.NewPCG(o.Seed, 1))
	n := &network{o: o, perm: make([]int32, o.Users), cdf: make([]float64, o.Users)}
	weights := make([]float64, o.Users)
	for rank, u := range rng.Perm(o.Users) {
		n.perm[rank] = int32(u)
		weights[u] = 1 / math.Pow(float64(rank+1), o.Skew)
	}
	sum := 0.0
	for i, w := range weights {
		sum += w
		n.cdf[i] = sum
	}
	n.indexPosts()
	return n
}

// indexPosts groups post ids by author: one pass counts, a second pass
// (the same random sequence again) fills in.
func (n *network) indexPosts() {
	counts := make([]int32, n.o.Users+1)
	authors := n.authors()
	for range n.o.Posts {
		counts[authors()+1]++
	}
	for i := 1; i <= n.o.Users; i++ {
		counts[i] += counts[i-1]
	}
	n.offsets = counts
	n.pids = make([]int32, n.o.Posts)
	next := slices.Clone(counts[:n.o.Users])
	authors = n.authors()
	for pid := 1; pid <= n.o.Posts; pid++ {
		a := authors()
		n.pids[next[a]] = int32(pid)
		next[a]++
	}
}

// authors returns a function giving the author (user index) of post 1,
// 2, 3, … in turn, drawn in proportion to popularity.
func (n *network) authors() func() int {
	rng := rand.New(rand.NewPCG(n.o.Seed, 2))
	total := n.cdf[len(n.cdf)-1]
	return func() int {
		i, _ := slices.BinarySearch(n.cdf, rng.Float64()*total)
		return min(i, len(n.cdf)-1)
	}
}

// following returns the user ids user uid follows, always the same ones.
func (n *network) following(uid int64) []int64 {
	rng := rand.New(rand.NewPCG(n.o.Seed, 1_000_000+uint64(uid)))
	k := min(n.o.Users-1, int(rng.ExpFloat64()*float64(n.o.AvgFollows)))
	zipf := rand.NewZipf(rng, n.o.Skew, 1, uint64(n.o.Users-1))
	out := make([]int64, 0, k)
	for tries := 0; len(out) < k && tries < 4*k+10; tries++ {
		f := int64(n.perm[zipf.Uint64()]) + 1
		if f != uid && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// postTime returns when post pid was written: posts are spread evenly.
func (n *network) postTime(pid int) int64 {
	start := n.o.Until.Add(-n.o.Span).Unix()
	return start + int64(float64(pid)/float64(max(n.o.Posts, 1))*n.o.Span.Seconds())
}

// seedWords make up the text of generated posts.
var seedWords = strings.Fields(`the a redis timeline post today just shipped reading coffee ` +
	`weekend code review deploy latency cache cluster stream lock index fast slow great ` +
	`new old build test fixed broke learned love hate think why how when finally again`)

// Given and family names make up the display names of generated users:
// Latin with and without accents, Greek, Cyrillic and Japanese, so that
// searches meet folding.
var (
	givenNames = strings.Fields(`Ada Alan Anna Ana Amélie Björn Carlos Chloé Dmitri Ελένη Emma Erik François Grace Hana ` +
		`Hiro Igor Inès Ivan José Juan Julia Karl Lea Léa Lucas Łukasz María Maria Marie Mateo Mia Noah Nora Olga ` +
		`Omar Ömer Paul Pia Raj Sara Søren Tomás Yuki Zoë Александр Анна 花子 太郎`)
	familyNames = strings.Fields(`Abe Andersen Bauer Brown Castro Chen Costa Dubois García Garcia Hansen Ivanov Jones ` +
		`Kim Kowalski Lee López Martin Müller Mueller Nagy Novak Núñez Olsen Papadopoulos Παπαδόπουλος Petrov ` +
		`Рябов Rossi Sato Schmidt Silva Smith Suzuki Tanaka Weber Yılmaz 山田 佐藤`)
)

// displayName returns the display name of user uid: a given name and a
// family name, for three users in four; none for the others.
func (n *network) displayName(uid int) string {
	rng := rand.New(rand.NewPCG(n.o.Seed, 1<<42+uint64(uid)))
	if rng.IntN(4) == 0 {
		return ""
	}
	return givenNames[rng.IntN(len(givenNames))] + " " + familyNames[rng.IntN(len(familyNames))]
}

// Words returns the words generated posts are made of; their tags are
// some of these words.
func Words() []string { return slices.Clone(seedWords) }

// body returns the text of post pid: a few words, sometimes an @mention
// of another user and a #hashtag.
func (n *network) body(pid int) string {
	rng := rand.New(rand.NewPCG(n.o.Seed, 1<<40+uint64(pid)))
	words := make([]string, 4+rng.IntN(14))
	for i := range words {
		words[i] = seedWords[rng.IntN(len(seedWords))]
	}
	if rng.IntN(4) == 0 {
		words[rng.IntN(len(words))] = "@user" + strconv.Itoa(1+rng.IntN(n.o.Users))
	}
	if rng.IntN(3) == 0 {
		words = append(words, "#"+seedWords[rng.IntN(len(seedWords))])
	}
	return strings.Join(words, " ")
}

// replyTo says whether post pid answers one of the posts before it, and
// which of the recent ones (an index below recent): one post in five
// does, when there is one.
func (n *network) replyTo(pid, recent int) (int, bool) {
	rng := rand.New(rand.NewPCG(n.o.Seed, 1<<41+uint64(pid)))
	if recent == 0 || rng.IntN(5) != 0 {
		return 0, false
	}
	return rng.IntN(recent), true
}

// isBoostSlot reports whether generated post pid is to be a boost: one
// in twenty is, if it finds a post to boost (boostTarget). They are ids
// that VisibilityOf leaves public, as a boost is.
func isBoostSlot(pid int) bool { return pid%20 == 3 }

// boostTarget returns the post that post pid, a boost by booster, boosts,
// if a few draws among the window ids before it find one that fits: a
// post (not a boost) that may be boosted, by another user, that booster
// has not boosted yet. authorOf gives the author of each of those ids (0
// for a boost).
func (n *network) boostTarget(pid int, booster int32, window int, authorOf func(pid int) int32) (int, bool) {
	rng := rand.New(rand.NewPCG(n.o.Seed, 1<<43+uint64(pid)))
	for range 4 {
		of := pid - 1 - rng.IntN(window)
		if of < 1 {
			continue
		}
		if a := authorOf(of); a != 0 && a != booster && VisibilityOf(of).Boostable() &&
			!n.boosts.boosted(len(n.boosts.list), int32(of), booster) {
			return of, true
		}
	}
	return 0, false
}

// Favourites of generated users.
const (
	// maxFavourites is the most posts a user favourites: from none to
	// this many, evenly, so three on average.
	maxFavourites = 6
	// favouriteDelay is the longest a post waits for a favourite.
	favouriteDelay = time.Hour
)

// favouritesOf returns the favourites of user uid, oldest first: posts
// (not boosts) of the users uid follows, each favourited within
// favouriteDelay of its time (but not after untilMs, unix ms), each
// later than the one before by a millisecond at least, as a server
// scores a user's marks.
func (n *network) favouritesOf(uid int64, untilMs int64) []Favourite {
	rng := rand.New(rand.NewPCG(n.o.Seed, 1<<44+uint64(uid)))
	k := rng.IntN(maxFavourites + 1)
	follows := n.following(uid)
	if k == 0 || len(follows) == 0 {
		return nil
	}
	out := make([]Favourite, 0, k)
	for tries := 0; len(out) < k && tries < 4*k; tries++ {
		author := follows[rng.IntN(len(follows))]
		own := n.postsBy(author)
		if len(own) == 0 {
			continue
		}
		pid := own[rng.IntN(len(own))]
		if n.boosts.isBoost(pid) || slices.ContainsFunc(out, func(f Favourite) bool { return f.Post == int64(pid) }) {
			continue
		}
		at := n.postTime(int(pid)) * 1000
		at += rng.Int64N(max(min(favouriteDelay.Milliseconds(), untilMs-at), 0) + 1)
		out = append(out, Favourite{Post: int64(pid), Author: author, Time: at})
	}
	slices.SortFunc(out, func(a, b Favourite) int { return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.Post, b.Post)) })
	for i := 1; i < len(out); i++ {
		out[i].Time = max(out[i].Time, out[i-1].Time+1)
	}
	return out
}

// postsBy returns uid's post ids, ascending.
func (n *network) postsBy(uid int64) []int32 { return n.pids[n.offsets[uid-1]:n.offsets[uid]] }

// boosted returns the boosts made so far.
func (n *network) boosted() *boosts { return &n.boosts }
