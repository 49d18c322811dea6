package api

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
)

// statuses returns the entities of posts: their authors' summaries in
// one pipeline and their counts of replies in another, through the
// client-side cache, whatever the number of posts. A boost's entity
// holds the post it boosts as its reblog.
func (s *Server) statuses(ctx context.Context, st site, posts []retwis.Post) ([]status, error) {
	out := make([]status, 0, len(posts))
	if len(posts) == 0 {
		return out, nil
	}
	all := append([]retwis.Post(nil), posts...) // then the posts boosted
	for _, p := range posts {
		if p.Reblog != nil {
			all = append(all, *p.Reblog)
		}
	}
	var authors, pids []int64
	seen := map[int64]bool{}
	for _, p := range all {
		pids = append(pids, p.ID)
		if !seen[p.AuthorID] {
			seen[p.AuthorID], authors = true, append(authors, p.AuthorID)
		}
	}
	sums, err := s.store.Summaries(ctx, authors)
	if err != nil {
		return nil, err
	}
	replies, err := s.store.ReplyCounts(ctx, pids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]retwis.Summary, len(sums))
	for _, sum := range sums {
		byID[sum.User.ID] = sum
	}
	boosted := len(posts) // where the next boost's post is in all
	for i, p := range posts {
		author, ok := byID[p.AuthorID] // else the account is gone
		e := st.status(p, author, replies[i])
		if p.Reblog != nil {
			orig, j := *p.Reblog, boosted
			boosted++
			origAuthor, found := byID[orig.AuthorID]
			e.boosts(st.status(orig, origAuthor, replies[j]))
			ok = ok && found
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// boosts makes e, a boost's entity, that of a boost of post o: without
// content of its own, as Mastodon's, and reblogged when the reader
// boosted o.
func (e *status) boosts(o status) {
	e.Reblog, e.Content, e.Tags, e.Mentions = &o, "", []tagRef{}, []mention{}
	e.SpoilerText, e.Sensitive, e.Reblogged = "", false, o.Reblogged
}

// writePage answers a page of posts, newest first, with its Link header.
func (s *Server) writePage(w http.ResponseWriter, r *http.Request, page retwis.Page, since int64) {
	posts := newerThan(page.Posts, since, func(p retwis.Post) int64 { return p.ID })
	out, err := s.statuses(r.Context(), newSite(r), posts)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(posts) > 0 {
		link(w, r, posts[0].ID, posts[len(posts)-1].ID, page.Older)
	}
	writeJSON(w, http.StatusOK, out)
}

// pageOf reads a request's paging parameters and answers 4xx if they
// are wrong; ok is false once answered.
func (s *Server) pageOf(w http.ResponseWriter, r *http.Request) (pageParams, bool) {
	v, err := params(r)
	if err != nil {
		badRequest(w, r, err)
		return pageParams{}, false
	}
	p, err := readPage(v, defaultLimit, maxLimit)
	if err != nil {
		s.fail(w, r, err)
		return p, false
	}
	return p, true
}
