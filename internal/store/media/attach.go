package media

import (
	"context"
	"slices"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// ForPost returns owner's uploads mids, ready, to attach to a post
// (posts.Draft.Media), with the writes that record them as attached
// (posts.Draft.Attach), read in one round trip: at most
// retwis.MaxAttachments, each once, each owner's, ready and neither
// attached to another post nor held by a scheduled post (errors of kind
// Invalid or NotFound otherwise). With the post's idempotency key (""
// none; a scheduled post's publication has its own), pictures held by a
// scheduled post are taken (it is that post's publication, or its
// scheduling sent again), and so are those attached to the post the key
// published (a retry: Publish answers that post), which a second round
// trip reads; so are those attached to a post that is gone (a
// publication that failed).
func (s *Store) ForPost(ctx context.Context, owner int64, mids []int64, key string) ([]retwis.Attachment, func(pid int64) rueidis.Commands, error) {
	if len(mids) == 0 {
		return nil, nil, nil
	}
	if len(mids) > retwis.MaxAttachments {
		return nil, nil, retwis.Errorf(retwis.Invalid, "A post may have at most %d pictures.", retwis.MaxAttachments)
	}
	for i, mid := range mids {
		if slices.Contains(mids[:i], mid) {
			return nil, nil, retwis.Errorf(retwis.Invalid, "The picture %d is attached twice.", mid)
		}
	}
	rs, err := s.GetMany(ctx, owner, mids)
	if err != nil {
		return nil, nil, err
	}
	taken, err := s.takenBack(ctx, owner, rs, key)
	if err != nil {
		return nil, nil, err
	}
	as := make([]retwis.Attachment, len(rs))
	for i, r := range rs {
		if err := attachable(r, mids[i], key != "", taken[r.Status]); err != nil {
			return nil, nil, err
		}
		as[i] = r.Attachment
	}
	return as, s.AttachCmds(owner, mids), nil
}

// takenBack says, of the posts some of rs are attached to, those whose
// pictures may be attached again: gone, or published with key (a retry).
// It reads nothing when none of rs is attached.
func (s *Store) takenBack(ctx context.Context, owner int64, rs []Record, key string) (map[int64]bool, error) {
	var pids []int64
	for _, r := range rs {
		if r.Status != 0 && !slices.Contains(pids, r.Status) {
			pids = append(pids, r.Status)
		}
	}
	if len(pids) == 0 {
		return nil, nil
	}
	b := s.st.C.B()
	cmds := make(rueidis.Commands, 0, len(pids)+1)
	for _, pid := range pids {
		cmds = append(cmds, b.Exists().Key(schema.Post(pid)).Build())
	}
	if key != "" {
		cmds = append(cmds, b.Get().Key(schema.Idempotency(owner, key)).Build())
	}
	res := s.st.C.DoMulti(ctx, cmds...)
	var published int64
	if key != "" {
		v, err := res[len(pids)].ToString()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.st.Wrap("media: read the idempotency key", err)
		}
		published, _ = strconv.ParseInt(v, 10, 64)
	}
	taken := make(map[int64]bool, len(pids))
	for i, pid := range pids {
		n, err := res[i].AsInt64()
		if err != nil {
			return nil, s.st.Wrap("media: read an attached picture's post", err)
		}
		taken[pid] = n == 0 || pid == published
	}
	return taken, nil
}

// attachable says why record r of media mid cannot be attached to a
// post (nil: it can), for a post with an idempotency key if keyed, and
// whose post may give it up if takenBack.
func attachable(r Record, mid int64, keyed, takenBack bool) error {
	switch {
	case r.Purpose != ForPost:
		return retwis.Errorf(retwis.Invalid, "The picture %d is not an upload for a post.", mid)
	case r.State == Failed:
		return retwis.Errorf(retwis.Invalid, "The picture %d could not be processed: %s", mid, r.Error)
	case r.State != Ready:
		return retwis.Errorf(retwis.Invalid, "The picture %d is still being processed. Please try again in a moment.", mid)
	case r.Status != 0 && !takenBack:
		return retwis.Errorf(retwis.Invalid, "The picture %d is attached to another post already.", mid)
	case r.Scheduled != 0 && !keyed:
		return retwis.Errorf(retwis.Invalid, "The picture %d is attached to a scheduled post already.", mid)
	}
	return nil
}
