// Package scheduled is the posts users write now to publish later
// (Mastodon's scheduled statuses): each user's in a hash of their slot,
// their due times in a sorted set sharded by author, from which every
// maintenance round publishes those due (publish.go) through the same
// path as a post from the form (posts.Store.Publish: its rules, limits
// and delivery job), exactly once.
package scheduled

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
)

// Mastodon's bounds on scheduled posts: a post is scheduled MinLead
// ahead at least, a user has MaxPending scheduled at most, MaxPerDay of
// them due on one day (UTC).
const (
	MinLead    = 5 * time.Minute
	MaxPending = 300
	MaxPerDay  = 25
)

// Post is a scheduled post: what will be published, and when.
type Post struct {
	ID     int64     `json:"-"`
	Author int64     `json:"-"`
	At     time.Time `json:"at"`
	Text   string    `json:"text"`
	// Warning is the content warning, Visibility Mastodon's name of who
	// will see it ("" for public), InReplyTo the post it answers (0: none).
	Warning    string `json:"warning,omitempty"`
	Visibility string `json:"visibility,omitempty"`
	InReplyTo  int64  `json:"in_reply_to,omitempty"`
	// Key is the idempotency key it was scheduled with ("": none): the
	// same key again answers this post, and schedules nothing more.
	Key string `json:"key,omitempty"`
	// Media are the ids of the author's uploads it will have, which it
	// holds until then (upkeep keeps them), and Sensitive hides them
	// until opened.
	Media     []int64 `json:"media,omitempty"`
	Sensitive bool    `json:"sensitive,omitempty"`
}

// Draft is what Publish is given when p is due, but its pictures
// (Media: attached by the publication).
func (p Post) Draft() (posts.Draft, error) {
	vis, err := retwis.ParseVisibility(p.Visibility)
	return posts.Draft{Author: p.Author, Text: p.Text, Warning: p.Warning, InReplyTo: p.InReplyTo,
		Visibility: vis, Key: "scheduled:" + kernel.ID(p.ID), Sensitive: p.Sensitive}, err
}

// Store keeps the scheduled posts of the store st.
type Store struct{ st *store.Store }

// New returns the scheduled posts of st.
func New(st *store.Store) *Store { return &Store{st: st} }

// Schedule schedules p (its Author, At, Text, Warning, Visibility,
// InReplyTo, Key, Media and Sensitive) and returns it with its id:
// refused with an error of kind Invalid if it is due sooner than
// MinLead, if its text breaks the rules of a post, if its pictures
// could not be attached to one (mediastore.Store.ForPost), or if the
// author would have more than MaxPending scheduled or MaxPerDay due on
// its day. Its pictures are then held by it (hold). With a Key the
// author scheduled a post with before, that post is returned and
// nothing written.
func (s *Store) Schedule(ctx context.Context, p Post) (Post, error) {
	p.At = p.At.UTC().Truncate(time.Second)
	if err := s.valid(p); err != nil {
		return Post{}, err
	}
	if _, _, err := mediastore.New(s.st).ForPost(ctx, p.Author, p.Media, p.Key); err != nil {
		return Post{}, err
	}
	id, err := s.st.NewID(ctx, schema.NextScheduledID)
	if err != nil {
		return Post{}, err
	}
	p.ID = id
	q, err := s.write(ctx, p, true)
	if err == nil && q.ID == id {
		err = s.hold(ctx, q)
	}
	return q, err
}

// hold records p's pictures as held by it; if they cannot be, p is
// cancelled.
func (s *Store) hold(ctx context.Context, p Post) error {
	if len(p.Media) == 0 {
		return nil
	}
	cmds := mediastore.New(s.st).HoldCmds(p.Author, p.Media)(p.ID)
	if err := redisconn.FirstErr(s.st.C.DoMulti(ctx, cmds...)); err != nil {
		s.Cancel(ctx, p.Author, p.ID)
		return s.st.Wrap("schedule: hold pictures", err)
	}
	return nil
}

// valid checks p's time and text.
func (s *Store) valid(p Post) error {
	if p.At.Before(time.Now().Add(MinLead)) {
		return retwis.Errorf(retwis.Invalid, "Validation failed: Scheduled at The scheduled date must be in the future")
	}
	if _, err := retwis.ParseVisibility(p.Visibility); err != nil {
		return err
	}
	if p.Key != "" {
		if err := posts.CheckIdempotencyKey(p.Key); err != nil {
			return err
		}
	}
	_, _, err := retwis.NormalizePost(p.Text, p.Warning, s.st.Opts.MaxPostChars)
	return err
}

// write stores p and its due time. The bounds are checked after the
// write, on what the user's hash holds then (read in the same round
// trip), so that concurrent requests cannot pass them together: one that
// finds them broken, or (new) an earlier post with its key, takes its
// write back.
func (s *Store) write(ctx context.Context, p Post, isNew bool) (Post, error) {
	v, err := json.Marshal(p)
	if err != nil {
		return Post{}, s.st.Wrap("schedule", err)
	}
	b, key, field := s.st.C.B(), schema.Scheduled(p.Author), kernel.ID(p.ID)
	res := s.st.C.DoMulti(ctx, b.Hset().Key(key).FieldValue().FieldValue(field, string(v)).Build(), b.Hgetall().Key(key).Build())
	all, err := res[1].AsStrMap()
	if err = cmp.Or(res[0].Error(), err); err != nil {
		return Post{}, s.st.Wrap("schedule", err)
	}
	if earlier, refusal := s.bounds(p, all, isNew); refusal != nil || earlier.ID != 0 {
		if isNew {
			s.st.C.Do(ctx, b.Hdel().Key(key).Field(field).Build())
		}
		if refusal != nil {
			return Post{}, refusal
		}
		return earlier, nil
	}
	due := b.Zadd().Key(schema.Due(schema.DueOf(p.Author))).ScoreMember().ScoreMember(float64(p.At.Unix()), schema.DueMember(p.Author, p.ID)).Build()
	if err := s.st.C.Do(ctx, due).Error(); err != nil {
		if isNew { // never due, so taken back
			s.st.C.Do(ctx, b.Hdel().Key(key).Field(field).Build())
		}
		return Post{}, s.st.Wrap("schedule: due", err)
	}
	return p, nil
}

// bounds returns the earlier post p's key scheduled (if isNew), or why
// p cannot be kept beside the user's scheduled posts all (its own
// included).
func (s *Store) bounds(p Post, all map[string]string, isNew bool) (Post, error) {
	mine := s.parse(p.Author, all)
	sameDay := 0
	for _, q := range mine {
		if isNew && p.Key != "" && q.Key == p.Key && q.ID < p.ID {
			return q, nil
		}
		if q.At.UTC().Truncate(24 * time.Hour).Equal(p.At.UTC().Truncate(24 * time.Hour)) {
			sameDay++
		}
	}
	switch {
	case len(mine) > MaxPending:
		return Post{}, retwis.Errorf(retwis.Invalid, "Validation failed: You have exceeded the limit of %d scheduled posts", MaxPending)
	case sameDay > MaxPerDay:
		return Post{}, retwis.Errorf(retwis.Invalid, "Validation failed: You have exceeded the limit of %d scheduled posts for today", MaxPerDay)
	}
	return Post{}, nil
}

// parse reads uid's scheduled posts from their hash's fields, newest id
// first; one that does not parse is logged and left out.
func (s *Store) parse(uid int64, all map[string]string) []Post {
	out := make([]Post, 0, len(all))
	for f, v := range all {
		p := Post{Author: uid}
		var err error
		if p.ID, err = strconv.ParseInt(f, 10, 64); err != nil || json.Unmarshal([]byte(v), &p) != nil {
			s.st.Log.Warn("a scheduled post does not parse; it is left out", "user", uid, "id", f)
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Post) int { return cmp.Compare(b.ID, a.ID) })
	return out
}

// List returns uid's scheduled posts, newest id first.
func (s *Store) List(ctx context.Context, uid int64) ([]Post, error) {
	all, err := s.st.C.Do(ctx, s.st.C.B().Hgetall().Key(schema.Scheduled(uid)).Build()).AsStrMap()
	if err != nil {
		return nil, s.st.Wrap("scheduled posts", err)
	}
	return s.parse(uid, all), nil
}

// Get returns uid's scheduled post id: an error of kind NotFound if
// there is none.
func (s *Store) Get(ctx context.Context, uid, id int64) (Post, error) {
	v, err := s.st.C.Do(ctx, s.st.C.B().Hget().Key(schema.Scheduled(uid)).Field(kernel.ID(id)).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return Post{}, retwis.Errorf(retwis.NotFound, "Record not found")
	}
	if err != nil {
		return Post{}, s.st.Wrap("scheduled post", err)
	}
	p := Post{ID: id, Author: uid}
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		return Post{}, s.st.Wrap("scheduled post", err)
	}
	return p, nil
}

// Reschedule moves uid's scheduled post id to at, under the rules of
// Schedule, and returns it.
func (s *Store) Reschedule(ctx context.Context, uid, id int64, at time.Time) (Post, error) {
	p, err := s.Get(ctx, uid, id)
	if err != nil {
		return Post{}, err
	}
	old := p.At
	if p.At = at.UTC().Truncate(time.Second); p.At.Before(time.Now().Add(MinLead)) {
		return Post{}, retwis.Errorf(retwis.Invalid, "Validation failed: Scheduled at The scheduled date must be in the future")
	}
	q, err := s.write(ctx, p, false)
	if err != nil && retwis.ErrorKind(err) == retwis.Invalid {
		p.At = old // put back as it was
		s.write(ctx, p, false)
	}
	return q, err
}

// Cancel deletes uid's scheduled post id, and hands its pictures to
// upkeep, which removes them: an error of kind NotFound if there is
// none.
func (s *Store) Cancel(ctx context.Context, uid, id int64) error {
	p, err := s.Get(ctx, uid, id)
	if err != nil {
		return err
	}
	b := s.st.C.B()
	cmds := rueidis.Commands{b.Hdel().Key(schema.Scheduled(uid)).Field(kernel.ID(id)).Build()}
	if len(p.Media) > 0 {
		cmds = append(cmds, index.MediaDueCmd(s.st.C, time.Time{}, uid, p.Media...))
	}
	res := s.st.C.DoMulti(ctx, cmds...)
	n, err := res[0].AsInt64()
	if err = cmp.Or(err, redisconn.FirstErr(res)); err != nil {
		return s.st.Wrap("cancel scheduled post", err)
	}
	if n == 0 {
		return retwis.Errorf(retwis.NotFound, "Record not found")
	}
	// Left behind, the due time would be dropped when due (publish.go).
	s.st.C.Do(ctx, b.Zrem().Key(schema.Due(schema.DueOf(uid))).Member(schema.DueMember(uid, id)).Build())
	return nil
}

// timeLayouts are the spellings of a time ParseAt reads: ISO 8601 as
// apps send it, and a form's datetime-local (minutes, no zone).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

// ParseAt reads the time a post is scheduled for: ISO 8601 (RFC 3339,
// or a date and time without a zone, or a date alone), the times
// without a zone in loc (UTC if nil). Anything else is an error of kind
// Invalid.
func ParseAt(s string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	for _, layout := range timeLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, retwis.Errorf(retwis.Invalid, "Validation failed: Scheduled at is not a date and time (ISO 8601)")
}

// Of returns d (its Key the idempotency key of its scheduling, its
// Media the pictures it will have) as a post scheduled for at.
func Of(d posts.Draft, at time.Time) Post {
	p := Post{Author: d.Author, At: at, Text: d.Text, Warning: d.Warning, InReplyTo: d.InReplyTo, Key: d.Key, Sensitive: d.Sensitive}
	for _, a := range d.Media {
		p.Media = append(p.Media, a.ID)
	}
	if d.Visibility != retwis.Public {
		p.Visibility = d.Visibility.String()
	}
	return p
}

// Zone returns the time zone of offset, the minutes a browser's time is
// behind UTC as its script's Date.getTimezoneOffset gives them, or UTC
// if offset is not such a number.
func Zone(offset string) *time.Location {
	off, err := strconv.Atoi(offset)
	if err != nil || off < -14*60 || off > 14*60 {
		return time.UTC
	}
	return time.FixedZone("", -off*60)
}
