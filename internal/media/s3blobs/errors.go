package s3blobs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"

	"github.com/minio/minio-go/v7"

	"github.com/retwis/retwis"
)

// unavailableMessage is what a user is told when the object store
// cannot serve.
const unavailableMessage = "The media storage is unavailable right now. Please try again in a moment."

// fail wraps err, the failure of the operation format and args say,
// with its kind: a missing object or bucket wraps fs.ErrNotExist; a
// cancelled context is Canceled; no answer (a refused connection, a
// timeout, a failed name lookup) or a failing store (5xx, throttling) is
// Unavailable; anything else (a refused signature, a denied access) is
// Internal, which an operator must look at.
func (s *Store) fail(err error, format string, args ...any) error {
	wrapped := fmt.Errorf("s3blobs: "+format+": %w", append(args, err)...)
	resp := minio.ToErrorResponse(err)
	switch {
	case resp.Code == "NoSuchKey" || resp.Code == "NoSuchBucket" || resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w (%w)", wrapped, fs.ErrNotExist)
	case errors.Is(err, context.Canceled):
		return &retwis.Error{Kind: retwis.Canceled, Err: wrapped}
	case unreachable(err) || resp.StatusCode >= 500 || resp.Code == "SlowDown":
		return &retwis.Error{Kind: retwis.Unavailable, Err: wrapped, Message: unavailableMessage}
	}
	return wrapped
}

// unreachable reports whether err says the store did not answer: a
// network error (refused, reset, timed out, no such host) or a deadline
// that passed.
func unreachable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
