package dataset

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/retwis/retwis"
)

// ImportOptions name the real-world data to convert.
type ImportOptions struct {
	// Graph is a follow graph as a whitespace-separated edge list, one
	// "follower followee" pair of numeric ids per line, # comments
	// allowed: the format of the SNAP Twitter graphs.
	Graph io.Reader
	// Users, optional, gives usernames: CSV with a header naming the
	// columns id and username (created, optional: unix seconds or RFC
	// 3339), or JSON Lines with the same fields. Users of the graph
	// without an entry are named u<id>.
	Users       io.Reader
	UsersFormat string // "csv" or "jsonl"
	// Posts, optional, gives posts in chronological order: CSV with the
	// columns user, time and body, or JSON Lines with the same fields.
	// Their authors must appear in the graph or the users file.
	Posts        io.Reader
	PostsFormat  string
	PasswordHash string    // every imported user's password hash
	Now          time.Time // when the data counts as imported (seen, follow times)
	Timelines
	// Skip, if set, is told of every line that was skipped, and why.
	Skip func(file string, line int, reason string)
}

// Import converts real-world data into records written to w, like
// Generate. External ids are mapped to user ids 1, 2, … in order of
// first appearance; the whole follow graph is kept in memory (8 bytes an
// edge, plus the id map) to build the home timelines. It stops when ctx
// is cancelled.
func Import(ctx context.Context, w Writer, o ImportOptions) (Stats, error) {
	switch {
	case o.Graph == nil:
		return Stats{}, errorf("a follow graph is required")
	case o.PasswordHash == "":
		return Stats{}, errorf("a password hash is required")
	}
	if err := o.Timelines.checkDepth(); err != nil {
		return Stats{}, err
	}
	im := &importer{ctx: ctx, o: o, ids: map[int64]int64{}, folded: map[string]int64{}, out: w}
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	if err := im.run(); err != nil {
		return im.stats, err
	}
	return im.stats, w.Finish(int64(len(im.names)), int64(im.stats.Posts))
}

// importer holds the imported graph, in the shape homeOf reads.
type importer struct {
	ctx    context.Context
	o      ImportOptions
	out    Writer
	stats  Stats
	ids    map[int64]int64  // external id -> user id
	names  []string         // user id - 1 -> username
	times  []int64          // user id - 1 -> registration time
	folded map[string]int64 // names taken, ignoring case -> user id
	follow [][]int64        // user id - 1 -> followed user ids
	posts  [][]int32        // user id - 1 -> own post ids, ascending
}

func (im *importer) following(uid int64) []int64 { return im.follow[uid-1] }
func (im *importer) postsBy(uid int64) []int32   { return im.posts[uid-1] }
func (im *importer) boosted() *boosts            { return nil } // real data has none

func (im *importer) skip(file string, line int, format string, args ...any) {
	im.stats.Skipped++
	if im.o.Skip != nil {
		im.o.Skip(file, line, fmt.Sprintf(format, args...))
	}
}

func (im *importer) run() error {
	if im.o.Users != nil {
		if err := readRecords(im.o.Users, im.o.UsersFormat, "users", []string{"id", "username"}, im.addUser, im.skip); err != nil {
			return err
		}
	}
	if err := im.readGraph(); err != nil {
		return err
	}
	if err := im.writeUsers(); err != nil {
		return err
	}
	if im.o.Posts != nil {
		if err := im.writePosts(); err != nil {
			return err
		}
	}
	for _, write := range []func(Writer, postIndex, int64, *Stats) error{im.o.Timelines.writeList, im.o.Timelines.writeArchive} {
		for u := int64(1); u <= int64(len(im.names)); u++ {
			if err := im.checkpoint(int(u)); err != nil {
				return err
			}
			if err := write(im.out, im, u, &im.stats); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkpoint checks for cancellation every thousand items.
func (im *importer) checkpoint(done int) error {
	if done%1000 == 0 {
		return im.ctx.Err()
	}
	return nil
}

// named returns the user called name, ignoring case.
func (im *importer) named(name string) (User, bool) {
	uid := im.folded[retwis.FoldUsername(name)]
	if uid == 0 {
		return User{}, false
	}
	return User{ID: uid, Name: im.names[uid-1]}, true
}

// user returns the user id of an external id, creating the user if new.
func (im *importer) user(ext int64) int64 {
	if uid, ok := im.ids[ext]; ok {
		return uid
	}
	name := "u" + strconv.FormatInt(ext, 10)
	for im.folded[retwis.FoldUsername(name)] > 0 { // taken by a name from the users file
		name += "_"
	}
	return im.newUser(ext, name, im.o.Now.Unix())
}

func (im *importer) newUser(ext int64, name string, created int64) int64 {
	im.names = append(im.names, name)
	im.times = append(im.times, created)
	im.follow = append(im.follow, nil)
	im.posts = append(im.posts, nil)
	uid := int64(len(im.names))
	im.folded[retwis.FoldUsername(name)] = uid
	im.ids[ext] = uid
	return uid
}

func (im *importer) writeUsers() error {
	now := im.o.Now.Unix()
	for i, name := range im.names {
		u := User{ID: int64(i + 1), Name: name, PasswordHash: im.o.PasswordHash, Registered: im.times[i], Seen: now}
		if err := im.out.User(u); err != nil {
			return err
		}
		if err := im.checkpoint(i + 1); err != nil {
			return err
		}
	}
	for i, fs := range im.follow {
		if len(fs) == 0 {
			continue
		}
		if err := im.out.Follows(int64(i+1), fs, now); err != nil {
			return err
		}
	}
	im.stats.Users = len(im.names)
	return nil
}

// writePosts streams the posts file: each post is written as it is read,
// numbered in file order.
func (im *importer) writePosts() error {
	return readRecords(im.o.Posts, im.o.PostsFormat, "posts", []string{"user", "time", "body"}, func(line int, rec record) error {
		ext, err := strconv.ParseInt(rec["user"], 10, 64)
		if err != nil {
			im.skip("posts", line, "user %q is not a number", rec["user"])
			return nil
		}
		at, err := parseTime(rec["time"])
		if err != nil {
			im.skip("posts", line, "time %q is neither unix seconds nor RFC 3339", rec["time"])
			return nil
		}
		body, err := retwis.NormalizeStatus(rec["body"], retwis.DefaultMaxStatusLen)
		if err != nil {
			im.skip("posts", line, "body: %s", retwis.ErrorMessage(err))
			return nil
		}
		author, known := im.ids[ext]
		if !known { // users are written before posts: no new ones now
			im.skip("posts", line, "user %d is in neither the graph nor the users file", ext)
			return nil
		}
		im.stats.Posts++
		pid := int64(im.stats.Posts)
		im.posts[author-1] = append(im.posts[author-1], int32(pid))
		if err := im.checkpoint(im.stats.Posts); err != nil {
			return err
		}
		p := Post{ID: pid, Author: author, AuthorName: im.names[author-1], Time: at, Body: body}
		converse(&p, im.named)
		return im.out.Post(p)
	}, im.skip)
}
