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
	now := strconv.FormatInt(e.n.o.Until.Unix(), 10)
	users := e.n.o.Users
	for i := 1; i <= users; i++ {
		uid, name := id(int64(i)), "user"+strconv.Itoa(i)
		registered := strconv.FormatInt(e.n.o.Until.Unix()-int64(users-i), 10)
		for _, cmd := range [][]string{
			{"HSET", keyUser(int64(i)), "username", name, "password_hash", e.hash, "seen", now},
			{"HSET", keyUsers, name, uid},
			{"HSET", keyUsersFolded, name, uid},
			{"ZADD", keyUsersByTime, registered, name},
			{"ZADD", keyLastSeen, now, uid},
		} {
			if err := e.out.command(cmd...); err != nil {
				return err
			}
		}
		e.report("users", i, users, 100_000)
	}
	e.stats.Users = users
	return nil
}

func (e *emitter) follows() error {
	users := e.n.o.Users
	followers := make([]int32, users+1)
	now := strconv.FormatInt(e.n.o.Until.Unix(), 10)
	for u := int64(1); u <= int64(users); u++ {
		fs := e.n.following(u)
		if len(fs) == 0 {
			continue
		}
		args := []string{"ZADD", keyFollowing(u)}
		for _, f := range fs {
			args = append(args, now, id(f))
			followers[f]++
			if err := e.out.command("ZADD", keyFollowers(f), now, id(u)); err != nil {
				return err
			}
		}
		if err := e.out.command(args...); err != nil {
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

func (e *emitter) posts() error {
	total := e.n.o.Posts
	authors := e.n.authors()
	for pid := 1; pid <= total; pid++ {
		author := int64(authors()) + 1
		p := id(int64(pid))
		cmds := [][]string{
			{"HSET", keyPost(int64(pid)), "user_id", id(author), "time", strconv.FormatInt(e.n.postTime(pid), 10), "body", e.n.body(pid)},
			{"ZADD", keyUserPosts(author), p, p},
		}
		if total-pid < globalTimelineN {
			cmds = append(cmds, []string{"LPUSH", keyTimeline, p})
		}
		for _, cmd := range cmds {
			if err := e.out.command(cmd...); err != nil {
				return err
			}
		}
		e.report("posts", pid, total, 1_000_000)
	}
	e.stats.Posts = total
	e.report("posts", total, total, 1)
	return nil
}

// timelines writes every home timeline: the newest homeCap posts of the
// user and of those they follow, which is complete down to its last entry.
func (e *emitter) timelines() error {
	users := e.n.o.Users
	for u := int64(1); u <= int64(users); u++ {
		ids := e.n.home(u, e.homeCap)
		for start := 0; start < len(ids); start += 1000 {
			if err := e.out.ints("RPUSH", keyHome(u), ids[start:min(start+1000, len(ids))]); err != nil {
				return err
			}
		}
		e.stats.TimelineEntries += len(ids)
		e.report("timelines", int(u), users, 100_000)
	}
	return nil
}

func (e *emitter) counters() error {
	for _, cmd := range [][]string{
		{"SET", keyNextUserID, strconv.Itoa(e.n.o.Users)},
		{"SET", keyNextPostID, strconv.Itoa(e.n.o.Posts)},
		{"SET", keySchema, strconv.Itoa(schemaVersion)},
	} {
		if err := e.out.command(cmd...); err != nil {
			return err
		}
	}
	return nil
}
