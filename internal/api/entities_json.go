package api

import (
	"context"
	"encoding/json"

	"github.com/retwis/retwis"
)

// The entities as JSON, one at a time, for internal/streaming, whose
// events carry them, for a client of origin (the scheme and host their
// URLs begin with, as Origin says).

// StatusJSON returns the Status of post pid as JSON, or "" if the post
// or its author is gone. It reads the post whoever reads it: whether a
// viewer sees it (blocks, visibility) is the caller's to ask.
func (s *Server) StatusJSON(ctx context.Context, origin string, pid int64) (string, error) {
	p, err := s.store.ModeratedPost(ctx, pid) // whoever reads: the streams ask whether each viewer sees it
	if retwis.ErrorKind(err) == retwis.NotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	posts := []retwis.Post{p}
	out, err := s.statuses(ctx, site{origin: origin}, posts)
	if err != nil {
		return "", err
	}
	return firstJSON(out)
}

// NotificationJSON returns the Notification of n as JSON, or "" if its
// post or its actor is gone, or the viewer of ctx (middleware.WithViewer)
// does not see its post.
func (s *Server) NotificationJSON(ctx context.Context, origin string, n retwis.Notification) (string, error) {
	out, err := s.notificationEntities(ctx, site{origin: origin}, []retwis.Notification{n})
	if err != nil {
		return "", err
	}
	return firstJSON(out)
}

// firstJSON returns the JSON of the one entity of out, or "" if there is
// none.
func firstJSON[E any](out []E) (string, error) {
	if len(out) == 0 {
		return "", nil
	}
	b, err := json.Marshal(out[0])
	if err != nil {
		return "", err
	}
	return string(b), nil
}
