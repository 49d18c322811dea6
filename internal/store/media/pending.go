package media

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Verdict is what upkeep must do with a media it looked at.
type Verdict struct {
	Member string // its member of schema.MediaPending
	Owner  int64
	ID     int64 // 0: every file of the account Owner, which is gone
	// Remove is set when nothing uses it any longer: its files (those
	// named with Prefix) go, then its record (Drop).
	Remove bool
	Prefix string
	// Again, if not zero, is when upkeep looks at it again (an upload
	// a scheduled post holds): it stays in schema.MediaPending.
	Again time.Time
}

// Due returns what upkeep must do with up to n of the media due by now
// (schema.MediaPending), in two round trips: their records, and what
// would still use them (the post one is attached to, the account whose
// avatar or header it is, the scheduled post that holds it). An upload
// is removed unless a post that stands holds it; one that a scheduled
// post still holds is looked at again a day later (Again); a record
// that is gone has files to remove; a link's picture is kept (the
// previews of many posts may show it).
func (s *Store) Due(ctx context.Context, now time.Time, n int) ([]Verdict, error) {
	b := s.st.C.B()
	members, err := s.st.C.Do(ctx, b.Zrange().Key(schema.MediaPending).Min("-inf").Max(strconv.FormatInt(now.Unix(), 10)).
		Byscore().Limit(0, int64(n)).Build()).AsStrSlice()
	if err != nil || len(members) == 0 {
		return nil, s.st.Wrap("media: due", err)
	}
	vs := make([]Verdict, 0, len(members))
	var reads rueidis.Commands
	for _, m := range members {
		owner, mid, ok := schema.ParsePendingMember(m)
		if !ok {
			vs = append(vs, Verdict{Member: m}) // damaged: dropped
			continue
		}
		v := Verdict{Member: m, Owner: owner, ID: mid, Prefix: strconv.FormatInt(owner, 10) + "/"}
		if mid != 0 {
			v.Prefix += strconv.FormatInt(mid, 10) + "/"
		}
		vs = append(vs, v)
		reads = append(reads, s.recordRead(owner, mid))
	}
	recs := make([]*Record, len(vs))
	res := s.st.C.DoMulti(ctx, reads...)
	uses := make(rueidis.Commands, 0, len(vs))
	k := 0
	for i, v := range vs {
		if v.Owner == 0 && v.ID == 0 {
			continue
		}
		r, err := s.parseRead(v, res[k])
		k++
		if err != nil {
			return nil, err
		}
		recs[i] = r
		uses = append(uses, s.useRead(v, r))
	}
	res = s.st.C.DoMulti(ctx, uses...)
	k = 0
	for i := range vs {
		if vs[i].Owner == 0 && vs[i].ID == 0 {
			continue
		}
		used, err := inUse(vs[i], recs[i], res[k], now)
		k++
		if err != nil {
			return nil, s.st.Wrap("media: due", err)
		}
		vs[i].Remove = !used
		if used && held(recs[i]) {
			vs[i].Again = now.Add(UnattachedFor)
		}
	}
	return vs, nil
}

// recordRead reads what tells whether the media of pending member owner,
// mid is there: its record, or for an account's (mid 0), its user hash.
func (s *Store) recordRead(owner, mid int64) rueidis.Completed {
	b := s.st.C.B()
	if mid == 0 {
		return b.Hget().Key(schema.User(owner)).Field(schema.FieldUsername).Build()
	}
	return b.Hget().Key(schema.Media(owner)).Field(kernel.ID(mid)).Build()
}

// parseRead decodes recordRead's reply: the record (nil if gone, or for
// an account's member, a record standing for the account that still
// exists).
func (s *Store) parseRead(v Verdict, r rueidis.RedisResult) (*Record, error) {
	str, err := r.ToString()
	if rueidis.IsRedisNil(err) {
		return nil, nil
	}
	if err != nil {
		return nil, s.st.Wrap("media: due", err)
	}
	if v.ID == 0 {
		return &Record{Purpose: ForCard}, nil // an account that exists: kept
	}
	var rec Record
	if json.Unmarshal([]byte(str), &rec) != nil {
		return nil, nil // damaged: removed
	}
	return &rec, nil
}

// held says whether r is an upload not attached yet that a scheduled
// post holds.
func held(r *Record) bool {
	return r != nil && r.Purpose == ForPost && r.Status == 0 && r.Scheduled != 0
}

// useRead reads what would use record r of v: the post it is attached
// to, the scheduled post that holds it, or the owner's avatar or header
// (a harmless read otherwise).
func (s *Store) useRead(v Verdict, r *Record) rueidis.Completed {
	b := s.st.C.B()
	switch {
	case r != nil && r.Purpose == ForPost && r.Status != 0:
		return b.Hget().Key(schema.Post(r.Status)).Field(schema.FieldMedia).Build()
	case held(r):
		return b.Hget().Key(schema.Scheduled(v.Owner)).Field(kernel.ID(r.Scheduled)).Build()
	case r != nil && r.Purpose == ForHeader:
		return b.Hget().Key(schema.User(v.Owner)).Field(schema.FieldHeader).Build()
	}
	return b.Hget().Key(schema.User(v.Owner)).Field(schema.FieldAvatar).Build()
}

// inUse reports whether record r of v is still used, given useRead's
// reply.
func inUse(v Verdict, r *Record, use rueidis.RedisResult, now time.Time) (bool, error) {
	if r == nil {
		return false, nil
	}
	str, err := use.ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return false, err
	}
	holds := slices.ContainsFunc(retwis.DecodeAttachments(str), func(a retwis.Attachment) bool { return a.ID == v.ID })
	switch {
	case held(r):
		return err == nil, nil // the scheduled post stands
	case r.Purpose == ForCard:
		return true, nil
	case r.Purpose == ForAvatar || r.Purpose == ForHeader:
		return holds, nil
	}
	return r.Status != 0 && holds, nil
}

// Settle records what upkeep did with vs: the records of those removed
// are dropped (their bytes off their owner's count), and every one
// leaves schema.MediaPending but those to look at again (Again).
func (s *Store) Settle(ctx context.Context, vs []Verdict) error {
	if len(vs) == 0 {
		return nil
	}
	return s.st.Wrap("media: settle", redisconn.FirstErr(s.st.Pipeline(ctx, func() rueidis.Commands {
		var members []string
		var cmds rueidis.Commands
		for _, v := range vs {
			if !v.Again.IsZero() {
				cmds = append(cmds, index.MediaDueCmd(s.st.C, v.Again, v.Owner, v.ID))
				continue
			}
			members = append(members, v.Member)
			if v.Remove && v.ID != 0 {
				cmds = append(cmds, kernel.MediaDrop.Cmd(s.st.C, []string{schema.Media(v.Owner)}, kernel.ID(v.ID), schema.MediaBytesField))
			}
		}
		if len(members) > 0 {
			cmds = append(cmds, s.st.C.B().Zrem().Key(schema.MediaPending).Member(members...).Build())
		}
		return cmds
	})))
}

// AccountGoneCmds return the commands that, in an account's deletion,
// drop its media records and hand every file of it to upkeep.
func AccountGoneCmds(c rueidis.Client, uid int64) rueidis.Commands {
	b := c.B()
	return rueidis.Commands{
		index.MediaDueCmd(c, time.Time{}, uid, 0),
		b.Del().Key(schema.Media(uid)).Build(),
	}
}
