package dataset

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/password"
)

// GenerateOptions describe the synthetic network Generate writes.
type GenerateOptions struct {
	NetworkOptions
	// PasswordHash is every user's password hash (see SeededHash for one
	// that is the same on every run).
	PasswordHash string
	Timelines
	// Progress, if set, is told now and then how far a stage has got.
	Progress func(stage string, done, total int)
}

// SeededHash hashes pass with a salt made from seed, so that generating
// the same network twice gives the same bytes.
func SeededHash(pass string, seed uint64) string {
	salt := binary.BigEndian.AppendUint64([]byte("retwisgen"), seed)
	return password.HashSalt(pass, salt, password.Default)
}

// Generate writes a synthetic network (see NetworkOptions) to w,
// consistent in every index: each home timeline is the newest HomeCap
// posts of the user and of those they follow (and the boosts of theirs
// that reach the user, see boosts.reaches), and its archive the Archive
// posts before them. Of the posts, one id in twenty is a boost
// (isBoostSlot), and each user favourites a few posts of those they
// follow (favouritesOf). The same options always give the same records.
// It stops when ctx is cancelled.
func Generate(ctx context.Context, w Writer, o GenerateOptions) (Stats, error) {
	if err := o.check(); err != nil {
		return Stats{}, err
	}
	switch {
	case o.Until.IsZero():
		return Stats{}, errorf("the end of the posting period (Until) must be given")
	case o.PasswordHash == "":
		return Stats{}, errorf("a password hash is required")
	}
	if err := o.Timelines.checkDepth(); err != nil {
		return Stats{}, err
	}
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	g := &generator{ctx: ctx, n: newNetwork(o.NetworkOptions), w: w, o: o}
	for _, stage := range []func() error{g.users, g.follows, g.posts, g.favourites, g.timelines, g.archives} {
		if err := stage(); err != nil {
			return g.stats, err
		}
	}
	return g.stats, w.Finish(int64(o.Users), int64(o.Posts))
}

// generator writes one network.
type generator struct {
	ctx   context.Context
	n     *network
	w     Writer
	o     GenerateOptions
	stats Stats
}

func errorf(format string, args ...any) error {
	return &retwis.Error{Kind: retwis.Invalid, Message: fmt.Sprintf(format, args...)}
}

// step is called after each item of a stage: every thousand items it
// checks for cancellation, and every so often (and at the end) it
// reports progress, after flushing so that the report measures what was
// really written.
func (g *generator) step(stage string, done, total, every int) error {
	if done%1000 == 0 {
		if err := g.ctx.Err(); err != nil {
			return err
		}
	}
	if g.o.Progress == nil || (done != total && done%every != 0) {
		return nil
	}
	if err := g.w.Flush(); err != nil {
		return err
	}
	g.o.Progress(stage, done, total)
	return nil
}

func (g *generator) users() error {
	users := g.o.Users
	until := g.o.Until.Unix()
	for i := 1; i <= users; i++ {
		u := User{ID: int64(i), Name: userName(int64(i)), DisplayName: g.n.displayName(i), PasswordHash: g.o.PasswordHash,
			Registered: until - int64(users-i), Seen: until}
		if err := g.w.User(u); err != nil {
			return err
		}
		if err := g.step("users", i, users, 100_000); err != nil {
			return err
		}
	}
	g.stats.Users = users
	return nil
}

func (g *generator) follows() error {
	users := g.o.Users
	followers := make([]int32, users+1)
	for u := int64(1); u <= int64(users); u++ {
		fs := g.n.following(u)
		for _, f := range fs {
			followers[f]++
		}
		if len(fs) > 0 {
			if err := g.w.Follows(u, fs, g.o.Until.Unix()); err != nil {
				return err
			}
		}
		g.stats.Follows += len(fs)
		if err := g.step("follows", int(u), users, 100_000); err != nil {
			return err
		}
	}
	for _, n := range followers {
		g.stats.MaxFollowers = max(g.stats.MaxFollowers, int(n))
	}
	return nil
}

// userName is the username of generated user uid.
func userName(uid int64) string { return "user" + strconv.FormatInt(uid, 10) }

// named returns the generated user called name (user1 … userN),
// ignoring case.
func (g *generator) named(name string) (User, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(retwis.FoldUsername(name), "user"), 10, 64)
	if err != nil || n < 1 || n > int64(g.o.Users) || userName(n) != retwis.FoldUsername(name) {
		return User{}, false
	}
	return User{ID: n, Name: userName(n)}, true
}

// reply makes p a reply to parent: addressed to its author, in its
// thread.
func (g *generator) reply(p *Post, parent Post) {
	p.InReplyTo, p.ReplyTo = parent.ID, User{ID: parent.Author, Name: parent.AuthorName}
	p.Ancestors = append([]int64{parent.ID}, parent.Ancestors[:min(len(parent.Ancestors), retwis.MaxAncestors-1)]...)
	if body, err := retwis.NormalizeStatus("@"+parent.AuthorName+" "+p.Body, retwis.DefaultMaxStatusLen); err == nil {
		p.Body = body
	}
}

// VisibilityOf returns the visibility of generated post pid: one in
// twenty unlisted, one in twenty followers-only, the others public, so
// that a generated network exercises the visibilities.
func VisibilityOf(pid int) retwis.Visibility {
	switch pid % 20 {
	case 7:
		return retwis.Unlisted
	case 13:
		return retwis.Private
	}
	return retwis.Public
}

// recentPosts is how many of the newest posts a generated reply may
// answer.
const recentPosts = 1000

func (g *generator) posts() error {
	total := g.o.Posts
	authors := g.n.authors()
	recent := make([]Post, 0, recentPosts) // a ring of the newest posts
	var last [boostWindow]int32            // the authors of the newest ids (0: a boost)
	for pid := 1; pid <= total; pid++ {
		author := int64(authors()) + 1
		if boosted, err := g.boost(pid, author, &last); err != nil || boosted {
			if err != nil {
				return err
			}
			if err := g.step("posts", pid, total, 1_000_000); err != nil {
				return err
			}
			continue
		}
		last[pid%boostWindow] = int32(author)
		p := Post{ID: int64(pid), Author: author, AuthorName: userName(author), Time: g.n.postTime(pid), Body: g.n.body(pid),
			Visibility: VisibilityOf(pid)}
		if k, ok := g.n.replyTo(pid, len(recent)); ok {
			g.reply(&p, recent[k])
		}
		converse(&p, g.named)
		if len(recent) < recentPosts {
			recent = append(recent, p)
		} else {
			recent[pid%recentPosts] = p
		}
		if err := g.w.Post(p); err != nil {
			return err
		}
		if err := g.step("posts", pid, total, 1_000_000); err != nil {
			return err
		}
	}
	g.stats.Posts = total
	return nil
}

// boost makes post pid by author a boost, if it is to be one and finds
// a post to boost among the newest ids (whose authors last holds), and
// writes it; it reports whether it did.
func (g *generator) boost(pid int, author int64, last *[boostWindow]int32) (bool, error) {
	if !isBoostSlot(pid) {
		return false, nil
	}
	authorOf := func(of int) int32 { return last[of%boostWindow] }
	of, ok := g.n.boostTarget(pid, int32(author), min(boostWindow, g.o.HomeCap), authorOf)
	if !ok {
		return false, nil
	}
	ofAuthor := int64(authorOf(of)) // before pid takes the slot, which may be of's
	last[pid%boostWindow] = 0
	g.n.boosts.add(boost{id: int32(pid), of: int32(of), author: int32(ofAuthor), booster: int32(author)})
	g.stats.Boosts++
	return true, g.w.Boost(Boost{ID: int64(pid), Booster: author, BoosterName: userName(author), Time: g.n.postTime(pid),
		Of: int64(of), OfAuthor: User{ID: ofAuthor, Name: userName(ofAuthor)}})
}

// favourites writes every user's favourites.
func (g *generator) favourites() error {
	users, until := g.o.Users, g.o.Until.UnixMilli()
	for u := int64(1); u <= int64(users); u++ {
		if fs := g.n.favouritesOf(u, until); len(fs) > 0 {
			if err := g.w.Favourites(u, fs); err != nil {
				return err
			}
			g.stats.Favourites += len(fs)
		}
		if err := g.step("favourites", int(u), users, 100_000); err != nil {
			return err
		}
	}
	return nil
}

// timelines writes every home timeline list: the newest HomeCap posts
// of the user and of those they follow.
func (g *generator) timelines() error {
	return g.eachUser("timelines", g.o.Timelines.writeList)
}

// archives writes every home timeline's archive: the Archive posts
// before its list.
func (g *generator) archives() error {
	if g.o.Archive == 0 {
		return nil
	}
	return g.eachUser("archives", g.o.Timelines.writeArchive)
}

// eachUser writes, stage by stage, what write writes of every user.
func (g *generator) eachUser(stage string, write func(Writer, postIndex, int64, *Stats) error) error {
	users := g.o.Users
	for u := int64(1); u <= int64(users); u++ {
		if err := write(g.w, g.n, u, &g.stats); err != nil {
			return err
		}
		if err := g.step(stage, int(u), users, 100_000); err != nil {
			return err
		}
	}
	return nil
}
