// Package dataset makes and converts whole social networks offline: a
// synthetic one with power-law popularity (Generate), or a real one from
// a follow graph in the SNAP edge-list format with users and posts in CSV
// or JSON Lines (Import). It knows neither Redis nor key names: it hands
// domain records, in order, to a Writer, which internal/store/bulk
// provides (as a RESP stream for `retwis load`, or straight into a live
// database),
// so that every index the server keeps is also written for generated and
// imported data.
package dataset

import (
	"slices"

	"github.com/retwis/retwis"
)

// User is one account of a dataset.
type User struct {
	ID           int64
	Name         string
	DisplayName  string // optional
	PasswordHash string // argon2id, PHC string
	Registered   int64  // unix seconds
	Seen         int64  // unix seconds
}

// Post is one post of a dataset.
type Post struct {
	ID         int64
	Author     int64
	AuthorName string // the author's username
	Time       int64  // unix seconds
	Body       string
	// Tags are the body's tags, as written; Mentions the users it
	// mentions (ID and Name only).
	Tags     []string
	Mentions []User
	// InReplyTo is the post it answers (0: none), by ReplyTo (ID and Name
	// only); Ancestors are the posts above it, nearest first.
	InReplyTo int64
	ReplyTo   User
	Ancestors []int64
	// Visibility is who sees it: public (the zero value), unlisted or
	// private; a dataset has no direct posts (its home timelines hold
	// what its follows say).
	Visibility retwis.Visibility
}

// Boost is a boost of a dataset: a post of the booster's own, without
// a body, that shows another post (Of) to the booster's followers.
type Boost struct {
	ID          int64
	Booster     int64
	BoosterName string
	Time        int64 // unix seconds
	// Of is the post boosted (public or unlisted, by another user), by
	// OfAuthor (ID and Name only).
	Of       int64
	OfAuthor User
}

// Favourite is a user's favourite of a post.
type Favourite struct {
	Post, Author int64 // the post, by its author (not the user)
	Time         int64 // unix ms, each of a user's later than the one before
}

// HomeBoost is a boost that a home timeline got: the boost (ID) of post
// Of.
type HomeBoost struct{ ID, Of int64 }

// Writer receives a dataset, in this order: every user; the follows;
// the posts and boosts, in ascending ids; every user's favourites; every
// home timeline, each with the boosts it got; every archive, if any,
// with the boosts it got; then Finish. Flush makes what was written so
// far durable (progress reports call it, so that they measure what was
// really written).
type Writer interface {
	User(u User) error
	// Follows records that follower follows each of followees since the
	// unix time at.
	Follows(follower int64, followees []int64, at int64) error
	Post(p Post) error
	Boost(b Boost) error
	// Favourites records uid's favourites, oldest first.
	Favourites(uid int64, fs []Favourite) error
	// HomeBoosts records boosts that uid's home timeline (its list or its
	// archive) got, newest first: of the entries Home and Archive write,
	// the boosts, up to HomeCap of them in all.
	HomeBoosts(uid int64, boosts []HomeBoost) error
	// Home writes uid's home timeline list: post ids, newest first.
	Home(uid int64, ids []int64) error
	// Archive writes the older entries of uid's home timeline, those
	// below its list: post ids, newest first.
	Archive(uid int64, ids []int64) error
	// Finish records that users and posts (the highest ids) exist, and
	// flushes.
	Finish(users, posts int64) error
	Flush() error
}

// Stats says what was written.
type Stats struct {
	Users, Follows, Posts, TimelineEntries int
	Boosts, Favourites                     int // Boosts are among the Posts (Generate)
	ArchivedEntries                        int // timeline entries below the lists
	MaxFollowers                           int // followers of the most followed user (Generate)
	Skipped                                int // input lines skipped (Import)
}

// Timelines says how deep the home timelines of a dataset go.
type Timelines struct {
	// HomeCap is how many entries each home timeline list keeps, as the
	// server's --home-cap; required.
	HomeCap int
	// Archive is how many older entries each home timeline keeps below
	// its list, in its archive (0: none; its timeline then begins at the
	// end of its list, as a server's does that has archived nothing).
	Archive int
}

func (t Timelines) checkDepth() error {
	switch {
	case t.HomeCap < 1:
		return errorf("the home timeline cap must be positive")
	case t.Archive < 0:
		return errorf("the archive depth cannot be negative")
	}
	return nil
}

// writeList writes the list of uid's home timeline from g, with the
// boosts it got, and counts its entries in stats.
func (t Timelines) writeList(w Writer, g postIndex, uid int64, stats *Stats) error {
	ids, boosts := homeOf(g, uid, t.HomeCap)
	stats.TimelineEntries += len(ids)
	if err := w.Home(uid, ids); err != nil {
		return err
	}
	return writeHomeBoosts(w, uid, boosts)
}

// writeHomeBoosts records the boosts a home timeline got, if any.
func writeHomeBoosts(w Writer, uid int64, bs []HomeBoost) error {
	if len(bs) == 0 {
		return nil
	}
	return w.HomeBoosts(uid, bs)
}

// writeArchive writes the archive of uid's home timeline from g, if it
// has one, with the boosts it got (the newest HomeCap with those of the
// list), and counts its entries in stats.
func (t Timelines) writeArchive(w Writer, g postIndex, uid int64, stats *Stats) error {
	if t.Archive == 0 {
		return nil
	}
	ids, boosts := homeOf(g, uid, t.HomeCap+t.Archive)
	if len(ids) <= t.HomeCap {
		return nil
	}
	stats.ArchivedEntries += len(ids) - t.HomeCap
	if err := w.Archive(uid, ids[t.HomeCap:]); err != nil {
		return err
	}
	boosts = boosts[:min(len(boosts), t.HomeCap)]
	below := slices.IndexFunc(boosts, func(b HomeBoost) bool { return b.ID <= ids[t.HomeCap] }) // the first in the archive
	if below < 0 {
		return nil
	}
	return writeHomeBoosts(w, uid, boosts[below:])
}
