package accounts

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// About returns the display name and bio user uid set (empty when not),
// through the client-side cache.
func (s *Store) About(ctx context.Context, uid int64) (name, bio string, err error) {
	return s.ParseAbout(s.CachedMulti(ctx, s.AboutCmd(uid))[0])
}

// SetAbout sets the display name and bio of user uid, normalised by the
// domain's rules (retwis.NormalizeDisplayName, retwis.NormalizeBio); an
// empty one is removed. Nothing is written unless both are valid, and
// never to a user who does not exist.
func (s *Store) SetAbout(ctx context.Context, uid int64, name, bio string) error {
	name, err := retwis.NormalizeDisplayName(name)
	if err != nil {
		return err
	}
	if bio, err = retwis.NormalizeBio(bio); err != nil {
		return err
	}
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	key := schema.User(uid)
	was, err := s.C.Do(ctx, s.C.B().Hmget().Key(key).Field(schema.FieldUsername, schema.FieldDisplayName).Build()).ToArray()
	if err != nil {
		return s.Wrap("set about", err)
	}
	if len(was) != 2 {
		return s.Wrap("set about", kernel.ErrShape)
	}
	username, _ := was[0].ToString()
	oldName, _ := was[1].ToString()
	s.Written.Add(key)
	n, err := kernel.UpdateFields.Exec(ctx, s.C, []string{key}, schema.FieldDisplayName, name, schema.FieldBio, bio).AsInt64()
	if err != nil {
		return s.Wrap("set about", err)
	}
	if n == 0 {
		return retwis.Errorf(retwis.NotFound, "No such user.")
	}
	// The people search follows the new name: searches in between find
	// the user by either and check the user hash.
	writes := index.PeopleWrites(uid, retwis.SearchTerms(username, name), retwis.SearchTerms(username, oldName))
	if len(writes) > 0 {
		err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands { return index.Commands(s.C, writes) }))
		return s.Wrap("set about: people search", err)
	}
	return nil
}

// AboutCmd reads the display name and bio of user uid.
func (s *Store) AboutCmd(uid int64) rueidis.CacheableTTL {
	return rueidis.CT(s.C.B().Hmget().Key(schema.User(uid)).Field(schema.FieldDisplayName, schema.FieldBio).Cache(), s.Opts.CacheTTL)
}

// ParseAbout reads the reply to aboutCmd.
func (s *Store) ParseAbout(r rueidis.RedisResult) (name, bio string, err error) {
	vals, err := r.ToArray()
	if err != nil {
		return "", "", s.Wrap("about", err)
	}
	if len(vals) != 2 {
		return "", "", s.Wrap("about", kernel.ErrShape)
	}
	name, _ = vals[0].ToString() // nil: not set
	bio, _ = vals[1].ToString()
	return name, bio, nil
}

// DisplayNames is the reading of users' display names along with a
// page's other reads, through the client-side cache (the read of
// AboutCmd, so that a profile read warms it) and the Store's memo of
// them (see kernel.Memo), which answers a warm page's names without a
// lookup of the cache: StartDisplayNames adds the reads of the others
// to a batch, and once the batch is read, Names returns them.
type DisplayNames struct {
	s      *Store
	names  map[int64]string // the names known, of every user asked for
	uids   []int64          // the users read, each once
	tokens []uint64         // the memo's token of each
	slot   kernel.Slot
}

// StartDisplayNames adds the reads of the display names of uids to b.
func (s *Store) StartDisplayNames(uids []int64, b *kernel.Batch) DisplayNames {
	d := DisplayNames{s: s, names: make(map[int64]string, len(uids))}
	var cmds []rueidis.CacheableTTL
	for _, uid := range uids {
		if _, known := d.names[uid]; known || slices.Contains(d.uids, uid) {
			continue
		}
		if name, token, ok := s.names.Get(uid); ok {
			d.names[uid] = name
		} else {
			d.uids, d.tokens = append(d.uids, uid), append(d.tokens, token)
			cmds = append(cmds, s.AboutCmd(uid))
		}
	}
	d.slot = b.Add(cmds...)
	return d
}

// Names returns the display names read, of those who set one; the
// error is the first read's that failed, the others' names returned.
func (d DisplayNames) Names() (map[int64]string, error) {
	var first error
	for i, r := range d.slot.Replies() {
		name, _, err := d.s.ParseAbout(r)
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		d.names[d.uids[i]] = name
		d.s.names.Put(d.uids[i], name, d.tokens[i])
	}
	maps.DeleteFunc(d.names, func(_ int64, name string) bool { return name == "" })
	return d.names, first
}
