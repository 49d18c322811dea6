package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
)

// SeedOptions describe a synthetic social network for benchmarks.
type SeedOptions struct {
	Users      int // number of users, named user1, user2, …
	Posts      int // number of posts, spread over Span
	AvgFollows int // average number of accounts a user follows
	Span       time.Duration
	Seed       uint64  // the same seed gives the same network
	Password   string  // every user's password
	Skew       float64 // Zipf exponent of popularity (> 1; 1.2 when zero)
	// Progress, if set, is told what is being written, now and then.
	Progress func(stage string, done, total int)
}

// SeedStats reports what Seed wrote.
type SeedStats struct {
	Users, Follows, Posts, TimelineEntries int
	MaxFollowers                           int // followers of the most followed user
}

const seedPipeline = 5000 // commands per pipeline while seeding

// Seed writes a synthetic network into an empty database, in retwis's own
// layout, consistent in every index (home timelines, own-post indexes,
// global timeline, counters), so that retwis serves it at once.
// Popularity follows a power law: a few users have very many followers,
// most have few. Posts are spread evenly over the last Span, their
// authors drawn in proportion to popularity.
func (s *Store) Seed(ctx context.Context, o SeedOptions) (SeedStats, error) {
	if o.Users < 2 || o.Posts < 0 || o.AvgFollows < 0 || o.AvgFollows >= o.Users {
		return SeedStats{}, fmt.Errorf("store: seed: need at least 2 users and fewer average follows than users")
	}
	if o.Skew == 0 {
		o.Skew = 1.2
	}
	if err := s.checkEmpty(ctx); err != nil {
		return SeedStats{}, err
	}
	hash, err := s.hashPassword(ctx, o.Password)
	if err != nil {
		return SeedStats{}, err
	}
	w := &seedWriter{s: s, ctx: ctx, progress: o.Progress}
	g := newGraph(o)
	stats := SeedStats{Users: o.Users}
	if err := w.users(o, hash); err != nil {
		return stats, err
	}
	if stats.Follows, stats.MaxFollowers, err = w.follows(g); err != nil {
		return stats, err
	}
	byAuthor, err := w.posts(o, g)
	if err != nil {
		return stats, err
	}
	stats.Posts = o.Posts
	stats.TimelineEntries, err = w.timelines(g, byAuthor)
	return stats, err
}

// checkEmpty makes sure there are no users or posts yet (a server may
// have created its delivery queue already).
func (s *Store) checkEmpty(ctx context.Context) error {
	b := s.c.B()
	for _, r := range s.c.DoMulti(ctx,
		b.Exists().Key(keyNextUserID).Build(), b.Exists().Key(keyNextPostID).Build(), b.Exists().Key(keyUsers).Build()) {
		n, err := r.AsInt64()
		if err != nil {
			return s.wrap("seed", err)
		}
		if n > 0 {
			return fmt.Errorf("store: seed: the database already holds users or posts; seed an empty one")
		}
	}
	return nil
}

// graph is who follows whom, as follower -> followees.
type graph struct {
	following [][]int64 // index uid-1
	weights   []float64 // popularity of each user, for choosing authors
	rng       *rand.Rand
}

func newGraph(o SeedOptions) *graph {
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	// Popularity rank -> user: a random permutation, so user1 is not special.
	perm := rng.Perm(o.Users)
	zipf := rand.NewZipf(rng, o.Skew, 1, uint64(o.Users-1))
	g := &graph{following: make([][]int64, o.Users), weights: make([]float64, o.Users), rng: rng}
	for rank, u := range perm {
		g.weights[u] = 1 / math.Pow(float64(rank+1), o.Skew)
	}
	for u := range o.Users {
		// How many a user follows varies too: exponential around the mean.
		k := min(o.Users-1, int(rng.ExpFloat64()*float64(o.AvgFollows)))
		seen := map[int]bool{u: true}
		for tries := 0; len(seen)-1 < k && tries < 4*k+10; tries++ {
			f := perm[zipf.Uint64()]
			if !seen[f] {
				seen[f] = true
				g.following[u] = append(g.following[u], int64(f+1))
			}
		}
	}
	return g
}

// seedWriter sends seeding commands in large pipelines.
type seedWriter struct {
	s        *Store
	ctx      context.Context
	progress func(stage string, done, total int)
	cmds     rueidis.Commands
}

func (w *seedWriter) add(cmd rueidis.Completed) error {
	w.cmds = append(w.cmds, cmd)
	if len(w.cmds) >= seedPipeline {
		return w.flush()
	}
	return nil
}

func (w *seedWriter) flush() error {
	if len(w.cmds) == 0 {
		return nil
	}
	err := firstErr(w.s.c.DoMulti(w.ctx, w.cmds...))
	w.cmds = w.cmds[:0]
	return w.s.wrap("seed", err)
}

// report tells the progress callback how far a stage has got: every so
// often (every, in items) and once at the end.
func (w *seedWriter) report(stage string, done, total, every int) {
	if w.progress != nil && (done == total || done%every == 0) {
		w.progress(stage, done, total)
	}
}

func (w *seedWriter) users(o SeedOptions, hash string) error {
	b := w.s.c.B()
	now := time.Now().Unix()
	for i := 1; i <= o.Users; i++ {
		uid := int64(i)
		name := "user" + strconv.Itoa(i)
		secret := newSecret()
		cmds := append(rueidis.Commands{
			b.Hset().Key(keyUser(uid)).FieldValue().FieldValue("username", name).
				FieldValue("auth", secret).FieldValue("password_hash", hash).Build(),
			b.Hset().Key(keyAuths).FieldValue().FieldValue(secret, id(uid)).Build(),
			b.Hset().Key(keyUsers).FieldValue().FieldValue(name, id(uid)).Build(),
			b.Hset().Key(keyUsersFolded).FieldValue().FieldValue(name, id(uid)).Build(),
			b.Zadd().Key(keyUsersByTime).ScoreMember().ScoreMember(float64(now-int64(o.Users-i)), name).Build(),
		}, w.s.seenCmds(uid, now)...)
		for _, c := range cmds {
			if err := w.add(c); err != nil {
				return err
			}
		}
		if i < o.Users {
			w.report("users", i, o.Users, 10_000)
		}
	}
	if err := w.add(b.Set().Key(keyNextUserID).Value(strconv.Itoa(o.Users)).Build()); err != nil {
		return err
	}
	err := w.flush()
	w.report("users", o.Users, o.Users, 1)
	return err
}

func (w *seedWriter) follows(g *graph) (total, maxFollowers int, err error) {
	b := w.s.c.B()
	followers := make([]int, len(g.following))
	now := float64(time.Now().Unix())
	for u, fs := range g.following {
		uid := int64(u + 1)
		for _, f := range fs {
			followers[f-1]++
			total++
			if err := w.add(b.Zadd().Key(keyFollowing(uid)).ScoreMember().ScoreMember(now, id(f)).Build()); err != nil {
				return 0, 0, err
			}
			if err := w.add(b.Zadd().Key(keyFollowers(f)).ScoreMember().ScoreMember(now, id(uid)).Build()); err != nil {
				return 0, 0, err
			}
		}
		if u+1 < len(g.following) {
			w.report("follows", u+1, len(g.following), 10_000)
		}
	}
	err = w.flush()
	w.report("follows", len(g.following), len(g.following), 1)
	return total, slices.Max(followers), err
}

// seedWords make up the text of generated posts.
var seedWords = strings.Fields(`the a redis timeline post today just shipped reading coffee ` +
	`weekend code review deploy latency cache cluster stream lock index fast slow great ` +
	`new old build test fixed broke learned love hate think why how when finally again`)

func (w *seedWriter) posts(o SeedOptions, g *graph) ([][]int64, error) {
	b := w.s.c.B()
	byAuthor := make([][]int64, len(g.following))
	start := time.Now().Add(-o.Span).Unix()
	pick := newPicker(g.weights)
	for i := 1; i <= o.Posts; i++ {
		pid := int64(i)
		author := int64(pick.pick(g.rng) + 1)
		byAuthor[author-1] = append(byAuthor[author-1], pid)
		ts := start + int64(float64(i)/float64(max(o.Posts, 1))*o.Span.Seconds())
		cmds := rueidis.Commands{
			b.Hset().Key(keyPost(pid)).FieldValue().FieldValue("user_id", id(author)).
				FieldValue("time", strconv.FormatInt(ts, 10)).FieldValue("body", postText(g.rng, len(g.following))).Build(),
			b.Zadd().Key(keyUserPosts(author)).ScoreMember().ScoreMember(float64(pid), id(pid)).Build(),
		}
		if o.Posts-i < globalTimelineN {
			cmds = append(cmds, b.Lpush().Key(keyTimeline).Element(id(pid)).Build())
		}
		for _, c := range cmds {
			if err := w.add(c); err != nil {
				return nil, err
			}
		}
		if i < o.Posts {
			w.report("posts", i, o.Posts, 100_000)
		}
	}
	if err := w.add(b.Set().Key(keyNextPostID).Value(strconv.Itoa(o.Posts)).Build()); err != nil {
		return nil, err
	}
	err := w.flush()
	w.report("posts", o.Posts, o.Posts, 1)
	return byAuthor, err
}

func postText(rng *rand.Rand, users int) string {
	n := 4 + rng.IntN(14)
	words := make([]string, n)
	for i := range words {
		words[i] = seedWords[rng.IntN(len(seedWords))]
	}
	if rng.IntN(4) == 0 {
		words[rng.IntN(n)] = "@user" + strconv.Itoa(1+rng.IntN(users))
	}
	if rng.IntN(3) == 0 {
		words = append(words, "#"+seedWords[rng.IntN(len(seedWords))])
	}
	return strings.Join(words, " ")
}

// timelines writes every home timeline: the newest HomeCap posts of the
// user and the users they follow, complete down to the last entry.
func (w *seedWriter) timelines(g *graph, byAuthor [][]int64) (int, error) {
	b := w.s.c.B()
	total := 0
	capacity := w.s.opts.HomeCap
	for u, fs := range g.following {
		uid := int64(u + 1)
		lists := [][]int64{newest(byAuthor[u], capacity)}
		for _, f := range fs {
			lists = append(lists, newest(byAuthor[f-1], capacity))
		}
		ids := mergeDesc(lists, capacity, false)
		if len(ids) == 0 {
			continue
		}
		vals := make([]string, len(ids))
		for i, p := range ids {
			vals[i] = id(p)
		}
		total += len(ids)
		if err := w.add(b.Rpush().Key(keyHome(uid)).Element(vals...).Build()); err != nil {
			return 0, err
		}
		if u+1 < len(g.following) {
			w.report("timelines", u+1, len(g.following), 10_000)
		}
	}
	err := w.flush()
	w.report("timelines", len(g.following), len(g.following), 1)
	return total, err
}

// newest returns the last n ids of an ascending list, newest first.
func newest(ids []int64, n int) []int64 {
	out := slices.Clone(ids[max(0, len(ids)-n):])
	slices.Reverse(out)
	return out
}

// picker draws indexes in proportion to weights (inverse CDF).
type picker struct{ cdf []float64 }

func newPicker(weights []float64) picker {
	cdf := make([]float64, len(weights))
	sum := 0.0
	for i, w := range weights {
		sum += w
		cdf[i] = sum
	}
	return picker{cdf: cdf}
}

func (p picker) pick(rng *rand.Rand) int {
	x := rng.Float64() * p.cdf[len(p.cdf)-1]
	i, _ := slices.BinarySearch(p.cdf, x)
	return min(i, len(p.cdf)-1)
}

// AddFakeFollowers gives uid n followers with ids from first on, who need
// not exist: enough to measure fanout to a large audience.
func (s *Store) AddFakeFollowers(ctx context.Context, uid, first int64, n int) error {
	w := &seedWriter{s: s, ctx: ctx}
	now := float64(time.Now().Unix())
	for i := range int64(n) {
		if err := w.add(s.c.B().Zadd().Key(keyFollowers(uid)).ScoreMember().ScoreMember(now, id(first+i)).Build()); err != nil {
			return err
		}
	}
	return w.flush()
}

// FollowAll makes follower follow every one of followees, then rebuilds
// follower's home timeline once (cheaper than a backfill per follow).
func (s *Store) FollowAll(ctx context.Context, follower int64, followees []int64) error {
	w := &seedWriter{s: s, ctx: ctx}
	b := s.c.B()
	now := float64(time.Now().Unix())
	for _, f := range followees {
		if f == follower {
			continue
		}
		if err := w.add(b.Zadd().Key(keyFollowing(follower)).ScoreMember().ScoreMember(now, id(f)).Build()); err != nil {
			return err
		}
		if err := w.add(b.Zadd().Key(keyFollowers(f)).ScoreMember().ScoreMember(now, id(follower)).Build()); err != nil {
			return err
		}
	}
	if err := w.flush(); err != nil {
		return err
	}
	return s.RebuildHome(ctx, follower)
}

// UsedMemory returns Redis's own count of the memory it uses (INFO
// memory, used_memory), summed over the nodes of a cluster.
func (s *Store) UsedMemory(ctx context.Context) (int64, error) {
	var total int64
	for _, node := range s.c.Nodes() {
		info, err := node.Do(ctx, node.B().Info().Section("memory").Build()).ToString()
		if err != nil {
			return 0, s.wrap("used memory", err)
		}
		for line := range strings.SplitSeq(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				total += n
			}
		}
	}
	return total, nil
}

// IsCelebrity reports whether uid's posts are merged at read time rather
// than fanned out.
func (s *Store) IsCelebrity(ctx context.Context, uid int64) (bool, error) {
	n, err := s.c.Do(ctx, s.c.B().Sismember().Key(keyCelebrities).Member(id(uid)).Build()).AsBool()
	return n, s.wrap("celebrity", err)
}

// DeliveryDone reports whether the newest post of author has reached the
// author's last follower. Jobs walk followers in order, so once the last
// one has it, every one has (but those skipped as inactive).
func (s *Store) DeliveryDone(ctx context.Context, author int64) (bool, error) {
	b := s.c.B()
	res := s.c.DoMulti(ctx,
		b.Zrevrange().Key(keyUserPosts(author)).Start(0).Stop(0).Build(),
		b.Zrange().Key(keyFollowers(author)).Min("-1").Max("-1").Build())
	post, err1 := res[0].AsIntSlice()
	last, err2 := res[1].AsIntSlice()
	if err := errors.Join(err1, err2); err != nil {
		return false, s.wrap("delivery done", err)
	}
	if len(post) == 0 || len(last) == 0 {
		return true, nil
	}
	head, err := s.c.Do(ctx, b.Lindex().Key(keyHome(last[0])).Index(0).Build()).AsInt64()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	return head == post[0], s.wrap("delivery done", err)
}

// DeliveryBacklog returns how many delivery jobs are waiting or running.
func (s *Store) DeliveryBacklog(ctx context.Context) (int64, error) {
	n, err := s.c.Do(ctx, s.c.B().Xlen().Key(keyDeliveries).Build()).AsInt64()
	return n, s.wrap("delivery backlog", err)
}
