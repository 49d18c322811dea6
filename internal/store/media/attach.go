package media

import (
	"context"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// ForPost returns owner's uploads mids, ready, to attach to a post
// (posts.Draft.Media), with the writes that record them as attached
// (posts.Draft.Attach), read in one round trip: at most
// retwis.MaxAttachments, each once, each owner's, ready and neither
// attached to another post nor held by a scheduled post (errors of kind
// Invalid or NotFound otherwise) unless the post has an idempotency key
// (retried: Publish answers the post the key published, if it did; a
// scheduled post's publication has its own).
func (s *Store) ForPost(ctx context.Context, owner int64, mids []int64, retried bool) ([]retwis.Attachment, func(pid int64) rueidis.Commands, error) {
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
	as := make([]retwis.Attachment, len(rs))
	for i, r := range rs {
		if err := attachable(r, mids[i], retried); err != nil {
			return nil, nil, err
		}
		as[i] = r.Attachment
	}
	return as, s.AttachCmds(owner, mids), nil
}

// attachable says why record r of media mid cannot be attached to a
// post (nil: it can).
func attachable(r Record, mid int64, retried bool) error {
	switch {
	case r.Purpose != ForPost:
		return retwis.Errorf(retwis.Invalid, "The picture %d is not an upload for a post.", mid)
	case r.State == Failed:
		return retwis.Errorf(retwis.Invalid, "The picture %d could not be processed: %s", mid, r.Error)
	case r.State != Ready:
		return retwis.Errorf(retwis.Invalid, "The picture %d is still being processed. Please try again in a moment.", mid)
	case r.Status != 0 && !retried:
		return retwis.Errorf(retwis.Invalid, "The picture %d is attached to another post already.", mid)
	case r.Scheduled != 0 && !retried:
		return retwis.Errorf(retwis.Invalid, "The picture %d is attached to a scheduled post already.", mid)
	}
	return nil
}
