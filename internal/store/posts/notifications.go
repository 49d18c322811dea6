package posts

import (
	"context"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Notifications returns uid's notifications, newest first (the newest
// schema.NotificationsCap are kept), as the pages show them: with their
// actors' names and display names, and the posts of mentions and
// replies (see namedNotes); those newer than the last time uid read them
// are Unread. Reading them records that uid has, which clears the unread
// count and moves the API's notifications marker to the newest (written
// only if some were unread).
func (s *Store) Notifications(ctx context.Context, uid int64) ([]retwis.Notification, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx,
		b.Hget().Key(schema.User(uid)).Field(schema.FieldNotified).Build(),
		b.Zrevrange().Key(schema.Notifications(uid)).Start(0).Stop(schema.NotificationsCap-1).Withscores().Build())
	read, err := res[0].AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		return nil, s.Wrap("notifications", err)
	}
	entries, err := res[1].AsZScores()
	if err != nil {
		return nil, s.Wrap("notifications", err)
	}
	named, err := s.namedNotes(ctx, uid, entries, read, true)
	if err != nil {
		return nil, err
	}
	if len(entries) > 0 && int64(entries[0].Score) > read { // something new: else the user hash, cached, is left alone
		s.Written.Add(schema.User(uid), schema.Markers(uid))
		newest := NoteID(int64(entries[0].Score), entries[0].Member)
		if err := redisconn.FirstErr(s.C.DoMulti(ctx, index.MarkerCmds(s.C, uid, schema.MarkerNotifications, newest, time.Now().UnixMilli())...)); err != nil {
			return nil, s.Wrap("notifications: mark read", err)
		}
	}
	return named, nil
}

// AllNotifications returns uid's notifications (at most
// schema.NotificationsCap), newest first, with their actors' names, but
// leaves them unread: the API's clients keep their own read markers.
func (s *Store) AllNotifications(ctx context.Context, uid int64) ([]retwis.Notification, error) {
	cmd := s.C.B().Zrevrange().Key(schema.Notifications(uid)).Start(0).Stop(schema.NotificationsCap - 1).Withscores().Build()
	entries, err := s.C.Do(ctx, cmd).AsZScores()
	if err != nil {
		return nil, s.Wrap("notifications", err)
	}
	return s.namedNotes(ctx, uid, entries, math.MaxInt64, false)
}

// namedNotes parses the entries of uid's notifications, those newer
// than read (unix ms) unread, with their actors' names read in one call
// through the client-side cache with what uid does not see (retwis.Hidden);
// shown (for the pages) reads in it too the actors' display names and
// the posts of mentions and replies. The notifications from deleted
// accounts and from those uid does not see are left out, and so, when
// shown, are those of posts gone or hidden (kept without their post
// when some posts could not be read right now).
func (s *Store) namedNotes(ctx context.Context, uid int64, entries []rueidis.ZScore, read int64, shown bool) ([]retwis.Notification, error) {
	notes, actors, pids := parseNotes(entries, read)
	var b kernel.Batch
	hiddenRead, names := b.Add(s.HiddenCmds(uid)...), s.StartNames(actors, &b)
	var about accounts.DisplayNames
	if shown {
		about = s.StartDisplayNames(actors, &b)
	} else {
		pids = nil
	}
	found, _, missing, err := s.posts(ctx, reader{all: true, along: &b}, pids) // sends b
	if err != nil {
		return nil, err
	}
	hidden, err := s.ParseHidden(hiddenRead.Replies())
	if err != nil {
		return nil, err
	}
	usernames, err := names.Usernames(ctx)
	if err != nil {
		return nil, err
	}
	var displayNames map[int64]string
	if shown {
		if displayNames, err = about.Names(); err != nil {
			s.Log.Warn("display names of notifications", "user", uid, "err", err) // shown without them
		}
	}
	if found, err = s.visible(ctx, reader{id: uid, where: retwis.InConversation}, found, hidden); err != nil {
		return nil, err
	}
	named := notes[:0]
	for _, n := range notes {
		if n.Actor.Username = usernames[n.Actor.ID]; n.Actor.Username == "" || hidden.Hides(n.Actor.ID, retwis.InConversation) {
			continue // a deleted account, or one uid does not see
		}
		n.ActorDisplayName = displayNames[n.Actor.ID]
		if i := slices.IndexFunc(found, func(p retwis.Post) bool { return p.ID == n.Post }); i >= 0 {
			n.Status = &found[i]
			n.Status.AuthorDisplayName = displayNames[n.Status.AuthorID]
		} else if slices.Contains(pids, n.Post) && missing == 0 {
			continue // its post is gone, or hidden
		}
		named = append(named, n)
	}
	return named, nil
}

// parseNotes parses the entries of a user's notifications, those newer
// than read (unix ms) unread, and returns them with their actors and the
// posts of those about one.
func parseNotes(entries []rueidis.ZScore, read int64) (notes []retwis.Notification, actors, pids []int64) {
	for _, e := range entries {
		if n, ok := ParseNote(e.Member); ok {
			ms := int64(e.Score)
			n.ID, n.Time, n.Unread = NoteID(ms, e.Member), time.UnixMilli(ms), ms > read
			notes = append(notes, n)
			actors = append(actors, n.Actor.ID)
			if n.Post > 0 {
				pids = append(pids, n.Post)
			}
		}
	}
	return notes, actors, pids
}

// NoteID is the ID of the notification member made at unix ms at.
func NoteID(at int64, member string) int64 {
	h := fnv.New32a()
	h.Write([]byte(member))
	return at*1000 + int64(h.Sum32()%1000)
}

// ParseNote reads a member of schema.Notifications.
func ParseNote(member string) (retwis.Notification, bool) {
	parts := strings.Split(member, ":")
	var n retwis.Notification
	switch {
	case len(parts) == 2 && parts[0] == schema.NoteFollow:
		n.Kind = retwis.NotificationFollow
	case len(parts) == 3 && parts[0] == schema.NoteMention:
		n.Kind = retwis.NotificationMention
	case len(parts) == 3 && parts[0] == schema.NoteReply:
		n.Kind = retwis.NotificationReply
	case len(parts) == 3 && parts[0] == schema.NoteUpdate:
		n.Kind = retwis.NotificationUpdate
	case len(parts) == 3 && parts[0] == schema.NoteFavourite:
		n.Kind = retwis.NotificationFavourite
	case len(parts) == 3 && parts[0] == schema.NoteReblog:
		n.Kind = retwis.NotificationReblog
	default:
		return n, false
	}
	var err error
	if n.Actor.ID, err = strconv.ParseInt(parts[1], 10, 64); err != nil {
		return n, false
	}
	if len(parts) == 3 {
		if n.Post, err = strconv.ParseInt(parts[2], 10, 64); err != nil {
			return n, false
		}
	}
	return n, true
}

// UnreadNotifications returns how many of uid's notifications are newer
// than the last time uid read them, leaving out those from accounts uid
// does not see: a count of a range of scores (ZCOUNT), after the time
// read from the user hash with what uid does not see, both through the
// client-side cache, so that every page can show it. Only when there
// are some, and uid does not see someone, are they read and counted one
// by one.
func (s *Store) UnreadNotifications(ctx context.Context, uid int64) (int64, error) {
	var first, then kernel.Batch
	hidden := first.Add(s.HiddenCmds(uid)...)
	u := s.StartUnread(uid, &first)
	s.ReadBatch(ctx, &first)
	h, err := s.ParseHidden(hidden.Replies())
	if err != nil {
		return 0, err
	}
	u.Then(&then)
	s.ReadBatch(ctx, &then)
	return u.Count(ctx, h)
}

// Unread is the counting of a user's unread notifications (see
// UnreadNotifications) along with a page's other reads, in two batches:
// StartUnread adds the read of when they were last read to the first;
// once it is read, Then adds the count to the second; once that is read,
// Count returns it.
type Unread struct {
	s        *Store
	uid      int64
	notified kernel.Slot
	count    kernel.Slot
	after    string // the scores counted: after the last read
	err      error
}

// StartUnread adds to first the read of when uid last read their
// notifications.
func (s *Store) StartUnread(uid int64, first *kernel.Batch) *Unread {
	cmd := s.C.B().Hget().Key(schema.User(uid)).Field(schema.FieldNotified).Cache()
	return &Unread{s: s, uid: uid, notified: first.Add(rueidis.CT(cmd, s.Opts.CacheTTL))}
}

// Then adds the count of the notifications since then to b.
func (u *Unread) Then(b *kernel.Batch) {
	read, err := u.notified.Replies()[0].AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		u.err = u.s.Wrap("unread notifications", err)
		return
	}
	u.after = "(" + strconv.FormatInt(read, 10)
	cmd := u.s.C.B().Zcount().Key(schema.Notifications(u.uid)).Min(u.after).Max("+inf").Cache()
	u.count = b.Add(rueidis.CT(cmd, u.s.Opts.CacheTTL))
}

// Count returns how many of the notifications counted the reader sees,
// given what they do not see (hidden): when they do not see someone, the
// notifications are read and counted one by one.
func (u *Unread) Count(ctx context.Context, hidden retwis.Hidden) (int64, error) {
	if u.err != nil {
		return 0, u.err
	}
	s, b := u.s, u.s.C.B()
	n, err := u.count.Replies()[0].AsInt64()
	if err != nil || n == 0 || !hidden.HidesAnyone(retwis.InConversation) {
		return n, s.Wrap("unread notifications", err)
	}
	cmd := b.Zrangebyscore().Key(schema.Notifications(u.uid)).Min(u.after).Max("+inf").Limit(0, schema.NotificationsCap).Cache()
	members, err := s.Cached(ctx, cmd, s.Opts.CacheTTL).AsStrSlice()
	if err != nil {
		return 0, s.Wrap("unread notifications", err)
	}
	n = 0
	for _, m := range members {
		if note, ok := ParseNote(m); ok && !hidden.Hides(note.Actor.ID, retwis.InConversation) {
			n++
		}
	}
	return n, nil
}

// Mentions returns a page of the posts that mention uid, newest first,
// by cursor.
func (s *Store) Mentions(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.Page, error) {
	return s.addressed(ctx, uid, schema.Mentions(uid), c, n)
}

// addressed returns a page, newest first, of the index key of posts
// addressed to uid, as uid sees them.
func (s *Store) addressed(ctx context.Context, uid int64, key string, c retwis.Cursor, n int) (retwis.Page, error) {
	return s.collect(ctx, reader{id: uid, where: retwis.InConversation}, c, n, source{key: key}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		ids, err := s.indexPage(ctx, key, c, want)
		return ids, s.Wrap("read "+key, err)
	}, nil)
}
