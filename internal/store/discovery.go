package store

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Bounds of the random discovery.
const (
	// activeWithin is how recently a user must have been seen to be
	// suggested.
	activeWithin = 30 * 24 * time.Hour
	// discoveryDraw is how many users a draw picks at random, of whom the
	// active ones are suggested.
	discoveryDraw = 30
	// discoveryFresh is how long a server shows the same draw: the
	// welcome page, the page most visited by strangers (and robots), then
	// costs no round trip.
	discoveryFresh = 10 * time.Second
)

// SomePeople returns up to n users drawn at random among those seen in
// the last 30 days, but suspended accounts, with their display names
// and follower counts: the welcome page's "some people". A draw that
// found someone is kept for discoveryFresh; the suspended are left out
// of it each time. It reads a random sample of the registered users,
// their ids, then their user hashes and follower counts: three round
// trips.
func (s *Store) SomePeople(ctx context.Context, n int) ([]retwis.Person, error) {
	suspended, err := s.Suspended(ctx)
	if err != nil {
		return nil, err
	}
	people, err := s.drawPeople(ctx)
	people = accounts.Listed(suspended, people, func(p retwis.Person) int64 { return p.User.ID })
	return people[:min(n, len(people))], err
}

// drawPeople returns the people of SomePeople's last draw, if it is
// fresh, or else of a new draw.
func (s *Store) drawPeople(ctx context.Context) ([]retwis.Person, error) {
	if people, ok := s.discovery.get(); ok {
		return people, nil
	}
	b := s.C.B()
	names, err := s.C.Do(ctx, b.Zrandmember().Key(schema.UsersByTime).Count(discoveryDraw).Build()).AsStrSlice()
	if err != nil {
		return nil, s.Wrap("some people", err)
	}
	// Of a set no larger than the count, Redis returns all in order.
	rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	lookups := make([]rueidis.CacheableTTL, len(names))
	for i, name := range names {
		lookups[i] = rueidis.CT(b.Hget().Key(schema.Names(name)).Field(name).Cache(), s.Opts.CacheTTL)
	}
	var uids []int64
	for _, r := range s.CachedMulti(ctx, lookups...) {
		if uid, err := r.AsInt64(); err == nil {
			uids = append(uids, uid)
		}
	}
	reads := make([]rueidis.CacheableTTL, 0, 2*len(uids))
	for _, uid := range uids {
		reads = append(reads,
			rueidis.CT(b.Hmget().Key(schema.User(uid)).Field(schema.FieldUsername, schema.FieldDisplayName, schema.FieldSeen).Cache(), s.Opts.CacheTTL),
			rueidis.CT(b.Zcard().Key(schema.Followers(uid)).Cache(), s.Opts.CacheTTL))
	}
	res := s.CachedMulti(ctx, reads...)
	since := time.Now().Add(-activeWithin).Unix()
	var people []retwis.Person
	for i, uid := range uids {
		vals, err := res[2*i].ToArray()
		if err != nil {
			return nil, s.Wrap("some people", err)
		}
		if len(vals) != 3 {
			return nil, s.Wrap("some people", kernel.ErrShape)
		}
		name, _ := vals[0].ToString()
		display, _ := vals[1].ToString()
		seenText, _ := vals[2].ToString()
		seen, _ := strconv.ParseInt(seenText, 10, 64)
		followers, err := res[2*i+1].AsInt64()
		if err != nil {
			return nil, s.Wrap("some people", err)
		}
		if name != "" && seen >= since {
			people = append(people, retwis.Person{User: retwis.User{ID: uid, Username: name}, DisplayName: display, Followers: followers})
		}
	}
	if len(people) > 0 { // a site nobody uses yet draws again each time
		s.discovery.put(people)
	}
	return people, nil
}

// peopleDraw keeps the last draw of SomePeople for discoveryFresh.
type peopleDraw struct {
	mu     sync.Mutex
	at     time.Time
	people []retwis.Person
}

// get returns the draw if it is fresh.
func (d *peopleDraw) get() ([]retwis.Person, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.people, !d.at.IsZero() && time.Since(d.at) < discoveryFresh
}

// put keeps people as the draw.
func (d *peopleDraw) put(people []retwis.Person) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.at, d.people = time.Now(), people
}
