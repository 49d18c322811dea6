// Package index holds what each fact of retwis writes to the secondary
// indexes, as pure command builders over package schema: a post's tags,
// mentions, replies and notifications (Writes, Cmds, and their undoing),
// the graph's edges (EdgeWrites), the people search (PeopleWrites), a
// user's entry in the directory (Code, EntryWrite, on the curve
// Directory) and the live events of a post (PostEventCmds). The online
// store, delivery, the bulk writer and the checker all build their
// writes here, so what a check expects to find is what the writers
// write. It sends nothing.
package index

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"
	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Conversation is what a post records of its place in conversations,
// when it is posted: its tags, the users it mentions, the post it
// answers and the thread above that.
type Conversation struct {
	Tags      []string      // as written, one of each folded form
	Mentions  []retwis.User // users that existed, in the order of the body
	ReplyTo   int64         // 0: none
	ReplyUser retwis.User   // the author of replyTo
	Ancestors []int64       // replyTo and the posts above it, nearest first
}

// fields returns the post hash fields that record c.
func (c Conversation) Fields() []string {
	var f []string
	if len(c.Tags) > 0 {
		f = append(f, schema.FieldTags, strings.Join(c.Tags, " "))
	}
	if len(c.Mentions) > 0 {
		f = append(f, schema.FieldMentions, JoinUsers(c.Mentions))
	}
	if c.ReplyTo > 0 {
		f = append(f, schema.FieldReplyTo, kernel.ID(c.ReplyTo), schema.FieldReplyUser, JoinUsers([]retwis.User{c.ReplyUser}),
			schema.FieldAncestors, strings.Join(kernel.IDs(c.Ancestors), ","))
	}
	return f
}

// ConversationFields are the post hash fields that parseConversation
// reads, in its order.
var ConversationFields = []string{schema.FieldTags, schema.FieldMentions, schema.FieldReplyTo, schema.FieldReplyUser, schema.FieldAncestors}

// ParseConversation reads the values of ConversationFields (missing
// ones: "").
func ParseConversation(vals []string) Conversation {
	var c Conversation
	if vals[0] != "" {
		c.Tags = strings.Fields(vals[0])
	}
	c.Mentions = SplitUsers(vals[1])
	c.ReplyTo, _ = strconv.ParseInt(vals[2], 10, 64)
	if u := SplitUsers(vals[3]); len(u) == 1 {
		c.ReplyUser = u[0]
	}
	for a := range strings.SplitSeq(vals[4], ",") {
		if n, err := strconv.ParseInt(a, 10, 64); err == nil {
			c.Ancestors = append(c.Ancestors, n)
		}
	}
	return c
}

// VisibilityOf reads the visibility field of a post hash: absent is
// public; a value that does not parse (damaged) is taken as the
// narrowest, so that it shows the post to no one it should not.
func VisibilityOf(field string) retwis.Visibility {
	v, err := retwis.ParseVisibility(field)
	if err != nil {
		return retwis.Direct
	}
	return v
}

// JoinUsers spells users as "<id>:<username>", separated by spaces.
func JoinUsers(users []retwis.User) string {
	parts := make([]string, len(users))
	for i, u := range users {
		parts[i] = kernel.ID(u.ID) + ":" + u.Username
	}
	return strings.Join(parts, " ")
}

// SplitUsers reads what JoinUsers wrote, skipping what does not parse.
func SplitUsers(s string) []retwis.User {
	var users []retwis.User
	for part := range strings.FieldsSeq(s) {
		n, name, ok := strings.Cut(part, ":")
		uid, err := strconv.ParseInt(n, 10, 64)
		if ok && err == nil && name != "" {
			users = append(users, retwis.User{ID: uid, Username: name})
		}
	}
	return users
}

// Tuning of the tag trends.
const (
	// TrendHalfLife is how long it takes a post's weight in the trends
	// to halve: yesterday's burst fades within hours.
	TrendHalfLife = 3 * time.Hour
	// TrendsKept is how many tags a shard of the trends keeps, the
	// heaviest.
	TrendsKept = 5000
	// StatusTrendsKept is how many posts a shard of the trending posts
	// keeps, the heaviest.
	StatusTrendsKept = 1000
)

// Post is a post as its indexes see it.
type Post struct {
	ID, Author int64
	Time       int64 // unix seconds
	Conv       Conversation
	// Noted is when (unix ms) those it mentions or answers are notified,
	// 0 for never: the time of delivery, so that a notification is
	// newer than the last time its user read them (posts reindexed by
	// the migration notify nobody of the past).
	Noted int64
	// Visibility is who sees it: only a listed one (public) enters the
	// tag indexes, the trends, the completion and the public and tag
	// streams; a direct one enters the Direct index of its author and of
	// those it mentions.
	Visibility retwis.Visibility
	// ReblogOf is, for a boost, the post it boosts (0: a post). A boost
	// enters no index: its Conv is empty.
	ReblogOf int64
	// Media are the ids of its attachments, which its deletion hands to
	// upkeep (MediaPending) to remove their files.
	Media []int64
}

// Cmds return the commands that enter p in the secondary indexes
// its Conversation calls for, each touching one slot, to be sent in one
// pipeline: the tag indexes (posts, posts by day, the name as first
// written, the trends, the completion), the mentions of each user it
// mentions, the replies of the post it answers, the notifications of
// those users and the relations of the graph, the Direct indexes (see
// Writes) and the conversations (ConversationWrites). All but the counts of the trends and the completion are safe
// to repeat.
func Cmds(c rueidis.Client, p Post) rueidis.Commands {
	cmds := append(Commands(c, Writes(p)), Commands(c, ConversationWrites(p, false))...)
	return append(cmds, countCmds(c, p, 1)...)
}

// ListedTags returns the tags of p that its listing enters (tag pages,
// trends, completion, tag streams): none unless p is listed.
func (p Post) ListedTags() []string {
	if !p.Visibility.Listed() {
		return nil
	}
	return p.Conv.Tags
}

// Writes are the plain commands of Cmds, which the bulk writer sends
// too: the Direct indexes of a direct post, the tag indexes of a listed
// one but for the counts, the mentions, the replies, the notifications
// and the graph's "mentions" and "replies" relations. Nobody is notified
// of their own post, and the author of the post answered is notified of the reply only, not of the
// mention it starts with (the graph likewise records the reply).
func Writes(p Post) [][]string {
	pid := kernel.ID(p.ID)
	var cmds [][]string
	for _, uid := range p.directTo() {
		cmds = append(cmds, []string{"ZADD", schema.Direct(uid), pid, pid})
	}
	for _, tag := range p.ListedTags() {
		if f := retwis.FoldTag(tag); f != "" {
			cmds = append(cmds,
				[]string{"ZADD", schema.Tag(f), pid, pid},
				[]string{"ZADD", schema.TagDays(f), "0", schema.TagDay(p.Time, p.ID)},
				[]string{"HSETNX", schema.TagInfo(f), schema.FieldTagName, tag})
			cmds = append(cmds, tagAuthorWrites(f, p)...)
		}
	}
	for _, u := range p.Conv.Mentions {
		if u.ID == p.Author {
			continue
		}
		cmds = append(cmds, []string{"ZADD", schema.Mentions(u.ID), pid, pid})
		if u.ID == p.Conv.ReplyUser.ID {
			continue // the reply's addressee: the reply is what they are told of, and what the graph records
		}
		cmds = append(cmds, EdgeWrites("ZADD", p.Author, schema.RelMentions, u.ID)...)
	}
	if p.Conv.ReplyTo > 0 {
		cmds = append(cmds, []string{"ZADD", schema.Replies(p.Conv.ReplyTo), pid, pid})
		if u := p.Conv.ReplyUser; u.ID > 0 && u.ID != p.Author {
			cmds = append(cmds, EdgeWrites("ZADD", p.Author, schema.RelReplies, u.ID)...)
		}
	}
	for _, n := range p.Notified() {
		cmds = append(cmds, NotifyWrites(n.User, n.Note, n.At)...)
	}
	return cmds
}

// Notified returns the notifications p makes (none unless p.Noted): a
// mention for each user it mentions but its author and the user it
// replies to, and a reply for that user.
func (p Post) Notified() []kernel.Notified {
	if p.Noted <= 0 {
		return nil
	}
	var notes []kernel.Notified
	for _, u := range p.Conv.Mentions {
		if u.ID != p.Author && u.ID != p.Conv.ReplyUser.ID {
			notes = append(notes, kernel.Notified{User: u.ID, Note: schema.Note(schema.NoteMention, p.Author, p.ID), At: p.Noted})
		}
	}
	if u := p.Conv.ReplyUser; p.Conv.ReplyTo > 0 && u.ID > 0 && u.ID != p.Author {
		notes = append(notes, kernel.Notified{User: u.ID, Note: schema.Note(schema.NoteReply, p.Author, p.ID), At: p.Noted})
	}
	return notes
}

// Commands turns plain commands, whose key comes second, into commands
// for the client.
func Commands(c rueidis.Client, plain [][]string) rueidis.Commands {
	cmds := make(rueidis.Commands, 0, len(plain))
	for _, w := range plain {
		cmds = append(cmds, c.B().Arbitrary(w[0]).Keys(w[1]).Args(w[2:]...).Build())
	}
	return cmds
}

// UnindexCmds return the commands that take p out of the indexes
// Cmds entered it in: those of UnlistCmds, then the counts of its
// tags (UncountCmds).
func UnindexCmds(c rueidis.Client, p Post) rueidis.Commands {
	return append(UnlistCmds(c, p), UncountCmds(c, p)...)
}

// UncountCmds return the commands that take p's weight back from the
// trends and the completion counts of its tags. Unlike the rest of a
// post's unindexing, they are not safe to repeat: each takes one post
// back.
func UncountCmds(c rueidis.Client, p Post) rueidis.Commands {
	return countCmds(c, p, -1)
}

// countCmds return the commands that add p's weight to the trends and
// the completion counts of its listed tags, and, for a reply to another
// user, to the trending posts as an interaction with the post it
// answers (sign 1), or take it back (sign -1).
func countCmds(c rueidis.Client, p Post, sign int) rueidis.Commands {
	var cmds rueidis.Commands
	for _, tag := range p.ListedTags() {
		if f := retwis.FoldTag(tag); f != "" {
			cmds = append(cmds, TrendCmd(c, f, p.Time, sign), CompleteCmd(c, f, tag, sign))
		}
	}
	if p.Conv.ReplyTo > 0 && p.Conv.ReplyUser.ID != p.Author { // a reply by another weighs in the trending posts
		cmds = append(cmds, StatusTrendCmd(c, p.Conv.ReplyTo, p.Time, sign))
	}
	return cmds
}

// UnlistCmds return the commands that take p out of the indexes that
// list it (its tags' posts and days, the mentions and notifications of
// those it mentions, of the mention and of its edits, the replies of the post it answers and that
// author's notification; for a direct post, the Direct indexes,
// conversations and home timelines of those it was between), and drop the index of its replies (which stay
// standing, in reply to a deleted post) and its counts and who
// favourited it (CountsDelCmds; the marks of those who did are skipped
// when read, and removed then); its media go to upkeep, due at once
// (which keeps those of a post that still stands). Each is safe to
// repeat.
func UnlistCmds(c rueidis.Client, p Post) rueidis.Commands {
	b := c.B()
	pid := kernel.ID(p.ID)
	var cmds rueidis.Commands
	for _, tag := range p.Conv.Tags {
		if f := retwis.FoldTag(tag); f != "" {
			cmds = append(cmds,
				b.Zrem().Key(schema.Tag(f)).Member(pid).Build(),
				b.Zrem().Key(schema.TagDays(f)).Member(schema.TagDay(p.Time, p.ID)).Build())
		}
	}
	for _, u := range p.Conv.Mentions {
		cmds = append(cmds,
			b.Zrem().Key(schema.Mentions(u.ID)).Member(pid).Build(),
			b.Zrem().Key(schema.Notifications(u.ID)).Member(schema.Note(schema.NoteMention, p.Author, p.ID),
				schema.Note(schema.NoteUpdate, p.Author, p.ID)).Build())
	}
	if p.Conv.ReplyTo > 0 {
		u := p.Conv.ReplyUser
		cmds = append(cmds,
			b.Zrem().Key(schema.Replies(p.Conv.ReplyTo)).Member(pid).Build(),
			b.Zrem().Key(schema.Notifications(u.ID)).Member(schema.Note(schema.NoteReply, p.Author, p.ID)).Build())
	}
	for _, uid := range p.directTo() { // and the home timelines a direct post was delivered to
		cmds = append(cmds, b.Zrem().Key(schema.Direct(uid)).Member(pid).Build(),
			b.Lrem().Key(schema.Home(uid)).Count(0).Element(pid).Build())
	}
	cmds = append(cmds, ConversationUnlistCmds(c, p)...)
	cmds = append(cmds, b.Del().Key(schema.Replies(p.ID)).Build())
	if len(p.Media) > 0 {
		cmds = append(cmds, MediaDueCmd(c, time.Time{}, p.Author, p.Media...))
	}
	return append(cmds, CountsDelCmds(c, p.ID)...)
}

// MediaDueCmd returns the command that makes owner's media mids (at
// least one; 0: all of a deleted account's) due to upkeep at due (the
// zero time: at once), which removes each that nothing uses by then
// (schema.MediaPending).
func MediaDueCmd(c rueidis.Client, due time.Time, owner int64, mids ...int64) rueidis.Completed {
	score := 0.0
	if !due.IsZero() {
		score = float64(due.Unix())
	}
	cmd := c.B().Zadd().Key(schema.MediaPending).ScoreMember()
	for _, mid := range mids {
		cmd = cmd.ScoreMember(score, schema.PendingMember(owner, mid))
	}
	return cmd.Build()
}

// directTo returns whose Direct index p enters: for a direct post its
// author and the users it mentions, for any other nobody.
func (p Post) directTo() []int64 {
	if p.Visibility != retwis.Direct {
		return nil
	}
	return append([]int64{p.Author}, p.Mentioned()...)
}

// Mentioned returns the ids of the users p mentions, but its author: to
// whom a direct post goes.
func (p Post) Mentioned() []int64 {
	var ids []int64
	for _, u := range p.Conv.Mentions {
		if u.ID != p.Author {
			ids = append(ids, u.ID)
		}
	}
	return ids
}

// NotifyCmds return the commands that give uid the notification note at
// unix ms at (see NotifyWrites).
func NotifyCmds(c rueidis.Client, uid int64, note string, at int64) rueidis.Commands {
	return Commands(c, NotifyWrites(uid, note, at))
}

// NotifyWrites are the plain commands that give uid the notification
// note at unix ms at, keeping the newest NotificationsCap, and tell
// uid's live stream.
func NotifyWrites(uid int64, note string, at int64) [][]string {
	key := schema.Notifications(uid)
	return [][]string{
		{"ZADD", key, strconv.FormatInt(at, 10), note},
		{"ZREMRANGEBYRANK", key, "0", strconv.Itoa(-schema.NotificationsCap - 1)},
		{"SPUBLISH", schema.UserStream(uid), schema.NoteEvent(at, note)},
	}
}

// StatusTrendCmd returns the kernel.TrendAdd call that adds the weight
// of an interaction with post pid (a reply, a favourite, a boost) made
// at unix time ts to the trending posts (sign 1), or takes it back (-1).
func StatusTrendCmd(c rueidis.Client, pid, ts int64, sign int) rueidis.Completed {
	n := schema.StatusTrendsOf(pid)
	return kernel.TrendAdd.Cmd(c, []string{schema.StatusTrends(n), schema.StatusTrendEpoch(n)}, kernel.ID(pid), strconv.FormatInt(ts, 10),
		strconv.Itoa(int(TrendHalfLife/time.Second)), strconv.Itoa(sign), strconv.Itoa(StatusTrendsKept))
}

// TrendCmd returns the kernel.TrendAdd call that adds the weight of a post
// with the folded tag f posted at unix time ts (sign 1), or takes it
// back (sign -1).
func TrendCmd(c rueidis.Client, f string, ts int64, sign int) rueidis.Completed {
	n := schema.TrendsOf(f)
	return kernel.TrendAdd.Cmd(c, []string{schema.Trends(n), schema.TrendEpoch(n)}, f, strconv.FormatInt(ts, 10),
		strconv.Itoa(int(TrendHalfLife/time.Second)), strconv.Itoa(sign), strconv.Itoa(TrendsKept))
}

// CompleteCmd returns the kernel.CompleteAdd call that changes the count of the
// folded tag f, written tag, by delta.
func CompleteCmd(c rueidis.Client, f, tag string, delta int) rueidis.Completed {
	return kernel.CompleteAdd.Cmd(c, []string{schema.Completion(schema.CompletionOf(f))}, f, tag, strconv.Itoa(delta))
}

// EdgeWrites are the plain commands (op is ZADD or ZREM) that add or
// remove the triple (subject, rel, object) in the graph: a member in
// each user's part.
func EdgeWrites(op string, subject int64, rel string, object int64) [][]string {
	ofSubject, ofObject := schema.GraphEdge(subject, rel, object)
	cmd := func(key, member string) []string {
		if op == "ZADD" {
			return []string{"ZADD", key, "0", member}
		}
		return []string{"ZREM", key, member}
	}
	return [][]string{cmd(schema.Graph(subject), ofSubject), cmd(schema.Graph(object), ofObject)}
}

// PeopleWrites are the plain commands that enter user uid in the people
// index under the terms add and take them out of the terms remove (see
// retwis.SearchTerms), each touching the shard of its term.
func PeopleWrites(uid int64, add, remove []string) [][]string {
	var cmds [][]string
	for _, t := range remove {
		if !slices.Contains(add, t) {
			cmds = append(cmds, []string{"ZREM", schema.People(schema.PeopleOf(t)), schema.PeopleEntry(t, uid)})
		}
	}
	for _, t := range add {
		if !slices.Contains(remove, t) {
			cmds = append(cmds, []string{"ZADD", schema.People(schema.PeopleOf(t)), "0", schema.PeopleEntry(t, uid)})
		}
	}
	return cmds
}

// PublishCmd returns the command that sends msg on channel.
func PublishCmd(c rueidis.Client, channel, msg string) rueidis.Completed {
	return c.B().Spublish().Channel(channel).Message(msg).Build()
}

// PostEventCmds return the commands that announce p, delivered (kind
// EventUpdate) or deleted (EventDelete), on its author's stream and, if
// p is listed, on the public stream and its tags'.
func PostEventCmds(c rueidis.Client, kind string, p Post) rueidis.Commands {
	return StreamCmds(c, schema.PostEvent(kind, p.ID), p)
}

// StreamCmds return the commands that send msg, an event of post p, on
// its author's stream and, for a listed post, the public stream and its
// tags'.
func StreamCmds(c rueidis.Client, msg string, p Post) rueidis.Commands {
	cmds := rueidis.Commands{PublishCmd(c, schema.UserStream(p.Author), msg)}
	if p.Visibility.Listed() {
		cmds = append(cmds, PublishCmd(c, schema.PublicStream, msg))
	}
	seen := map[string]bool{}
	for _, tag := range p.ListedTags() {
		if f := retwis.FoldTag(tag); f != "" && !seen[f] {
			seen[f] = true
			cmds = append(cmds, PublishCmd(c, schema.TagStream(f), msg))
		}
	}
	return cmds
}

// tagAuthorWrites count p's author among those of tag f on the day of
// p, in a HyperLogLog that expires schema.TagAuthorsDays after that day
// began (at once for an older post).
func tagAuthorWrites(f string, p Post) [][]string {
	day := time.Unix(p.Time, 0).UTC()
	start := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	key := schema.TagAuthors(f, schema.Day(day))
	return [][]string{
		{"PFADD", key, kernel.ID(p.Author)},
		{"EXPIREAT", key, strconv.FormatInt(start.AddDate(0, 0, schema.TagAuthorsDays).Unix(), 10)},
	}
}
