package media

import (
	"context"
	"errors"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media/imaging"
	mediastore "github.com/retwis/retwis/internal/store/media"
)

// ErrBusy refuses an upload when the pictures waiting to be processed
// fill the queue.
var ErrBusy = retwis.Errorf(retwis.TooMany, "The server is busy with other pictures. Please try again in a moment.")

// Upload is an upload being processed.
type Upload struct {
	// Record is the upload as recorded when it was taken (Processing).
	Record mediastore.Record
	done   chan struct{}
}

// Upload takes picture data of owner, for purpose (mediastore.ForPost…),
// with its alt text desc (checked: retwis.NormalizeDescription) and
// focus: a picture that is not one retwis takes, or is too large, is
// refused at once with an error of kind Invalid, before anything is
// written; so is one past the owner's quota, and one past their rate of
// uploads (TooMany), or past the queue (ErrBusy). The picture is then
// processed off the request path: Wait waits for it.
func (m *Service) Upload(ctx context.Context, owner int64, purpose string, data []byte, desc string, fx, fy float64) (*Upload, error) {
	return m.upload(ctx, owner, purpose, data, desc, fx, fy, m.opts.UploadRate, m.opts.Quota)
}

// CardImage stores the picture of a link's preview (cards.FetchOptions'
// StoreImage), processed as an upload, owned by the instance (owner 0),
// without rate or quota, and kept while posts may show it.
func (m *Service) CardImage(ctx context.Context, data []byte) (*retwis.Attachment, error) {
	u, err := m.upload(ctx, 0, mediastore.ForCard, data, "", 0, 0, retwis.Rate{}, 0)
	if err != nil {
		return nil, err
	}
	a, err := m.Ready(ctx, u)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// upload is Upload within rate and quota.
func (m *Service) upload(ctx context.Context, owner int64, purpose string, data []byte, desc string, fx, fy float64, rate retwis.Rate, quota int64) (*Upload, error) {
	desc, err := retwis.NormalizeDescription(desc)
	if err != nil {
		return nil, err
	}
	if _, err := imaging.Sniff(data, m.opts.Limits); err != nil {
		return nil, err
	}
	rec, err := m.st.Begin(ctx, owner, purpose, retwis.Attachment{Description: desc, FocusX: fx, FocusY: fy}, rate, quota)
	if err != nil {
		return nil, err
	}
	u := &Upload{Record: rec, done: make(chan struct{})}
	job := func() {
		defer close(u.done)
		m.process(rec.Attachment, data, quota)
	}
	select {
	case m.jobs <- job:
		return u, nil
	default:
		m.forget(rec.Attachment)
		return nil, ErrBusy
	}
}

// Wait waits until u is processed (or ctx ends) and returns its record
// as it is then: Ready, or Failed with why, or still Processing if ctx
// ended first.
func (m *Service) Wait(ctx context.Context, u *Upload) (mediastore.Record, error) {
	select {
	case <-u.done:
	case <-ctx.Done():
	}
	return m.st.Get(context.WithoutCancel(ctx), u.Record.Attachment.Owner, u.Record.Attachment.ID)
}

// Ready waits for u as Wait does, and returns its attachment once ready,
// or why it failed (an error of kind Invalid).
func (m *Service) Ready(ctx context.Context, u *Upload) (retwis.Attachment, error) {
	rec, err := m.Wait(ctx, u)
	switch {
	case err != nil:
		return retwis.Attachment{}, err
	case rec.State == mediastore.Failed:
		return retwis.Attachment{}, retwis.Errorf(retwis.Invalid, "%s", rec.Error)
	case rec.State != mediastore.Ready:
		return retwis.Attachment{}, retwis.Errorf(retwis.Unavailable, "The picture is still being processed. Please try again in a moment.")
	}
	return rec.Attachment, nil
}

// process makes the files of upload a from data and records them: a
// picture that cannot be made, or would pass the quota, is recorded as
// failed with why; files whose record is gone meanwhile are removed.
func (m *Service) process(a retwis.Attachment, data []byte, quota int64) {
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	defer cancel()
	res, err := imaging.Process(data, m.opts.Limits)
	if err != nil {
		m.fail(ctx, a, err)
		return
	}
	a.Ext, a.SmallExt, a.Animated, a.Blurhash = res.Ext, res.SmallExt, res.Animated, res.Blurhash
	a.Width, a.Height, a.SmallWidth, a.SmallHeight = res.Width, res.Height, res.SmallWidth, res.SmallHeight
	a.Bytes = int64(len(res.Original) + len(res.Small))
	err = errors.Join(m.blobs.Put(ctx, a.Blob(), retwis.MediaType(a.Ext), res.Original),
		m.blobs.Put(ctx, a.SmallBlob(), retwis.MediaType(a.SmallExt), res.Small))
	if err != nil {
		m.opts.Log.Error("storing a picture", "owner", a.Owner, "media", a.ID, "err", err)
		m.deleteFiles(ctx, a)
		m.fail(ctx, a, retwis.Errorf(retwis.Unavailable, "The picture could not be stored. Please try again in a moment."))
		return
	}
	ok, err := m.st.Finish(ctx, a, quota)
	if err != nil || !ok {
		m.deleteFiles(ctx, a)
	}
	if err != nil {
		m.fail(ctx, a, err)
	}
}

// fail records why upload a failed.
func (m *Service) fail(ctx context.Context, a retwis.Attachment, err error) {
	if ferr := m.st.Fail(ctx, a.Owner, a.ID, retwis.ErrorMessage(err)); ferr != nil {
		m.opts.Log.Warn("recording a failed picture (upkeep removes it)", "owner", a.Owner, "media", a.ID, "err", ferr)
	}
}

// forget drops the record of upload a, refused after it was recorded
// (upkeep removes it otherwise).
func (m *Service) forget(a retwis.Attachment) {
	if err := m.st.Drop(context.Background(), a.Owner, a.ID); err != nil {
		m.opts.Log.Warn("dropping a refused upload (upkeep removes it)", "owner", a.Owner, "media", a.ID, "err", err)
	}
}

// deleteFiles removes the files of a, logging a failure (upkeep or the
// check removes them later).
func (m *Service) deleteFiles(ctx context.Context, a retwis.Attachment) {
	if err := m.blobs.Delete(ctx, a.BlobPrefix()); err != nil {
		m.opts.Log.Warn("removing a picture's files (the check finds them)", "owner", a.Owner, "media", a.ID, "err", err)
	}
}
