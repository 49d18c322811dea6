package store

import (
	"fmt"
	"strconv"

	"github.com/retwis/retwis"
)

// sink receives the commands that write a network: into Redis directly
// (Seed) or as a RESP stream for `retwis load` (Generate). Every command
// has its key as its second element, so either can route it by slot.
type sink interface {
	command(args ...string) error
	ints(name, key string, values []int64) error // a command whose arguments are integers
	flush() error
}

// NetworkStats reports what was written.
type NetworkStats struct {
	Users, Follows, Posts, TimelineEntries int
	MaxFollowers                           int // followers of the most followed user
}

// emitter writes a network in retwis's layout, consistent in every index
// (home timelines, own-post indexes, global timeline, counters), so that
// retwis serves it at once. Users get no auth secret: logging in gives
// them one.
type emitter struct {
	n        *network
	out      sink
	hash     string // every user's password hash
	homeCap  int
	progress func(stage string, done, total int)
	stats    NetworkStats
}

func errorf(format string, args ...any) error {
	return &retwis.Error{Kind: retwis.Invalid, Message: fmt.Sprintf(format, args...)}
}

func (e *emitter) run() (NetworkStats, error) {
	for _, stage := range []func() error{e.users, e.follows, e.posts, e.timelines, e.counters} {
		if err := stage(); err != nil {
			return e.stats, err
		}
	}
	return e.stats, e.out.flush()
}

// report tells the progress callback how far a stage has got: every so
// often and once at the end.
func (e *emitter) report(stage string, done, total, every int) {
	if e.progress != nil && (done == total || done%every == 0) {
		if err := e.out.flush(); err == nil { // measure what has really been written
			e.progress(stage, done, total)
		}
	}
}

func (e *emitter) users() error {
	users := e.n.o.Users
	until := e.n.o.Until.Unix()
	for i := 1; i <= users; i++ {
		cmds := userCommands(int64(i), "user"+strconv.Itoa(i), e.hash, until-int64(users-i), until)
		if err := writeAll(e.out, cmds); err != nil {
			return err
		}
		e.report("users", i, users, 100_000)
	}
	e.stats.Users = users
	return nil
}

// userCommands write one user: the hash (with no auth secret: logging in
// gives one), both name indexes, registration time and last seen.
func userCommands(uid int64, name, hash string, registered, seen int64) [][]string {
	u, at := id(uid), strconv.FormatInt(seen, 10)
	return [][]string{
		{"HSET", keyUser(uid), "username", name, "password_hash", hash, "seen", at},
		{"HSET", keyUsers, name, u},
		{"HSET", keyUsersFolded, retwis.FoldUsername(name), u},
		{"ZADD", keyUsersByTime, strconv.FormatInt(registered, 10), name},
		{"ZADD", keyLastSeen, at, u},
	}
}

// writeAll sends commands to out in order.
func writeAll(out sink, cmds [][]string) error {
	for _, cmd := range cmds {
		if err := out.command(cmd...); err != nil {
			return err
		}
	}
	return nil
}

func (e *emitter) follows() error {
	users := e.n.o.Users
	followers := make([]int32, users+1)
	for u := int64(1); u <= int64(users); u++ {
		fs := e.n.following(u)
		for _, f := range fs {
			followers[f]++
		}
		if err := writeAll(e.out, followCommands(u, fs, e.n.o.Until.Unix())); err != nil {
			return err
		}
		e.stats.Follows += len(fs)
		e.report("follows", int(u), users, 100_000)
	}
	for _, n := range followers {
		e.stats.MaxFollowers = max(e.stats.MaxFollowers, int(n))
	}
	e.report("follows", users, users, 1)
	return nil
}

// followCommands record that u follows every one of fs since time at.
func followCommands(u int64, fs []int64, at int64) [][]string {
	if len(fs) == 0 {
		return nil
	}
	ts := strconv.FormatInt(at, 10)
	following := []string{"ZADD", keyFollowing(u)}
	cmds := make([][]string, 0, len(fs)+1)
	for _, f := range fs {
		following = append(following, ts, id(f))
		cmds = append(cmds, []string{"ZADD", keyFollowers(f), ts, id(u)})
	}
	return append(cmds, following)
}

func (e *emitter) posts() error {
	total := e.n.o.Posts
	authors := e.n.authors()
	for pid := 1; pid <= total; pid++ {
		cmds := postCommands(int64(pid), int64(authors())+1, e.n.postTime(pid), e.n.body(pid))
		if total-pid < globalTimelineN {
			cmds = append(cmds, []string{"LPUSH", keyTimeline, id(int64(pid))})
		}
		if err := writeAll(e.out, cmds); err != nil {
			return err
		}
		e.report("posts", pid, total, 1_000_000)
	}
	e.stats.Posts = total
	e.report("posts", total, total, 1)
	return nil
}

// postCommands write one post and index it under its author.
func postCommands(pid, author, at int64, body string) [][]string {
	p := id(pid)
	return [][]string{
		{"HSET", keyPost(pid), "user_id", id(author), "time", strconv.FormatInt(at, 10), "body", body},
		{"ZADD", keyUserPosts(author), p, p},
	}
}

// timelines writes every home timeline: the newest homeCap posts of the
// user and of those they follow, which is complete down to its last entry.
func (e *emitter) timelines() error {
	users := e.n.o.Users
	for u := int64(1); u <= int64(users); u++ {
		ids := homeOf(e.n, u, e.homeCap)
		if err := writeHome(e.out, u, ids); err != nil {
			return err
		}
		e.stats.TimelineEntries += len(ids)
		e.report("timelines", int(u), users, 100_000)
	}
	return nil
}

// writeHome writes uid's home timeline, ids newest first.
func writeHome(out sink, uid int64, ids []int64) error {
	for start := 0; start < len(ids); start += 1000 {
		if err := out.ints("RPUSH", keyHome(uid), ids[start:min(start+1000, len(ids))]); err != nil {
			return err
		}
	}
	return nil
}

func (e *emitter) counters() error { return writeAll(e.out, counterCommands(e.n.o.Users, e.n.o.Posts)) }

// counterCommands set the id counters past what was written, and mark the
// layout as current so that servers need not migrate it.
func counterCommands(users, posts int) [][]string {
	return [][]string{
		{"SET", keyNextUserID, strconv.Itoa(users)},
		{"SET", keyNextPostID, strconv.Itoa(posts)},
		{"SET", keySchema, strconv.Itoa(schemaVersion)},
	}
}
