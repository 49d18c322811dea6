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

// WalkRecords calls fn with every user's media records, a SCAN step of
// media hashes at a time (the records of one step read in one round
// trip), from the start: a walk under way is begun again
// (schema.MediaCheckState). Records that do not decode are left out.
func (s *Store) WalkRecords(ctx context.Context, fn func(owner int64, recs map[int64]Record) error) error {
	b := s.st.C.B()
	clear := func() error {
		return s.st.Wrap("media: walk", s.st.C.Do(ctx, b.Del().Key(schema.MediaCheckState).Build()).Error())
	}
	if err := clear(); err != nil {
		return err
	}
	_, err := s.st.Walk(ctx, schema.MediaCheckState, schema.MediaKeys, "hash", 0, func(keys []string) error {
		owners, res := s.st.ReadEach(ctx, keys, schema.MediaOf, func(key string) rueidis.Completed {
			return b.Hgetall().Key(key).Build()
		})
		for i, owner := range owners {
			m, err := res[i].AsStrMap()
			if err != nil {
				return s.st.Wrap("media: walk", err)
			}
			if err := fn(owner, decodeRecords(m)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return clear()
}

// decodeRecords returns the records of a media hash, by id.
func decodeRecords(m map[string]string) map[int64]Record {
	rs := make(map[int64]Record, len(m))
	for k, v := range m {
		mid, err := strconv.ParseInt(k, 10, 64)
		var r Record
		if err == nil && json.Unmarshal([]byte(v), &r) == nil {
			rs[mid] = r
		}
	}
	return rs
}

// Ref names one media: its owner and id.
type Ref struct{ Owner, ID int64 }

// Unaccounted returns those of refs that have no record and that upkeep
// is not about to remove (neither they nor their owner's account are in
// schema.MediaPending): files of theirs are files nobody will remove. One
// round trip.
func (s *Store) Unaccounted(ctx context.Context, refs []Ref) ([]Ref, error) {
	b := s.st.C.B()
	cmds := make(rueidis.Commands, 0, 3*len(refs))
	for _, r := range refs {
		cmds = append(cmds, b.Hexists().Key(schema.Media(r.Owner)).Field(kernel.ID(r.ID)).Build(),
			b.Zscore().Key(schema.MediaPending).Member(schema.PendingMember(r.Owner, r.ID)).Build(),
			b.Zscore().Key(schema.MediaPending).Member(schema.PendingMember(r.Owner, 0)).Build())
	}
	res := s.st.C.DoMulti(ctx, cmds...)
	var none []Ref
	for i, r := range refs {
		has, err := res[3*i].AsBool()
		if err != nil {
			return nil, s.st.Wrap("media: check", err)
		}
		pending := false
		for _, z := range res[3*i+1 : 3*i+3] {
			if err := z.Error(); err == nil {
				pending = true
			} else if !rueidis.IsRedisNil(err) {
				return nil, s.st.Wrap("media: check", err)
			}
		}
		if !has && !pending {
			none = append(none, r)
		}
	}
	return none, nil
}

// Forget takes record r (of r.Attachment.Owner) away for good, its files
// being lost: out of the post it is attached to (if the post stands) or
// off its owner's avatar or header, then dropped with its bytes.
func (s *Store) Forget(ctx context.Context, r Record) error {
	a := r.Attachment
	switch {
	case r.Purpose == ForPost && r.Status != 0:
		if err := s.detach(ctx, r.Status, a.ID); err != nil {
			return err
		}
	case r.Purpose == ForAvatar || r.Purpose == ForHeader:
		field := schema.FieldAvatar
		if r.Purpose == ForHeader {
			field = schema.FieldHeader
		}
		p, err := s.Picture(ctx, a.Owner, field)
		if err != nil {
			return err
		}
		if p != nil && p.ID == a.ID {
			if err := s.SetPicture(ctx, a.Owner, field, retwis.Attachment{}); err != nil {
				return err
			}
		}
	}
	return s.Drop(ctx, a.Owner, a.ID)
}

// detach writes post pid's media without media mid, if the post stands.
func (s *Store) detach(ctx context.Context, pid, mid int64) error {
	key := schema.Post(pid)
	v, err := s.st.C.Do(ctx, s.st.C.B().Hget().Key(key).Field(schema.FieldMedia).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return nil
	}
	if err != nil {
		return s.st.Wrap("media: detach", err)
	}
	as := slices.DeleteFunc(retwis.DecodeAttachments(v), func(a retwis.Attachment) bool { return a.ID == mid })
	s.st.Written.Add(key)
	err = kernel.UpdateFields.Exec(ctx, s.st.C, []string{key}, schema.FieldMedia, retwis.EncodeAttachments(as)).Error() // "": none left
	return s.st.Wrap("media: detach", err)
}

// Stranded returns those of recs attached to a post that is gone (so
// that nothing uses them) and that upkeep is not about to look at: a
// post deleted while its pictures could not be handed to upkeep. One
// round trip.
func (s *Store) Stranded(ctx context.Context, recs []Record) ([]Record, error) {
	b := s.st.C.B()
	cmds := make(rueidis.Commands, 0, 2*len(recs))
	for _, r := range recs {
		cmds = append(cmds, b.Exists().Key(schema.Post(r.Status)).Build(),
			b.Zscore().Key(schema.MediaPending).Member(schema.PendingMember(r.Attachment.Owner, r.Attachment.ID)).Build())
	}
	res := s.st.C.DoMulti(ctx, cmds...)
	var out []Record
	for i, r := range recs {
		n, err := res[2*i].AsInt64()
		if err != nil {
			return nil, s.st.Wrap("media: stranded", err)
		}
		if _, err := res[2*i+1].AsFloat64(); n == 0 && rueidis.IsRedisNil(err) {
			out = append(out, r)
		}
	}
	return out, nil
}

// HandToUpkeep makes recs due to upkeep at once, which removes them if
// nothing uses them.
func (s *Store) HandToUpkeep(ctx context.Context, recs []Record) error {
	cmds := make(rueidis.Commands, len(recs))
	for i, r := range recs {
		cmds[i] = index.MediaDueCmd(s.st.C, time.Time{}, r.Attachment.Owner, r.Attachment.ID)
	}
	return s.st.Wrap("media: hand to upkeep", redisconn.FirstErr(s.st.C.DoMulti(ctx, cmds...)))
}
