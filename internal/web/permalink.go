package web

import (
	"crypto/rand"
	"net/http"
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// postID reads the {id} of a post path, spelled as retwis.ParseID reads
// it: /p/+1 and /p/01 are not found, as /p/1 is the post's one path.
func postID(r *http.Request) (int64, error) {
	n, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		return 0, retwis.Errorf(retwis.NotFound, "There is no such post.")
	}
	return n, nil
}

// repliesPerPage is how many replies the thread page shows at a time.
const repliesPerPage = 20

// permalink serves GET /p/{id}: the post with its thread (the posts it
// answers above it, its replies below, oldest first, ?after=<reply id>
// for the next ones), who favourited it, a reply form for a logged-in
// visitor, and delete and pin buttons for its author.
func (s *Server) permalink(w http.ResponseWriter, r *http.Request) {
	s.renderThread(w, r, http.StatusOK, page.View{})
}

// renderThread renders the thread page of the post the path names; v
// carries a form error and the draft of a failed reply.
func (s *Server) renderThread(w http.ResponseWriter, r *http.Request, status int, v page.View) {
	pid, err := postID(r)
	var after int64
	if err == nil {
		after, err = page.PostNumber(r.URL.Query().Get("after"), "?after") // the last reply of the previous page
	}
	if err == nil {
		v.Thread, err = s.Store.Thread(r.Context(), middleware.ViewerID(r.Context()), pid, after, repliesPerPage)
	}
	if err == nil && v.Thread.Post.Favourites > 0 { // who: the first few
		v.Users, err = s.Store.FavouriterNames(r.Context(), middleware.ViewerID(r.Context()), pid, 10)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	p := v.Thread.Post
	v.Title, v.Post = "Post by "+p.Author, p
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
		v.PostKey = rand.Text()
		v.Reported = r.URL.Query().Get("reported") == "1"
		if v.ReplyDraft = v.Draft; v.ReplyDraft == "" && u.ID != p.AuthorID {
			v.ReplyDraft = "@" + p.Author + " "
		}
	}
	if replies := v.Thread.Replies.Posts; v.Thread.Replies.Newer && len(replies) > 0 {
		v.Older = retwis.PostPath(p.ID) + "?after=" + strconv.FormatInt(replies[len(replies)-1].ID, 10)
	}
	s.Render(w, r, status, "post", v)
}
