// Package bulk writes whole datasets (internal/dataset's records) in
// retwis's layout offline: `retwis gen` and `retwis import` as a RESP
// stream, `retwis bench` straight into a database. It is its own package
// because nothing online calls it, and it needs nothing of the online
// store's but the kernel: every index it writes is built by package
// index, with the same builders as the online writers, so a bulk-written
// database is the one a server would have written.
//
// BuildTimeline, a seeding helper of retwis bench that the online store
// used to offer and that writes with the bulk writer, lives here too, so
// that the arrows point one way: bulk uses the store, the store never
// uses bulk.
package bulk

import (
	"context"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Writer writes whole datasets (internal/dataset's records) in
// retwis's layout, consistent in every index, so that a server serves
// them at once. It is the one place that knows what a user, a follow or a
// post writes in bulk: `retwis gen` and `retwis import` write it as a
// RESP stream (NewRESPWriter), `retwis bench --seed` straight into a
// database (NewLiveWriter). Users get no auth secret: logging in
// gives them one. It is not safe for concurrent use.
type Writer struct {
	out    sink
	chunk  int     // entries per chunk of an archive
	recent []int64 // ids of the newest posts, oldest first: the global timeline
	// tags counts the posts of each folded tag, for the completion index
	// and the trends, which Finish writes.
	tags   map[string]*tagCount
	first  int64 // the first tagged post's time: where log weights start
	latest int64 // the newest post's time: the trends' epoch
	// accounts counts what the directory indexes of each user, which
	// Finish writes.
	accounts map[int64]bulkAccount
}

// bulkAccount is what the bulk writer counts of a user for the
// directory: its entry's facts.
type bulkAccount struct {
	joined    int64   // unix time of sign-up
	followers int64   // how many follow the user
	posts     []int64 // the times of the user's posts of the last week written so far
	newest    int64   // the id of the user's newest post (0: none)
}

// tagCount is what the bulk writer counts of a tag.
type tagCount struct {
	written string // as first written
	posts   int64  // how many posts used it
	// logWeight is log2 of the tag's trend weight at the time first: the
	// sum of 2^((t - first) / half-life) over its posts, kept as a log so
	// that years of posts do not overflow it.
	logWeight float64
}

var _ dataset.Writer = (*Writer)(nil)

// sink receives commands whose key is their second element, so that the
// RESP stream can be routed by slot.
type sink interface {
	command(args ...string) error
	ints(name, key string, values []int64) error // a command whose arguments are integers
	flush() error
}

// NewRESPWriter returns a Writer that writes RESP to w, for `retwis
// load` or `redis-cli --pipe`, with archives in chunks of the default
// size.
func NewRESPWriter(w *resp.Writer) *Writer {
	return &Writer{out: respSink{w}, chunk: kernel.DefaultArchiveChunk}
}

// NewLiveWriter returns a Writer into db's database (a store's: pass
// its DB), sending commands in large pipelines.
func NewLiveWriter(ctx context.Context, db *kernel.DB) *Writer {
	return &Writer{out: &redisSink{db: db, ctx: ctx}, chunk: db.Opts.ArchiveChunk}
}

// User writes one user: the hash (with the time last seen and the
// display name, if any), both name indexes, the registration time and
// the people search.
func (w *Writer) User(u dataset.User) error {
	uid, at := kernel.ID(u.ID), strconv.FormatInt(u.Seen, 10)
	user := []string{"HSET", schema.User(u.ID), schema.FieldUsername, u.Name, schema.FieldPasswordHash, u.PasswordHash,
		schema.FieldSeen, at, schema.FieldJoined, strconv.FormatInt(u.Registered, 10)}
	w.account(u.ID, func(a *bulkAccount) { a.joined = u.Registered })
	if u.DisplayName != "" {
		user = append(user, schema.FieldDisplayName, u.DisplayName)
	}
	return w.all(append([][]string{
		user,
		{"HSET", schema.Names(u.Name), u.Name, uid},
		{"HSET", schema.NamesFolded(u.Name), retwis.FoldUsername(u.Name), uid},
		{"ZADD", schema.UsersByTime, strconv.FormatInt(u.Registered, 10), u.Name},
	}, index.PeopleWrites(u.ID, retwis.SearchTerms(u.Name, u.DisplayName), nil)...))
}

// Follows records that follower follows each of followees since at, in
// both sorted sets and the graph.
func (w *Writer) Follows(follower int64, followees []int64, at int64) error {
	if len(followees) == 0 {
		return nil
	}
	ts := strconv.FormatInt(at, 10)
	following := []string{"ZADD", schema.Following(follower)}
	cmds := make([][]string, 0, len(followees)+1)
	for _, f := range followees {
		following = append(following, ts, kernel.ID(f))
		cmds = append(cmds, []string{"ZADD", schema.Followers(f), ts, kernel.ID(follower)})
		w.account(f, func(a *bulkAccount) { a.followers++ })
		cmds = append(cmds, index.EdgeWrites("ZADD", follower, schema.RelFollows, f)...)
	}
	return w.all(append(cmds, following))
}

// Post writes one post, indexes it under its author, and enters it in
// the indexes of its conversations (tags, mentions, replies and
// notifications, conversations; the tag counts wait for Finish); the newest public
// posts form the global timeline, written by Finish; unlisted and
// followers-only ones enter no tag index, as online. The post is marked
// delivered (at the time it was made): the dataset's home timelines hold
// it already, and maintenance must not take a recent post without the
// mark for one whose delivery job vanished.
func (w *Writer) Post(p dataset.Post) error {
	pid := kernel.ID(p.ID)
	if p.Visibility.Listed() {
		w.recent = append(w.recent, p.ID)
	}
	if len(w.recent) > 2*schema.TimelineCap {
		w.recent = append(w.recent[:0], w.recent[len(w.recent)-schema.TimelineCap:]...)
	}
	post := index.Post{ID: p.ID, Author: p.Author, Time: p.Time, Conv: conversationOf(p), Noted: p.Time * 1000, Visibility: p.Visibility}
	hash := append([]string{"HSET", schema.Post(p.ID), schema.FieldUserID, kernel.ID(p.Author), schema.FieldAuthor, p.AuthorName,
		schema.FieldTime, strconv.FormatInt(p.Time, 10), schema.FieldBody, p.Body,
		schema.FieldDelivered, strconv.FormatInt(p.Time*1000, 10)}, post.Conv.Fields()...)
	if p.Visibility != retwis.Public {
		hash = append(hash, schema.FieldVisibility, p.Visibility.String())
	}
	w.count(post)
	w.account(p.Author, func(a *bulkAccount) { a.posts, a.newest = append(a.posts, p.Time), max(a.newest, p.ID) })
	writes := append([][]string{hash, {"ZADD", schema.UserPosts(p.Author), pid, pid}}, index.Writes(post)...)
	return w.all(append(writes, index.ConversationWrites(post, false)...))
}

// Boost writes one boost as a server would have once its job ran: its
// hash (without the delivered mark: it is not on the global timeline,
// where vanished deliveries are looked for), the booster's mark and
// posts (which count it in the directory, as a post), who boosted the
// post and its count, and the author's notification, at the time of the
// boost. The home timelines it reached hold it already (see HomeBoosts).
func (w *Writer) Boost(b dataset.Boost) error {
	author := retwis.User{ID: b.OfAuthor.ID, Username: b.OfAuthor.Name}
	hash := append([]string{"HSET", schema.Post(b.ID)}, index.BoostFields(b.Booster, b.BoosterName, b.Time, b.Of, author)...)
	w.latest = max(w.latest, b.Time)
	w.account(b.Booster, func(a *bulkAccount) { a.posts, a.newest = append(a.posts, b.Time), max(a.newest, b.ID) })
	cmds := append([][]string{hash}, index.BoostWrites(b.Booster, b.ID, b.Of)...)
	return w.all(append(cmds, index.BoostedWrites(b.Booster, b.Of, author.ID, b.Time*1000)...))
}

// Favourites writes uid's favourites as a server would have once their
// jobs ran (see index.FavouriteWrites), the authors notified at the time
// of each.
func (w *Writer) Favourites(uid int64, fs []dataset.Favourite) error {
	for _, f := range fs {
		if err := w.all(index.FavouriteWrites(uid, f.Post, f.Author, f.Time)); err != nil {
			return err
		}
	}
	return nil
}

// HomeBoosts records boosts that uid's home timeline got, as
// kernel.PushBoost does: the boosted post, scored by the boost's id.
func (w *Writer) HomeBoosts(uid int64, boosts []dataset.HomeBoost) error {
	scored := make([]int64, 0, 2*len(boosts))
	for _, b := range boosts {
		scored = append(scored, b.ID, b.Of)
	}
	return w.out.ints("ZADD", schema.HomeBoosts(uid), scored)
}

// conversationOf returns what a dataset post records of its
// conversations.
func conversationOf(p dataset.Post) index.Conversation {
	c := index.Conversation{Tags: p.Tags, ReplyTo: p.InReplyTo, Ancestors: p.Ancestors,
		ReplyUser: retwis.User{ID: p.ReplyTo.ID, Username: p.ReplyTo.Name}}
	for _, u := range p.Mentions {
		c.Mentions = append(c.Mentions, retwis.User{ID: u.ID, Username: u.Name})
	}
	return c
}

// count counts the tags of p.
func (w *Writer) count(p index.Post) {
	w.latest = max(w.latest, p.Time)
	for _, tag := range p.ListedTags() {
		f := retwis.FoldTag(tag)
		if f == "" {
			continue
		}
		if w.tags == nil {
			w.tags, w.first = map[string]*tagCount{}, p.Time
		}
		x := float64(p.Time-w.first) / index.TrendHalfLife.Seconds()
		c := w.tags[f]
		if c == nil {
			c = &tagCount{written: tag, logWeight: x}
			w.tags[f] = c
		} else { // log2(2^a + 2^b), without leaving the range of a double
			hi, lo := max(c.logWeight, x), min(c.logWeight, x)
			c.logWeight = hi + math.Log2(1+math.Exp2(lo-hi))
		}
		c.posts++
	}
}

// account changes what the writer counts of user uid for the directory.
// Of a user's posts only those of the week before the newest post
// written so far are kept, and of those the newest index.LegacyPostsCounted
// (the ids of a dataset tell no time, and a server counts no more of
// those).
func (w *Writer) account(uid int64, change func(*bulkAccount)) {
	if w.accounts == nil {
		w.accounts = map[int64]bulkAccount{}
	}
	a := w.accounts[uid]
	change(&a)
	week := w.latest - int64(retwis.DirectoryWeek/time.Second)
	a.posts = slices.DeleteFunc(a.posts, func(t int64) bool { return t < week })
	if extra := len(a.posts) - index.LegacyPostsCounted; extra > 0 { // as a server counts posts whose ids tell no time
		a.posts = a.posts[extra:]
	}
	w.accounts[uid] = a
}

// finishDirectory writes each user's entry in the directory, with the
// posts of the week before the newest post (so that a dataset gives the
// same bytes whenever it is written; a week after it was, maintenance
// has brought the counts up to date).
func (w *Writer) finishDirectory() error {
	week := w.latest - int64(retwis.DirectoryWeek/time.Second)
	for _, uid := range slices.Sorted(maps.Keys(w.accounts)) {
		a := w.accounts[uid]
		recent := len(slices.DeleteFunc(a.posts, func(t int64) bool { return t < week }))
		code := index.Code(a.followers, int64(recent), time.Unix(a.joined, 0))
		if err := w.out.command(index.EntryWrite(uid, true, code)...); err != nil {
			return err
		}
		if a.newest > 0 {
			if err := w.out.command(index.ActivityWrite(uid, true, a.newest)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// finishTags writes what count counted: each tag's entry in the
// completion index, and its weight in the trends, with the newest post's
// time as the trends' epoch.
func (w *Writer) finishTags() error {
	if len(w.tags) == 0 {
		return nil
	}
	for n := range schema.TrendShards {
		if err := w.out.command("SET", schema.TrendEpoch(n), strconv.FormatInt(w.latest, 10)); err != nil {
			return err
		}
	}
	now := float64(w.latest-w.first) / index.TrendHalfLife.Seconds()
	for _, f := range slices.Sorted(maps.Keys(w.tags)) { // the same bytes for the same dataset
		c := w.tags[f]
		weight := math.Exp2(c.logWeight - now)
		err := w.all([][]string{
			{"ZADD", schema.Completion(schema.CompletionOf(f)), "0", f + ":" + strconv.FormatInt(c.posts, 10) + ":" + c.written},
			{"ZADD", schema.Trends(schema.TrendsOf(f)), strconv.FormatFloat(weight, 'g', -1, 64), f},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Home writes uid's home timeline, ids newest first.
func (w *Writer) Home(uid int64, ids []int64) error {
	for start := 0; start < len(ids); start += 1000 {
		if err := w.out.ints("RPUSH", schema.Home(uid), ids[start:min(start+1000, len(ids))]); err != nil {
			return err
		}
	}
	return nil
}

// Archive writes the archive of uid's home timeline: ids, newest first,
// all older than its list, in chunks as a server makes them, full but
// for the oldest. The chunks are numbered from the oldest, 0, up, so
// that the server's next chunk follows the newest.
func (w *Writer) Archive(uid int64, ids []int64) error {
	chunks := (len(ids) + w.chunk - 1) / w.chunk
	index := []string{"ZADD", schema.Archive(uid)}
	for k := range chunks {
		part := ids[k*w.chunk : min((k+1)*w.chunk, len(ids))]
		n := int64(chunks - 1 - k)
		if err := w.out.ints("RPUSH", schema.ArchiveChunk(uid, n), part); err != nil {
			return err
		}
		index = append(index, kernel.ID(part[len(part)-1]), kernel.ID(n))
	}
	if chunks == 0 {
		return nil
	}
	return w.out.command(index...)
}

// Finish writes the global timeline, sets the id counters past what was
// written and marks the layout as current, so that servers need not
// migrate it; then it flushes.
func (w *Writer) Finish(users, posts int64) error {
	if err := w.finishTags(); err != nil {
		return err
	}
	if err := w.finishDirectory(); err != nil {
		return err
	}
	if recent := w.recent[max(0, len(w.recent)-schema.TimelineCap):]; len(recent) > 0 {
		if err := w.out.ints("LPUSH", schema.Timeline, recent); err != nil {
			return err
		}
	}
	err := w.all([][]string{
		{"SET", schema.NextUserID, kernel.ID(users)},
		{"SET", schema.NextPostID, kernel.ID(posts)},
		{"SET", schema.VersionKey, strconv.Itoa(schema.Version)},
	})
	if err != nil {
		return err
	}
	return w.out.flush()
}

// Flush sends what is buffered.
func (w *Writer) Flush() error { return w.out.flush() }

func (w *Writer) all(cmds [][]string) error {
	for _, cmd := range cmds {
		if err := w.out.command(cmd...); err != nil {
			return err
		}
	}
	return nil
}

// respSink writes commands as RESP.
type respSink struct{ w *resp.Writer }

func (r respSink) command(args ...string) error { return r.w.Command(args...) }
func (r respSink) flush() error                 { return r.w.Flush() }
func (r respSink) ints(name, key string, values []int64) error {
	return r.w.CommandInts(name, key, values)
}

// redisSink sends commands to Redis in pipelines of bulkPipeline.
type redisSink struct {
	db   *kernel.DB
	ctx  context.Context
	cmds rueidis.Commands
}

const bulkPipeline = 5000

func (r *redisSink) command(args ...string) error {
	r.cmds = append(r.cmds, r.db.C.B().Arbitrary(args[0]).Keys(args[1]).Args(args[2:]...).Build())
	if len(r.cmds) >= bulkPipeline {
		return r.flush()
	}
	return nil
}

func (r *redisSink) ints(name, key string, values []int64) error {
	args := make([]string, len(values)+2)
	args[0], args[1] = name, key
	for i, v := range values {
		args[i+2] = kernel.ID(v)
	}
	return r.command(args...)
}

func (r *redisSink) flush() error {
	if len(r.cmds) == 0 {
		return nil
	}
	err := redisconn.FirstErr(r.db.C.DoMulti(r.ctx, r.cmds...))
	r.cmds = r.cmds[:0]
	return r.db.Wrap("bulk write", err)
}
