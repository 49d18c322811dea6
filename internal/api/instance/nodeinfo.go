package instance

import (
	"net/http"
	"strings"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/middleware"
)

// nodeinfoVersions are the versions of the NodeInfo schema served, at
// /nodeinfo/<version>.
var nodeinfoVersions = []string{"2.0", "2.1"}

// nodeinfoLinks answers GET /.well-known/nodeinfo: where each version is.
func nodeinfoLinks(w http.ResponseWriter, r *http.Request) {
	type link struct {
		Rel  string `json:"rel"`
		Href string `json:"href"`
	}
	links := make([]link, len(nodeinfoVersions))
	for i, v := range nodeinfoVersions {
		links[i] = link{"http://nodeinfo.diaspora.software/ns/schema/" + v, middleware.Origin(r) + "/nodeinfo/" + v}
	}
	apiwire.WriteJSON(w, http.StatusOK, map[string]any{"links": links})
}

// nodeinfo answers GET /nodeinfo/{version}: the software, no federation
// protocol, the usage and whether anyone may sign up. Clients tell the
// API a server speaks from it: megalodon (Whalebird, Fedistar) by
// software.name, or, for a name it does not know, by
// metadata.upstream.name, which says "mastodon".
func (s *Server) nodeinfo(w http.ResponseWriter, r *http.Request) {
	v := r.PathValue("version")
	software := map[string]string{"name": "retwis", "version": Version}
	switch v {
	case "2.0":
	case "2.1":
		software["repository"], software["homepage"] = sourceURL, sourceURL
	default:
		apiwire.NotFound(w, r)
		return
	}
	f, err := s.readFacts(r)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, map[string]any{
		"version": v, "software": software, "protocols": []string{},
		"services": map[string][]string{"inbound": {}, "outbound": {}},
		"usage": map[string]any{
			"users":      map[string]int64{"total": f.users, "activeMonth": f.usage.ActiveMonth, "activeHalfyear": f.usage.ActiveHalfyear},
			"localPosts": f.usage.Statuses,
		},
		"openRegistrations": true,
		"metadata": map[string]any{"nodeName": title, "nodeDescription": description,
			"upstream": map[string]string{"name": "mastodon", "version": strings.Fields(Version)[0]}},
	})
}
