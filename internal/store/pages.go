package store

import (
	"context"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
)

// The hot pages (home, profile, global timeline) are one call each,
// which sends everything the page shows in the pipelines of its
// timeline (posts.Along): what does not depend on another read goes with
// the timeline's first reads, the rest with the read of its posts. So a
// page costs what its timeline costs (two round trips cold, none warm)
// and no more, whatever else it shows. What a page shows besides its
// posts and cannot read is logged, and the page goes on without it.

// PageQuery is what a hot page asks for, whichever page it is.
type PageQuery struct {
	Cursor retwis.Cursor
	N      int // posts on the page
	// Unread asks for the count of the viewer's unread notifications,
	// which the header of a page for a logged-in viewer shows.
	Unread bool
	// MarkHome asks the home page to move the viewer's home marker (the
	// client API's) to the newest post it shows, if newer: for a first
	// page shown after a request that succeeded.
	MarkHome bool
	// Along, if set, adds the caller's cached reads to the first round
	// trip of the home page (its announcements).
	Along func(first *kernel.Batch)
}

// HomeView is what the home page shows its viewer.
type HomeView struct {
	Page        retwis.Page
	Counts      retwis.Counts // the viewer's
	DisplayName string        // the viewer's ("": none), which the greeting shows
	// LoginFailures are the failed logins to the account its owner is
	// told of (see LoginNotice), the last at LastLoginFailure.
	LoginFailures    int
	LastLoginFailure time.Time
	Suggestions      []retwis.Suggestion // who to follow
	Unread           int64
}

// HomePage reads viewer's home page at q: a page of the home timeline
// (HomeTimeline) with viewer's counts, the failed logins viewer is told
// of (LoginNotice, which forgets them), up to suggest users to follow
// (WhoToFollow; 0: none), the unread count if asked for and viewer's
// display name; asked to, it moves viewer's home marker to the newest
// post it shows (one write more when that is newer than the marker); and
// it sends q.Along's reads with its first round trip.
func (s *Store) HomePage(ctx context.Context, viewer int64, q PageQuery, suggest int) (HomeView, error) {
	var first kernel.Batch
	if q.Along != nil {
		q.Along(&first)
	}
	notice := s.StartLoginNotice(viewer, &first)
	name := s.StartDisplayNames([]int64{viewer}, &first)
	var who *suggestions
	if suggest > 0 {
		who = s.startSuggestions(viewer, suggest, &first)
	}
	unread := s.startUnread(viewer, q.Unread, &first)
	marker := s.startHomeMarker(viewer, q.MarkHome, &first)
	var v HomeView
	var err error
	v.Page, v.Counts, err = s.HomeTimelineAlong(ctx, viewer, q.Cursor, q.N, posts.Along{First: &first,
		Then: func(ctx context.Context, hidden retwis.Hidden) *kernel.Batch {
			then := unread.then(hidden)
			if who != nil {
				who.then(ctx, hidden, then)
			}
			return then
		}})
	if err != nil {
		return v, err
	}
	if v.LoginFailures, v.LastLoginFailure, err = notice.Take(ctx); err != nil {
		s.Log.Warn("failed logins", "user", viewer, "err", err)
	}
	names, err := name.Names()
	if err != nil {
		s.Log.Warn("display name", "user", viewer, "err", err)
	}
	v.DisplayName = names[viewer]
	if who != nil {
		if v.Suggestions, err = who.done(ctx); err != nil {
			s.Log.Warn("who to follow", "user", viewer, "err", err)
		}
	}
	v.Unread = unread.count(ctx)
	marker.keep(ctx, v.Page)
	return v, nil
}

// ProfileView is what a profile page shows its viewer.
type ProfileView struct {
	Profile      retwis.Profile
	Relationship retwis.Relationship // what links the viewer to the user
	Unread       int64
	Header       *retwis.Attachment // the user's header picture (nil: none)
}

// ProfilePage reads the profile page of the user called username (see
// UserByName) as viewer (0: logged out) sees it, at q: a page of the
// user's posts with their profile (Profile), what links viewer to them
// (Relationship), their header picture, the unread count if asked for
// and, on the first page, the posts they pinned; a suspended user's is
// not found but by moderators (Shown). Finding the user by name is one round trip more,
// and so is reading the pinned posts, if there are any.
func (s *Store) ProfilePage(ctx context.Context, viewer int64, username string, q PageQuery) (ProfileView, error) {
	var v ProfileView
	uid, err := s.UserID(ctx, username)
	if err != nil {
		return v, err
	}
	var first kernel.Batch
	var suspended bool
	rel := s.startRelationship(ctx, viewer, uid, &first)
	unread := s.startUnread(viewer, q.Unread, &first)
	pins := s.StartPins(uid, &first)
	header := first.Add(rueidis.CT(s.C.B().Hget().Key(schema.User(uid)).Field(schema.FieldHeader).Cache(), s.Opts.CacheTTL))
	v.Profile, err = s.ProfileAlong(ctx, viewer, retwis.User{ID: uid}, q.Cursor, q.N, posts.Along{First: &first,
		Then: func(ctx context.Context, hidden retwis.Hidden) *kernel.Batch {
			suspended = hidden.Suspended[uid]
			then := unread.then(hidden)
			rel.then(ctx, then)
			return then
		}})
	if err == nil && suspended { // read with the posts: only then is the viewer's role read
		err = s.Shown(ctx, viewer, uid)
	}
	if retwis.ErrorKind(err) == retwis.NotFound { // the name's user is gone, or suspended
		err = retwis.Errorf(retwis.NotFound, "There is no user called %q.", username)
	}
	if err != nil {
		return v, err
	}
	if v.Relationship, err = rel.done(ctx); err != nil {
		s.Log.Warn("relationship", "viewer", viewer, "user", uid, "err", err)
	}
	if q.Cursor == (retwis.Cursor{}) {
		if v.Profile.Pinned, err = s.PinnedPosts(ctx, viewer, pins); err != nil {
			s.Log.Warn("pinned posts", "viewer", viewer, "user", uid, "err", err)
		}
	}
	h, _ := header.Replies()[0].ToString() // none, or unread: the page goes without
	if as := retwis.DecodeAttachments(h); len(as) == 1 {
		v.Header = &as[0]
	}
	v.Unread = unread.count(ctx)
	return v, nil
}

// TimelineView is what the global timeline page shows.
type TimelineView struct {
	Page   retwis.Page
	Users  []string       // the newest users
	Trends []retwis.Trend // the tags trending now
	Unread int64
}

// TimelinePage reads the global timeline page as viewer (0: logged out)
// sees it, at q: a page of the global timeline (GlobalTimeline), the
// users newest users (LatestUsers), the trends tags trending now
// (Trending) and the unread count if asked for.
func (s *Store) TimelinePage(ctx context.Context, viewer int64, q PageQuery, users, trends int) (TimelineView, error) {
	var first kernel.Batch
	latest := s.StartLatestUsers(users, &first)
	trending := s.startTrending(trends, time.Now(), &first)
	unread := s.startUnread(viewer, q.Unread, &first)
	var v TimelineView
	var err error
	v.Page, err = s.GlobalTimelineAlong(ctx, viewer, q.Cursor, q.N, posts.Along{First: &first,
		Then: func(ctx context.Context, hidden retwis.Hidden) *kernel.Batch {
			then := unread.then(hidden)
			trending.then(then)
			return then
		}})
	if err != nil {
		return v, err
	}
	if v.Users, err = latest.Users(ctx); err != nil {
		return v, err
	}
	if v.Trends, err = trending.done(); err != nil {
		s.Log.Warn("trending tags", "err", err)
	}
	v.Unread = unread.count(ctx)
	return v, nil
}

// unreadPart is the unread count of a page (posts.Unread), if asked for.
type unreadPart struct {
	s      *Store
	uid    int64
	u      *posts.Unread // nil: not asked for
	hidden retwis.Hidden
}

// startUnread adds the first read of uid's unread count to first, if
// asked for.
func (s *Store) startUnread(uid int64, asked bool, first *kernel.Batch) *unreadPart {
	p := &unreadPart{s: s, uid: uid}
	if asked {
		p.u = s.StartUnread(uid, first)
	}
	return p
}

// then returns a new batch with the second read of the count in it,
// given what the viewer does not see.
func (p *unreadPart) then(hidden retwis.Hidden) *kernel.Batch {
	then := new(kernel.Batch)
	p.hidden = hidden
	if p.u != nil {
		p.u.Then(then)
	}
	return then
}

// count returns the count (0 if not asked for, or if it could not be
// read: the page goes on without it).
func (p *unreadPart) count(ctx context.Context) int64 {
	if p.u == nil {
		return 0
	}
	n, err := p.u.Count(ctx, p.hidden)
	if err != nil {
		p.s.Log.Warn("unread notifications", "user", p.uid, "err", err)
	}
	return n
}
