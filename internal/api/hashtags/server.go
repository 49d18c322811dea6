// Package hashtags is the client API's hashtags (tags in Mastodon's
// words): a tag with its history (tag_show.go, and Entities, which the
// search and the trends answer with too), its follow by the viewer
// (tag_follow.go: the tag's public posts then reach the viewer's home
// timeline, internal/store/tagfollows) and the list of the tags the
// viewer follows (followed_tags.go); and the tags accounts feature on
// their profiles (featured_tags.go, internal/store/featured). Every Tag
// it answers says whether the viewer follows it.
package hashtags

import (
	"context"
	"net/http"
	"time"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/tagfollows"
)

// historyDays is how many days a Tag's history covers, as Mastodon's.
const historyDays = 7

// Server serves the hashtags' routes of the client API, on the API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/tags/{name}", s.May("", s.showTag))
	mux.HandleFunc("POST /api/v1/tags/{name}/follow", s.Need(apiwire.WriteFollows, s.MW.Throttle(s.follow(true))))
	mux.HandleFunc("POST /api/v1/tags/{name}/unfollow", s.Need(apiwire.WriteFollows, s.MW.Throttle(s.follow(false))))
	mux.HandleFunc("GET /api/v1/followed_tags", s.Need(apiwire.ReadFollows, s.followedTags))
	mux.HandleFunc("GET /api/v1/featured_tags", s.Need(apiwire.ReadAccounts, s.featuredTags))
	mux.HandleFunc("POST /api/v1/featured_tags", s.Need(apiwire.WriteAccounts, s.MW.Throttle(s.featureTag)))
	mux.HandleFunc("DELETE /api/v1/featured_tags/{id}", s.Need(apiwire.WriteAccounts, s.MW.Throttle(s.unfeatureTag)))
	mux.HandleFunc("GET /api/v1/featured_tags/suggestions", s.Need(apiwire.ReadAccounts, s.featuredSuggestions))
	mux.HandleFunc("GET /api/v1/accounts/{id}/featured_tags", s.May(apiwire.ReadAccounts, s.featuredTags))
}

// follows returns the follows of tags of the kit's store.
func (s *Server) follows() *tagfollows.Store { return tagfollows.New(s.Store) }

// Entities returns the Tag entities of tags, as written, with their
// history and whether viewer (0: nobody) follows each: two round trips
// whatever their number (one without a viewer).
func (s *Server) Entities(ctx context.Context, st entity.Site, viewer int64, tags []string) ([]entity.Tag, error) {
	history, err := s.Store.TagHistory(ctx, tags, historyDays, time.Now())
	if err != nil {
		return nil, err
	}
	following, err := s.follows().Following(ctx, viewer, tags)
	if err != nil {
		return nil, err
	}
	out := make([]entity.Tag, len(tags))
	for i, t := range tags {
		out[i] = st.Tag(t, history[i])
		out[i].Following = following[i]
	}
	return out, nil
}
