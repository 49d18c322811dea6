package media

import (
	"context"
	"io"
)

// Open returns the content and size of the file name of a media
// (retwis.Attachment.Blob, SmallBlob): an error wrapping fs.ErrNotExist
// if there is none. The caller closes it.
func (m *Service) Open(ctx context.Context, name string) (io.ReadCloser, int64, error) {
	return m.blobs.Open(ctx, name)
}
