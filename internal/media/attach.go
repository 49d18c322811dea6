package media

import (
	"context"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// ForPost returns owner's uploads mids, ready, to attach to a post
// (posts.Draft.Media), with the writes that record them as attached
// (posts.Draft.Attach), under mediastore.Store.ForPost's rules.
func (m *Service) ForPost(ctx context.Context, owner int64, mids []int64, key string) ([]retwis.Attachment, func(pid int64) rueidis.Commands, error) {
	return m.st.ForPost(ctx, owner, mids, key)
}

// ForEdit returns what an edit of post p asking for the pictures mids
// adds (interact.Edit.Added and Attach): those of mids p has not, under
// ForPost's rules (the owner's uploads, ready, attached to nothing).
func (m *Service) ForEdit(ctx context.Context, p retwis.Post, mids []int64) ([]retwis.Attachment, func(pid int64) rueidis.Commands, error) {
	var added []int64
	for _, mid := range mids {
		if !slices.ContainsFunc(p.Media, func(a retwis.Attachment) bool { return a.ID == mid }) && !slices.Contains(added, mid) {
			added = append(added, mid)
		}
	}
	return m.ForPost(ctx, p.AuthorID, added, "")
}

// SetPicture makes picture data uid's avatar or header (field:
// schema.FieldAvatar or FieldHeader), processed at once (waiting for the
// pool): refused as Upload refuses, or with why it could not be made.
func (m *Service) SetPicture(ctx context.Context, uid int64, field, purpose string, data []byte) (retwis.Attachment, error) {
	u, err := m.Upload(ctx, uid, purpose, data, "", 0, 0)
	if err != nil {
		return retwis.Attachment{}, err
	}
	a, err := m.Ready(ctx, u)
	if err != nil {
		return retwis.Attachment{}, err
	}
	return a, m.st.SetPicture(ctx, uid, field, a)
}

// ClearPicture takes uid's avatar or header away (field as for
// SetPicture): the generated one shows again.
func (m *Service) ClearPicture(ctx context.Context, uid int64, field string) error {
	return m.st.SetPicture(ctx, uid, field, retwis.Attachment{})
}

// Redescribed brings the records of post p's pictures to the alt text
// and focus an edit left them with (both the pages' edit and the API's
// call it), the post being what shows them: a failure is logged (the
// records' copy is then behind).
func (m *Service) Redescribed(ctx context.Context, p retwis.Post) {
	for _, a := range p.Media {
		if _, err := m.st.Describe(ctx, a.Owner, a.ID, a.Description, a.FocusX, a.FocusY); err != nil {
			m.opts.Log.Warn("the record of an edited picture keeps its former alt text", "post", p.ID, "media", a.ID, "err", err)
		}
	}
}
