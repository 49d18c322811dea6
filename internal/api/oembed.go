package api

import (
	"bytes"
	"cmp"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/middleware"
)

// The width of an embedded post unless asked otherwise, and the bounds
// of what may be asked.
const (
	embedWidth               = 400
	minEmbedWidth, maxEmbed  = 200, 2000
	embedCacheAge            = 86400
	oembedNotFound           = "No public post of this server has that URL."
	oembedUnsupportedFormats = "Only the json format is supported."
)

// embedHTML is the markup of an embedded post: its text (behind its
// content warning, which opens without script), its author and when,
// linked to the server. No script, no frame: it is shown as the page
// that embeds it styles it.
var embedHTML = template.Must(template.New("embed").Parse(
	`<blockquote class="retwis-embed" cite="{{.URL}}">` +
		`{{if .SpoilerText}}<details><summary>{{.SpoilerText}}</summary>{{.Content}}</details>{{else}}{{.Content}}{{end}}` +
		`<p>— <a href="{{.Account.URL}}">{{or .Account.DisplayName .Account.Username}} (@{{.Account.Acct}})</a>, ` +
		`<a href="{{.URL}}"><time datetime="{{.CreatedAt}}">{{.Date}}</time></a></p></blockquote>`))

// oembedAnswer is an oEmbed answer of type rich.
type oembedAnswer struct {
	Type         string `json:"type"`
	Version      string `json:"version"`
	Title        string `json:"title"`
	AuthorName   string `json:"author_name"`
	AuthorURL    string `json:"author_url"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	CacheAge     int    `json:"cache_age"`
	HTML         string `json:"html"`
	Width        int    `json:"width"`
	Height       *int   `json:"height"`
}

// oembed answers GET /api/oembed?url=: the oEmbed of a public or
// unlisted post of this server, by its link (as the search finds it),
// for whoever asks; maxwidth (200 to 2000) bounds its width. 404 for
// anything else, 501 for a format other than json.
func (s *Server) oembed(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	if f := v.Get("format"); f != "" && f != "json" {
		apiwire.RenderError(w, r, http.StatusNotImplemented, oembedUnsupportedFormats)
		return
	}
	width := embedWidth
	if raw := v.Get("maxwidth"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < minEmbedWidth || n > maxEmbed {
			apiwire.RenderError(w, r, http.StatusBadRequest, "maxwidth must be a number of pixels from 200 to 2000.")
			return
		}
		width = min(width, n)
	}
	l, _ := linked(r, v.Get("url"))
	st, ok, err := s.embeddable(r, l.post)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if !ok {
		apiwire.RenderError(w, r, http.StatusNotFound, oembedNotFound)
		return
	}
	var b bytes.Buffer
	date := st.CreatedAt
	if t, err := time.Parse(time.RFC3339, st.CreatedAt); err == nil {
		date = t.UTC().Format("2 January 2006")
	}
	if err := embedHTML.Execute(&b, struct {
		entity.Status
		Content template.HTML // sanitized by the entity's building
		Date    string
	}{st, template.HTML(st.Content), date}); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, oembedAnswer{Type: "rich", Version: "1.0", Title: "Post by @" + st.Account.Acct,
		AuthorName: cmp.Or(st.Account.DisplayName, st.Account.Username), AuthorURL: st.Account.URL,
		ProviderName: middleware.Host(r), ProviderURL: middleware.Origin(r) + "/", CacheAge: embedCacheAge, HTML: b.String(), Width: width})
}

// embeddable returns the Status of post pid if whoever asks may see it
// embedded, a post public or unlisted shown to a visitor logged out; ok
// is false for none (no error: not found).
func (s *Server) embeddable(r *http.Request, pid int64) (st entity.Status, ok bool, err error) {
	if pid == 0 {
		return st, false, nil
	}
	p, err := s.Store.Post(r.Context(), 0, pid)
	if retwis.ErrorKind(err) == retwis.NotFound || err == nil && !p.Visibility.Boostable() {
		return st, false, nil
	}
	var out []entity.Status
	if err == nil {
		out, err = s.Statuses(r.Context(), entity.SiteOf(r), []retwis.Post{p})
	}
	if err != nil || len(out) == 0 {
		return st, false, err
	}
	return out[0], true, nil
}
