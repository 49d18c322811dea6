package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// exportPage is how many posts or follows the export reads at a time.
const exportPage = 200

// exportPost is a post in the export.
type exportPost struct {
	ID         string `json:"id"`
	CreatedAt  string `json:"created_at"`
	Text       string `json:"text"`
	Warning    string `json:"spoiler_text,omitempty"` // its content warning, if any
	Visibility string `json:"visibility"`             // who sees it: public, unlisted, private or direct
	InReplyTo  string `json:"in_reply_to,omitempty"`
}

// exportFollow is a follower or followed account in the export.
type exportFollow struct {
	Username string `json:"username"`
	Since    string `json:"since"`
}

// exportData serves GET /settings/export: the viewer's profile, posts
// (newest first), following and followers, as one JSON document to
// download. It is written as it is read, a page at a time, so that an
// account of any size costs the server one page of memory.
func (s *Server) exportData(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	name, bio, err := s.store.About(r.Context(), u.ID)
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="retwis-%s.json"`, u.Username))
	h.Set("Cache-Control", "private, no-store")
	head, _ := json.Marshal(struct {
		Username    string `json:"username"`
		DisplayName string `json:"display_name"`
		Bio         string `json:"bio"`
		ExportedAt  string `json:"exported_at"`
	}{u.Username, name, bio, time.Now().UTC().Format(time.RFC3339)})
	io.WriteString(w, string(head[:len(head)-1])) // the object stays open for the lists
	err = s.exportPosts(r.Context(), w, u)
	if err == nil {
		err = s.exportFollows(r.Context(), w, "following", func(ctx context.Context, c retwis.Cursor) (retwis.FollowPage, error) {
			return s.store.Following(ctx, u.ID, c, exportPage)
		})
	}
	if err == nil {
		err = s.exportFollows(r.Context(), w, "followers", func(ctx context.Context, c retwis.Cursor) (retwis.FollowPage, error) {
			return s.store.Followers(ctx, u.ID, c, exportPage)
		})
	}
	if err != nil { // the answer has begun: it stays unfinished, which a JSON reader notices
		s.mw.LogFailure(r, http.StatusServiceUnavailable, err)
		return
	}
	io.WriteString(w, "}\n")
}

// exportPosts writes the "posts" member: every post of u, newest first.
func (s *Server) exportPosts(ctx context.Context, w io.Writer, u retwis.User) error {
	io.WriteString(w, `,"posts":[`)
	enc := json.NewEncoder(w)
	first := true
	for c := (retwis.Cursor{}); ; {
		p, err := s.store.Profile(ctx, u.ID, u, c, exportPage) // as its author sees them: every visibility
		if err != nil {
			return err
		}
		for _, post := range p.Page.Posts {
			e := exportPost{ID: strconv.FormatInt(post.ID, 10), CreatedAt: post.Time.UTC().Format(time.RFC3339), Text: post.Body, Warning: post.Warning,
				Visibility: post.Visibility.String()}
			if post.InReplyTo > 0 {
				e.InReplyTo = strconv.FormatInt(post.InReplyTo, 10)
			}
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		if !p.Page.Older || len(p.Page.Posts) == 0 {
			break
		}
		c = retwis.Cursor{Before: p.Page.Posts[len(p.Page.Posts)-1].ID}
	}
	_, err := io.WriteString(w, "]")
	return err
}

// exportFollows writes the member name: a follow list, the most recent
// first, read a page at a time by read.
func (s *Server) exportFollows(ctx context.Context, w io.Writer, name string, read func(context.Context, retwis.Cursor) (retwis.FollowPage, error)) error {
	io.WriteString(w, `,"`+name+`":[`)
	enc := json.NewEncoder(w)
	first := true
	for c := (retwis.Cursor{}); ; {
		p, err := read(ctx, c)
		if err != nil {
			return err
		}
		for _, f := range p.Follows {
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			if err := enc.Encode(exportFollow{Username: f.User.Username, Since: f.Since.UTC().Format(time.RFC3339)}); err != nil {
				return err
			}
		}
		if !p.Older || len(p.Follows) == 0 {
			break
		}
		c = retwis.Cursor{Before: p.Follows[len(p.Follows)-1].User.ID}
	}
	_, err := io.WriteString(w, "]")
	return err
}
