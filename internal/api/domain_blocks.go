package api

import (
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/domainblocks"
)

// Domain blocks are listed 100 at a time, at most 200, as Mastodon does.
const (
	domainBlocksPage    = 100
	maxDomainBlocksPage = 200
)

// errOwnDomain refuses the block of this server's own domain, of which
// every account here is.
var errOwnDomain = retwis.Errorf(retwis.Invalid, "You cannot block the domain of this server.")

// domainBlocks answers GET /api/v1/domain_blocks: the domains the user
// blocked, newest first, paged by when (max_id, min_id, since_id, the
// Link header).
func (s *Server) domainBlocks(w http.ResponseWriter, r *http.Request) {
	p, err := apiwire.ReadPage(r.URL.Query(), domainBlocksPage, maxDomainBlocksPage)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	all, err := domainblocks.List(r.Context(), s.Store.DB, apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	page := apiwire.NewerThan(pageOfDomains(all, p.Cursor), p.Since, func(b domainblocks.Blocked) int64 { return b.At })
	page = page[:min(len(page), p.Limit)]
	out := make([]string, len(page))
	for i, b := range page {
		out[i] = b.Domain
	}
	if len(page) > 0 {
		apiwire.Link(w, r, page[0].At, page[len(page)-1].At, page[len(page)-1].At > all[len(all)-1].At)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// pageOfDomains returns the domains of all (newest first) that c asks
// for: older than c.Before, or the newest ones newer than c.After
// (those just above it, newest first).
func pageOfDomains(all []domainblocks.Blocked, c retwis.Cursor) []domainblocks.Blocked {
	switch {
	case c.Before > 0:
		for i, b := range all {
			if b.At < c.Before {
				return all[i:]
			}
		}
		return nil
	case c.After > 0:
		for i, b := range all {
			if b.At <= c.After {
				return all[:i]
			}
		}
	}
	return all
}

// blockDomain answers POST /api/v1/domain_blocks (domain): an empty
// object; this server's own domain is refused (422).
func (s *Server) blockDomain(w http.ResponseWriter, r *http.Request) {
	s.changeDomainBlock(w, r, true)
}

// unblockDomain answers DELETE /api/v1/domain_blocks (domain): an empty
// object, whether it was blocked or not.
func (s *Server) unblockDomain(w http.ResponseWriter, r *http.Request) {
	s.changeDomainBlock(w, r, false)
}

// changeDomainBlock blocks or unblocks the domain of r's parameters.
func (s *Server) changeDomainBlock(w http.ResponseWriter, r *http.Request, block bool) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	domain, uid := v.Get("domain"), apiwire.Viewer(r).ID
	host, _, _ := strings.Cut(middleware.Host(r), ":")
	switch d, _ := domainblocks.Normalize(domain); {
	case block && d != "" && d == strings.ToLower(host):
		err = errOwnDomain
	case block:
		err = domainblocks.Block(r.Context(), s.Store.DB, uid, domain)
	default:
		err = domainblocks.Unblock(r.Context(), s.Store.DB, uid, domain)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, struct{}{})
}
