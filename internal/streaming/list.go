package streaming

import (
	"context"
	"net/http"
	"net/url"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/lists"
	"github.com/retwis/retwis/internal/store/posts"
)

// listStream returns the stream of l's list whose id is list: the posts
// of l's user stream, those the list shows. Whether there is such a
// list is Server.resolve's to say.
func listStream(list string, l listener) (liveStream, *streamError) {
	id, _ := retwis.ParseID(list)
	return liveStream{name: "list", tag: list, list: id, source: posts.UserStream(l.user.ID), posts: true}, nil
}

// streamArg returns the argument of the stream name in q: a hashtag
// stream's tag, a list stream's list.
func streamArg(name string, q url.Values) string {
	if name == "list" {
		return q.Get("list")
	}
	return q.Get("tag")
}

// resolve is resolveStream, and for a list stream, a list of l's user
// (else 404, as Mastodon answers).
func (s *Server) resolve(ctx context.Context, name, arg string, l listener) (liveStream, *streamError) {
	ls, refused := resolveStream(name, arg, l)
	if refused != nil || ls.name != "list" {
		return ls, refused
	}
	if ls.list == 0 {
		return liveStream{}, &streamError{http.StatusNotFound, "Record not found"}
	}
	_, err := lists.New(s.store).List(ctx, l.user.ID, ls.list)
	switch {
	case retwis.ErrorKind(err) == retwis.NotFound:
		return liveStream{}, &streamError{http.StatusNotFound, "Record not found"}
	case err != nil:
		return liveStream{}, &streamError{http.StatusServiceUnavailable, "Live updates are unavailable right now."}
	}
	return ls, nil
}
