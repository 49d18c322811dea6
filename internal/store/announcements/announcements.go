// Package announcements is the instance's announcements, which its
// operator posts (retwis admin announce): shown at the top of the home
// page and to the client API (Mastodon's announcements) while active,
// each dismissed by each user on their own, with the users' reactions
// of one emoji (reactions.go).
package announcements

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaxText is the longest text of an announcement, in characters (a link
// counts as a post counts it).
const MaxText = 2000

// Announcement is one of the instance's announcements: plain text
// (shown with its links, tags and mentions linked as a post's), shown
// between Starts and Ends (the zero time: from its publication, for
// ever).
type Announcement struct {
	ID        int64     `json:"-"`
	Text      string    `json:"text"`
	Starts    time.Time `json:"starts_at,omitzero"`
	Ends      time.Time `json:"ends_at,omitzero"`
	Published time.Time `json:"published_at"`
	Updated   time.Time `json:"updated_at"`
}

// ActiveAt says whether a is shown at t.
func (a Announcement) ActiveAt(t time.Time) bool {
	return !t.Before(a.Starts) && (a.Ends.IsZero() || t.Before(a.Ends))
}

// Store keeps the announcements of the store st.
type Store struct{ st *store.Store }

// New returns the announcements of st.
func New(st *store.Store) *Store { return &Store{st: st} }

// Announce publishes an announcement of text, shown from starts (zero:
// now) until ends (zero: until removed), and returns it. An empty or too
// long text, or an end before the start, is an error of kind Invalid.
func (s *Store) Announce(ctx context.Context, text string, starts, ends time.Time) (Announcement, error) {
	body, _, err := retwis.NormalizePost(text, "", MaxText)
	if err != nil {
		return Announcement{}, err
	}
	if !ends.IsZero() && !ends.After(starts) {
		return Announcement{}, retwis.Errorf(retwis.Invalid, "An announcement ends after it starts.")
	}
	now := time.Now().UTC().Truncate(time.Second)
	a := Announcement{Text: body, Starts: starts.UTC(), Ends: ends.UTC(), Published: now, Updated: now}
	v, err := json.Marshal(a)
	if err != nil {
		return Announcement{}, s.st.Wrap("announce", err)
	}
	if a.ID, err = s.st.C.Do(ctx, s.st.C.B().Incr().Key(schema.NextAnnouncementID).Build()).AsInt64(); err != nil {
		return Announcement{}, s.st.Wrap("announce: id", err)
	}
	cmd := s.st.C.B().Hset().Key(schema.Announcements).FieldValue().FieldValue(kernel.ID(a.ID), string(v)).Build()
	if err := s.st.C.Do(ctx, cmd).Error(); err != nil {
		return Announcement{}, s.st.Wrap("announce", err)
	}
	return a, nil
}

// All returns every announcement, active or not, oldest first, through
// the client-side cache.
func (s *Store) All(ctx context.Context) ([]Announcement, error) {
	all, err := s.st.Cached(ctx, s.st.C.B().Hgetall().Key(schema.Announcements).Cache(), s.st.Opts.CacheTTL).AsStrMap()
	if err != nil {
		return nil, s.st.Wrap("announcements", err)
	}
	return s.parse(all), nil
}

// parse reads the announcements' hash, oldest first; one that does not
// parse is logged and left out.
func (s *Store) parse(all map[string]string) []Announcement {
	out := make([]Announcement, 0, len(all))
	for id, v := range all {
		a := Announcement{}
		var err error
		if a.ID, err = strconv.ParseInt(id, 10, 64); err != nil || json.Unmarshal([]byte(v), &a) != nil {
			s.st.Log.Warn("an announcement does not parse; it is left out", "id", id)
			continue
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Announcement) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Remove removes announcement id, with its reactions' counts: an error
// of kind NotFound if there is none. The users' marks of it (read,
// reacted) go with their accounts.
func (s *Store) Remove(ctx context.Context, id int64) error {
	b := s.st.C.B()
	counts, err := s.st.C.Do(ctx, b.Hkeys().Key(schema.AnnouncementReactions).Build()).AsStrSlice()
	if err != nil {
		return s.st.Wrap("remove announcement", err)
	}
	var fields []string
	for _, f := range counts {
		if a, _, ok := parseReaction(f); ok && a == id {
			fields = append(fields, f)
		}
	}
	n, err := s.st.C.Do(ctx, b.Hdel().Key(schema.Announcements).Field(kernel.ID(id)).Build()).AsInt64()
	if err != nil {
		return s.st.Wrap("remove announcement", err)
	}
	if n == 0 {
		return retwis.Errorf(retwis.NotFound, "There is no announcement %d.", id)
	}
	if len(fields) > 0 {
		if err := s.st.C.Do(ctx, b.Hdel().Key(schema.AnnouncementReactions).Field(fields...).Build()).Error(); err != nil {
			return s.st.Wrap("remove announcement: reactions", err)
		}
	}
	return nil
}

// Dismiss marks announcement id read by uid: an error of kind NotFound
// if there is no such announcement.
func (s *Store) Dismiss(ctx context.Context, uid, id int64) error {
	if _, err := s.one(ctx, id); err != nil {
		return err
	}
	key := schema.AnnouncementsRead(uid)
	s.st.Written.Add(key)
	return s.st.Wrap("dismiss announcement", s.st.C.Do(ctx, s.st.C.B().Sadd().Key(key).Member(kernel.ID(id)).Build()).Error())
}

// one returns announcement id: an error of kind NotFound if there is
// none.
func (s *Store) one(ctx context.Context, id int64) (Announcement, error) {
	all, err := s.All(ctx)
	if err != nil {
		return Announcement{}, err
	}
	for _, a := range all {
		if a.ID == id {
			return a, nil
		}
	}
	return Announcement{}, retwis.Errorf(retwis.NotFound, "Record not found")
}
