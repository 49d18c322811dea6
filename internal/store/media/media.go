// Package media keeps the records of media in Redis: a hash per user
// (schema.Media) of their uploads, attached or not, and of their avatar
// and header, each a JSON record with the attachment, its state and the
// post it is attached to, beside the count of the bytes their files
// weigh; and the sorted set of the media upkeep must look at
// (schema.MediaPending). The files themselves are internal/media's.
package media

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// The states of a record.
const (
	Processing = "processing" // uploaded, being made into files
	Ready      = "ready"      // its files are stored
	Failed     = "failed"     // it could not be made: Error says why
)

// The purposes of a record.
const (
	ForPost   = "post"   // an upload for a post (attached once Status is set)
	ForAvatar = "avatar" // an account's avatar
	ForHeader = "header" // an account's header
	ForCard   = "card"   // the picture of a link's preview (owner 0: the instance's)
)

// UnattachedFor is how long an upload may wait for its post: upkeep
// removes it after.
const UnattachedFor = 24 * time.Hour

// Record is what Redis keeps of one media.
type Record struct {
	Attachment retwis.Attachment `json:"a"`
	State      string            `json:"s"`
	Error      string            `json:"err,omitempty"`
	Purpose    string            `json:"p"`
	Created    int64             `json:"c"`                   // unix seconds
	Status     int64             `json:"st,string,omitempty"` // the post it is attached to
	Scheduled  int64             `json:"sc,string,omitempty"` // the scheduled post that holds it until published
}

// Store keeps media records through the online store.
type Store struct{ st *store.Store }

// New returns a Store on st.
func New(st *store.Store) *Store { return &Store{st: st} }

// Begin records a new upload of owner, for purpose, being processed,
// with its alt text and focus; it is refused with an error of kind
// TooMany beyond rate, and with one of kind Invalid when what owner's
// files weigh already reaches quota (0: none). One round trip takes
// the rate, reads the count and, with the id, makes the upload due for
// removal (schema.MediaPending) before its record exists (the second),
// so that no record escapes upkeep.
func (s *Store) Begin(ctx context.Context, owner int64, purpose string, a retwis.Attachment, rate retwis.Rate, quota int64) (Record, error) {
	if _, err := s.st.Take(ctx, accounts.Subject(schema.UploadLimit(owner)), rate); err != nil {
		return Record{}, err
	}
	id, err := s.st.NewID(ctx, schema.NextMediaID)
	if err != nil {
		return Record{}, err
	}
	b := s.st.C.B()
	due := time.Now().Add(UnattachedFor)
	res := s.st.C.DoMulti(ctx,
		b.Hget().Key(schema.Media(owner)).Field(schema.MediaBytesField).Build(),
		index.MediaDueCmd(s.st.C, due, owner, id))
	used, err := res[0].AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		return Record{}, s.st.Wrap("media: read quota", err)
	}
	if err := res[1].Error(); err != nil {
		return Record{}, s.st.Wrap("media: begin", err)
	}
	if quota > 0 && used >= quota {
		return Record{}, retwis.Errorf(retwis.Invalid, "Your pictures take up all the space your account has (%s): delete some posts with pictures first.", Size(quota))
	}
	a.ID, a.Owner, a.Secret = id, owner, strings.ToLower(rand.Text()[:16]) // 80 random bits
	r := Record{Attachment: a, State: Processing, Purpose: purpose, Created: time.Now().Unix()}
	v, _ := json.Marshal(r) // plain data: cannot fail
	err = s.st.C.Do(ctx, b.Hset().Key(schema.Media(owner)).FieldValue().FieldValue(kernel.ID(id), string(v)).Build()).Error()
	return r, s.st.Wrap("media: begin", err)
}

// ErrQuota is Finish's error when the files would pass the owner's
// quota.
var ErrQuota = retwis.Errorf(retwis.Invalid, "This picture would pass the space your account has for pictures: delete some posts with pictures first.")

// Finish records the files of owner's upload a (its Ext… fields set) as
// stored, adding their bytes within quota (0: none): ErrQuota if they
// would pass it. ok is false when the record is gone (removed by upkeep
// meanwhile): the caller removes the files.
func (s *Store) Finish(ctx context.Context, a retwis.Attachment, quota int64) (ok bool, err error) {
	files := map[string]any{"e": a.Ext, "se": a.SmallExt, "w": a.Width, "h": a.Height, "sw": a.SmallWidth, "sh": a.SmallHeight,
		"b": a.Bytes, "bh": a.Blurhash, "a": a.Animated}
	n, err := s.update(ctx, a.Owner, a.ID, map[string]any{"s": Ready}, files, a.Bytes, quota)
	if n == -1 {
		return false, ErrQuota
	}
	return n == 1, err
}

// Fail records why owner's upload mid could not be made.
func (s *Store) Fail(ctx context.Context, owner, mid int64, why string) error {
	_, err := s.update(ctx, owner, mid, map[string]any{"s": Failed, "err": why}, map[string]any{}, 0, 0)
	return err
}

// Describe sets the alt text and focus of owner's media mid (an error of
// kind NotFound if there is none).
func (s *Store) Describe(ctx context.Context, owner, mid int64, desc string, fx, fy float64) (Record, error) {
	n, err := s.update(ctx, owner, mid, map[string]any{}, map[string]any{"d": desc, "fx": fx, "fy": fy}, 0, 0)
	if err == nil && n == 0 {
		err = noMedia(mid)
	}
	if err != nil {
		return Record{}, err
	}
	return s.Get(ctx, owner, mid)
}

// AttachCmds return the commands that record owner's media mids as
// attached to post pid (for posts.Draft.Attach: safe to repeat).
func (s *Store) AttachCmds(owner int64, mids []int64) func(pid int64) rueidis.Commands {
	return s.markCmds(owner, mids, "st")
}

// HoldCmds return the commands that record owner's media mids as held
// by their scheduled post sid until it is published (safe to repeat).
func (s *Store) HoldCmds(owner int64, mids []int64) func(sid int64) rueidis.Commands {
	return s.markCmds(owner, mids, "sc")
}

// markCmds return the commands that set field (of Record's JSON) of
// owner's records mids to an id.
func (s *Store) markCmds(owner int64, mids []int64, field string) func(id int64) rueidis.Commands {
	return func(id int64) rueidis.Commands {
		cmds := make(rueidis.Commands, len(mids))
		for i, mid := range mids {
			cmds[i] = kernel.MediaUpdate.Cmd(s.st.C, []string{schema.Media(owner)}, kernel.ID(mid), schema.MediaBytesField,
				`{"`+field+`":"`+kernel.ID(id)+`"}`, "{}", "0", "0")
		}
		return cmds
	}
}

// update runs kernel.MediaUpdate on owner's record mid.
func (s *Store) update(ctx context.Context, owner, mid int64, rec, att map[string]any, add, quota int64) (int64, error) {
	r, _ := json.Marshal(rec) // plain data: cannot fail
	a, _ := json.Marshal(att)
	n, err := kernel.MediaUpdate.Exec(ctx, s.st.C, []string{schema.Media(owner)}, kernel.ID(mid), schema.MediaBytesField,
		string(r), string(a), strconv.FormatInt(add, 10), strconv.FormatInt(quota, 10)).AsInt64()
	return n, s.st.Wrap("media: update", err)
}

// Get returns owner's media mid (an error of kind NotFound if there is
// none).
func (s *Store) Get(ctx context.Context, owner, mid int64) (Record, error) {
	rs, err := s.GetMany(ctx, owner, []int64{mid})
	if err != nil {
		return Record{}, err
	}
	return rs[0], nil
}

// GetMany returns owner's media mids, in their order, in one round trip:
// an error of kind NotFound for the first that is not theirs.
func (s *Store) GetMany(ctx context.Context, owner int64, mids []int64) ([]Record, error) {
	if len(mids) == 0 {
		return nil, nil
	}
	found, err := s.Found(ctx, owner, mids)
	if err != nil {
		return nil, err
	}
	rs := make([]Record, len(mids))
	for i, mid := range mids {
		r, ok := found[mid]
		if !ok {
			return nil, noMedia(mid)
		}
		rs[i] = r
	}
	return rs, nil
}

// Found returns those of owner's media mids that are there, by id, in
// one round trip.
func (s *Store) Found(ctx context.Context, owner int64, mids []int64) (map[int64]Record, error) {
	out := make(map[int64]Record, len(mids))
	if len(mids) == 0 {
		return out, nil
	}
	fields := make([]string, len(mids))
	for i, mid := range mids {
		fields[i] = kernel.ID(mid)
	}
	vals, err := s.st.C.Do(ctx, s.st.C.B().Hmget().Key(schema.Media(owner)).Field(fields...).Build()).ToArray()
	if err != nil {
		return nil, s.st.Wrap("media: read", err)
	}
	for i, v := range vals {
		var r Record
		if str, err := v.ToString(); err == nil && json.Unmarshal([]byte(str), &r) == nil {
			out[mids[i]] = r
		}
	}
	return out, nil
}

// noMedia is the error of media mid not found.
func noMedia(mid int64) error {
	return retwis.Errorf(retwis.NotFound, "There is no picture %d of yours; it may have been removed.", mid)
}

// Used returns what the files of owner's media weigh together.
func (s *Store) Used(ctx context.Context, owner int64) (int64, error) {
	n, err := s.st.C.Do(ctx, s.st.C.B().Hget().Key(schema.Media(owner)).Field(schema.MediaBytesField).Build()).AsInt64()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	return n, s.st.Wrap("media: read quota", err)
}

// Drop removes owner's record mid and takes its bytes off their count.
func (s *Store) Drop(ctx context.Context, owner, mid int64) error {
	err := kernel.MediaDrop.Exec(ctx, s.st.C, []string{schema.Media(owner)}, kernel.ID(mid), schema.MediaBytesField).Error()
	return s.st.Wrap("media: drop", err)
}

// All returns every record of owner, by id.
func (s *Store) All(ctx context.Context, owner int64) (map[int64]Record, error) {
	m, err := s.st.C.Do(ctx, s.st.C.B().Hgetall().Key(schema.Media(owner)).Build()).AsStrMap()
	if err != nil {
		return nil, s.st.Wrap("media: read all", err)
	}
	return decodeRecords(m), nil
}

// Size writes n bytes for people: "512 KB", "1.5 MB"…
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	}
	return strconv.FormatInt((n+1023)/1024, 10) + " KB"
}
