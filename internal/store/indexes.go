package store

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Tuning of the tag trends.
const (
	// trendHalfLife is how long it takes a post's weight in the trends
	// to halve: yesterday's burst fades within hours.
	trendHalfLife = 3 * time.Hour
	// trendsKept is how many tags a shard of the trends keeps, the
	// heaviest.
	trendsKept = 5000
)

// indexed is a post as its indexes see it.
type indexed struct {
	pid, author int64
	time        int64 // unix seconds
	conv        conversation
	// noted is when (unix ms) those it mentions or answers are notified,
	// 0 for never: the time of delivery, so that a notification is
	// newer than the last time its user read them (posts reindexed by
	// the migration notify nobody of the past).
	noted int64
}

// indexCmds return the commands that enter p in the secondary indexes
// its conversation calls for, each touching one slot, to be sent in one
// pipeline: the tag indexes (posts, posts by day, the name as first
// written, the trends, the completion), the mentions of each user it
// mentions, the replies of the post it answers, the notifications of
// those users and the relations of the graph (see indexWrites). All but the counts of the trends and
// the completion are safe to repeat.
func (s *Store) indexCmds(p indexed) rueidis.Commands {
	cmds := s.commands(indexWrites(p))
	for _, tag := range p.conv.tags {
		if f := retwis.FoldTag(tag); f != "" {
			cmds = append(cmds, s.trendCmd(f, p.time, 1), s.completeCmd(f, tag, 1))
		}
	}
	return cmds
}

// indexWrites are the plain commands of indexCmds, which the bulk
// writer sends too: the tag indexes but for the counts, the mentions,
// the replies, the notifications and the graph's "mentions" and
// "replies" relations. Nobody is notified of their own post, and the
// author of the post answered is notified of the reply only, not of the
// mention it starts with (the graph likewise records the reply).
func indexWrites(p indexed) [][]string {
	pid := kernel.ID(p.pid)
	var cmds [][]string
	for _, tag := range p.conv.tags {
		if f := retwis.FoldTag(tag); f != "" {
			cmds = append(cmds,
				[]string{"ZADD", schema.Tag(f), pid, pid},
				[]string{"ZADD", schema.TagDays(f), "0", schema.TagDay(p.time, p.pid)},
				[]string{"HSETNX", schema.TagInfo(f), schema.FieldTagName, tag})
		}
	}
	for _, u := range p.conv.mentions {
		if u.ID == p.author {
			continue
		}
		cmds = append(cmds, []string{"ZADD", schema.Mentions(u.ID), pid, pid})
		if u.ID == p.conv.replyUser.ID {
			continue // the reply's addressee: the reply is what they are told of, and what the graph records
		}
		cmds = append(cmds, edgeWrites("ZADD", p.author, schema.RelMentions, u.ID)...)
		if p.noted > 0 {
			cmds = append(cmds, notifyWrites(u.ID, schema.Note(schema.NoteMention, p.author, p.pid), p.noted)...)
		}
	}
	if p.conv.replyTo > 0 {
		cmds = append(cmds, []string{"ZADD", schema.Replies(p.conv.replyTo), pid, pid})
		if u := p.conv.replyUser; u.ID > 0 && u.ID != p.author {
			cmds = append(cmds, edgeWrites("ZADD", p.author, schema.RelReplies, u.ID)...)
			if p.noted > 0 {
				cmds = append(cmds, notifyWrites(u.ID, schema.Note(schema.NoteReply, p.author, p.pid), p.noted)...)
			}
		}
	}
	return cmds
}

// commands turns plain commands, whose key comes second, into commands
// for the client (leaving live events out if Options.NoLiveEvents).
func (s *Store) commands(plain [][]string) rueidis.Commands {
	cmds := make(rueidis.Commands, 0, len(plain))
	for _, c := range plain {
		if c[0] == "SPUBLISH" && s.Opts.NoLiveEvents {
			continue
		}
		cmds = append(cmds, s.C.B().Arbitrary(c[0]).Keys(c[1]).Args(c[2:]...).Build())
	}
	return cmds
}

// unindexCmds return the commands that take p out of the indexes
// indexCmds entered it in: those of unlistCmds, then the counts of its
// tags (uncountCmds).
func (s *Store) unindexCmds(p indexed) rueidis.Commands {
	return append(s.unlistCmds(p), s.uncountCmds(p)...)
}

// uncountCmds return the commands that take p's weight back from the
// trends and the completion counts of its tags. Unlike the rest of a
// post's unindexing, they are not safe to repeat: each takes one post
// back.
func (s *Store) uncountCmds(p indexed) rueidis.Commands {
	var cmds rueidis.Commands
	for _, tag := range p.conv.tags {
		if f := retwis.FoldTag(tag); f != "" {
			cmds = append(cmds, s.trendCmd(f, p.time, -1), s.completeCmd(f, tag, -1))
		}
	}
	return cmds
}

// unlistCmds return the commands that take p out of the indexes that
// list it (its tags' posts and days, the mentions and notifications of
// those it mentions, the replies of the post it answers and that
// author's notification), and drop the index of its replies (which stay
// standing, in reply to a deleted post). Each is safe to repeat.
func (s *Store) unlistCmds(p indexed) rueidis.Commands {
	b := s.C.B()
	pid := kernel.ID(p.pid)
	var cmds rueidis.Commands
	for _, tag := range p.conv.tags {
		if f := retwis.FoldTag(tag); f != "" {
			cmds = append(cmds,
				b.Zrem().Key(schema.Tag(f)).Member(pid).Build(),
				b.Zrem().Key(schema.TagDays(f)).Member(schema.TagDay(p.time, p.pid)).Build())
		}
	}
	for _, u := range p.conv.mentions {
		cmds = append(cmds,
			b.Zrem().Key(schema.Mentions(u.ID)).Member(pid).Build(),
			b.Zrem().Key(schema.Notifications(u.ID)).Member(schema.Note(schema.NoteMention, p.author, p.pid)).Build())
	}
	if p.conv.replyTo > 0 {
		u := p.conv.replyUser
		cmds = append(cmds,
			b.Zrem().Key(schema.Replies(p.conv.replyTo)).Member(pid).Build(),
			b.Zrem().Key(schema.Notifications(u.ID)).Member(schema.Note(schema.NoteReply, p.author, p.pid)).Build())
	}
	return append(cmds, b.Del().Key(schema.Replies(p.pid)).Build())
}

// unindex takes p out of its indexes, in one pipeline.
func (s *Store) unindex(ctx context.Context, p indexed) error {
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return s.unindexCmds(p) }))
	return s.Wrap("unindex", err)
}

// notifyCmds return the commands that give uid the notification note at
// unix ms at (see notifyWrites).
func (s *Store) notifyCmds(uid int64, note string, at int64) rueidis.Commands {
	return s.commands(notifyWrites(uid, note, at))
}

// notifyWrites are the plain commands that give uid the notification
// note at unix ms at, keeping the newest NotificationsCap, and tell
// uid's live stream.
func notifyWrites(uid int64, note string, at int64) [][]string {
	key := schema.Notifications(uid)
	return [][]string{
		{"ZADD", key, strconv.FormatInt(at, 10), note},
		{"ZREMRANGEBYRANK", key, "0", strconv.Itoa(-schema.NotificationsCap - 1)},
		{"SPUBLISH", schema.UserStream(uid), schema.NoteEvent(at, note)},
	}
}

// trendCmd returns the kernel.TrendAdd call that adds the weight of a post
// with the folded tag f posted at unix time ts (sign 1), or takes it
// back (sign -1).
func (s *Store) trendCmd(f string, ts int64, sign int) rueidis.Completed {
	n := schema.TrendsOf(f)
	return kernel.TrendAdd.Cmd(s.C, []string{schema.Trends(n), schema.TrendEpoch(n)}, f, strconv.FormatInt(ts, 10),
		strconv.Itoa(int(trendHalfLife/time.Second)), strconv.Itoa(sign), strconv.Itoa(trendsKept))
}

// completeCmd returns the kernel.CompleteAdd call that changes the count of the
// folded tag f, written tag, by delta.
func (s *Store) completeCmd(f, tag string, delta int) rueidis.Completed {
	return kernel.CompleteAdd.Cmd(s.C, []string{schema.Completion(schema.CompletionOf(f))}, f, tag, strconv.Itoa(delta))
}
