package store

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Marker is a user's position in a timeline, as the client API's
// markers keep it: the id of the post (home) or notification last read,
// how many times it was saved, and when it was saved last.
type Marker struct {
	LastReadID int64
	Version    int64
	UpdatedAt  time.Time
}

// The timelines a user has a marker in: the home timeline (of post
// ids) and the notifications (of notification ids).
const (
	MarkerHome          = schema.MarkerHome
	MarkerNotifications = schema.MarkerNotifications
)

// MarkerTimelines are the timelines a user has a marker in.
var MarkerTimelines = []string{MarkerHome, MarkerNotifications}

// Markers returns uid's markers, by timeline, of those ever saved, in one
// round trip. The notifications marker is the pages' read marker: when
// that was moved where no marker was written with it (by a version of
// retwis before markers), the marker is at the last notification of the
// millisecond it holds, saved then.
func (s *Store) Markers(ctx context.Context, uid int64) (map[string]Marker, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Hgetall().Key(schema.Markers(uid)).Build(),
		b.Hget().Key(schema.User(uid)).Field(schema.FieldNotified).Build())
	fields, err := res[0].AsStrMap()
	if err != nil {
		return nil, s.Wrap("markers", err)
	}
	notified, err := res[1].AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		return nil, s.Wrap("markers: notifications read", err)
	}
	out := map[string]Marker{}
	for _, timeline := range MarkerTimelines {
		m := parseMarker(fields, timeline)
		if timeline == schema.MarkerNotifications && notified > 0 && m.LastReadID/1000 != notified {
			m = Marker{LastReadID: notified*1000 + 999, Version: m.Version + 1, UpdatedAt: time.UnixMilli(notified)}
		}
		if m.LastReadID > 0 {
			out[timeline] = m
		}
	}
	return out, nil
}

// parseMarker reads the marker of timeline from the fields of a
// schema.Markers hash (zero if never saved).
func parseMarker(fields map[string]string, timeline string) Marker {
	idField, version, at := schema.MarkerFields(timeline)
	id, _ := strconv.ParseInt(fields[idField], 10, 64)
	v, _ := strconv.ParseInt(fields[version], 10, 64)
	ms, _ := strconv.ParseInt(fields[at], 10, 64)
	return Marker{LastReadID: id, Version: v, UpdatedAt: time.UnixMilli(ms)}
}

// SaveMarkers saves uid's positions in the timelines of ids (of
// MarkerTimelines): the id read last in each. In the notifications, it
// is also where the pages count the unread ones from. One round trip; it
// returns the markers saved.
func (s *Store) SaveMarkers(ctx context.Context, uid int64, ids map[string]int64) (map[string]Marker, error) {
	now := time.Now()
	var cmds rueidis.Commands
	versions := map[string]int{} // where each timeline's version is in the replies
	for _, timeline := range MarkerTimelines {
		if id, ok := ids[timeline]; ok {
			marker := index.MarkerCmds(s.C, uid, timeline, id, now.UnixMilli())
			versions[timeline] = len(cmds) + 1
			cmds = append(cmds, marker...)
		}
	}
	if len(cmds) == 0 {
		return map[string]Marker{}, nil
	}
	s.Written.Add(schema.Markers(uid))
	if _, ok := ids[MarkerNotifications]; ok {
		s.Written.Add(schema.User(uid))
	}
	res := s.C.DoMulti(ctx, cmds...)
	if err := redisconn.FirstErr(res); err != nil {
		return nil, s.Wrap("save markers", err)
	}
	saved := make(map[string]Marker, len(versions))
	for timeline, at := range versions {
		version, err := res[at].AsInt64()
		if err != nil {
			return nil, s.Wrap("save markers", err)
		}
		saved[timeline] = Marker{LastReadID: ids[timeline], Version: version, UpdatedAt: now}
	}
	return saved, nil
}

// homeMarker is the read of a user's home marker with the other reads
// of their home page (HomePage), so that the page can move it to the
// newest post it shows, where the client API's apps find it: the
// pages remember where their reader stopped.
type homeMarker struct {
	s    *Store
	uid  int64
	read kernel.Slot // the marker's id; none when the page moves no marker
}

// startHomeMarker adds to first the read of uid's home marker (through
// the client-side cache), if the page is to move it (mark).
func (s *Store) startHomeMarker(uid int64, mark bool, first *kernel.Batch) homeMarker {
	m := homeMarker{s: s, uid: uid}
	if mark {
		id, _, _ := schema.MarkerFields(MarkerHome)
		m.read = first.Add(rueidis.CT(s.C.B().Hget().Key(schema.Markers(uid)).Field(id).Cache(), s.Opts.CacheTTL))
	}
	return m
}

// keep saves the home marker at the newest post of page if that is newer
// than the marker: one round trip then, none otherwise. A failure is
// logged, and the page shown all the same.
func (m homeMarker) keep(ctx context.Context, page retwis.Page) {
	replies := m.read.Replies()
	if len(replies) == 0 || len(page.Posts) == 0 {
		return
	}
	saved, err := replies[0].AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		m.s.Log.Warn("home marker", "user", m.uid, "err", err)
		return
	}
	if newest := page.Posts[0].ID; newest > saved {
		if _, err := m.s.SaveMarkers(ctx, m.uid, map[string]int64{MarkerHome: newest}); err != nil {
			m.s.Log.Warn("save the home marker", "user", m.uid, "err", err)
		}
	}
}
