package web

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/tagfollows"
	"github.com/retwis/retwis/internal/web/page"
	"github.com/retwis/retwis/internal/web/paging"
	"github.com/retwis/retwis/internal/web/words"
)

// activityDays is how many days the activity chart of a tag page shows.
const activityDays = 30

// tag serves GET /tag/{tag}: the posts with a tag (matched ignoring case
// and accents), newest first, with the tag's activity of the last 30
// days; ?day=YYYYMMDD shows the posts of one day, from the tag's
// composite index.
func (s *Server) tag(w http.ResponseWriter, r *http.Request) {
	tag := r.PathValue("tag")
	var day time.Time
	if d := r.URL.Query().Get("day"); d != "" {
		var err error
		if day, err = time.Parse("20060102", d); err != nil {
			s.MW.Fail(w, r, retwis.Errorf(retwis.Invalid, "?day must be a date written YYYYMMDD."))
			return
		}
	}
	read := func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
		if !day.IsZero() {
			return s.Store.TagDayPosts(ctx, middleware.ViewerID(ctx), tag, day, c, n)
		}
		return s.Store.TagPosts(ctx, middleware.ViewerID(ctx), tag, c, n)
	}
	c, ok := s.PageCursor(w, r, read)
	if !ok {
		return
	}
	name, activity, err := s.Store.TagInfo(r.Context(), tag, activityDays, time.Now())
	var posts retwis.Page
	if err == nil {
		posts, err = read(r.Context(), c, PageSize)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	v := page.View{Title: "#" + name, Page: posts, Tag: page.TagView{Name: name, Path: retwis.TagPath(name), Day: day}}
	v.Tag.Chart = activityChart(activity, v.Tag.Path)
	if u, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &u
		following, err := tagfollows.New(s.Store).Following(r.Context(), u.ID, []string{name})
		if err != nil {
			s.MW.Fail(w, r, err)
			return
		}
		v.Tag.Following = following[0]
	}
	base := v.Tag.Path
	if !day.IsZero() {
		base += "?day=" + day.Format("20060102")
	}
	v.Newer, v.Older = paging.Links(base, posts)
	s.Render(w, r, http.StatusOK, "tag", v)
}

// Size of the activity chart, in pixels.
const (
	chartWidth  = 600
	chartHeight = 80
)

// activityChart draws a tag's posts by day as an inline SVG bar chart,
// each bar linking to its day's posts. It has no script and no style
// attribute, so that the pages' CSP allows it.
func activityChart(days []retwis.DayCount, path string) template.HTML {
	var most int64 = 1
	for _, d := range days {
		most = max(most, d.Posts)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="activity" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="posts a day, the last %d days">`,
		chartWidth, chartHeight+14, len(days))
	slot := float64(chartWidth) / float64(max(len(days), 1))
	for i, d := range days {
		h := float64(chartHeight) * float64(d.Posts) / float64(most)
		x := float64(i) * slot
		label := fmt.Sprintf("%s: %d %s", d.Day.Format("2 Jan"), d.Posts, words.Plural(d.Posts, "post", "posts"))
		fmt.Fprintf(&b, `<a href="%s?day=%s"><title>%s</title><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#c6302b"/>`+
			`<rect x="%.1f" y="0" width="%.1f" height="%d" fill="transparent"/></a>`,
			template.HTMLEscapeString(path), d.Day.Format("20060102"), template.HTMLEscapeString(label),
			x+1, float64(chartHeight)-h, slot-2, h, x, slot, chartHeight)
	}
	if len(days) > 0 {
		fmt.Fprintf(&b, `<text x="0" y="%d" font-size="11" fill="#5b6670">%s</text>`, chartHeight+12, days[0].Day.Format("2 Jan"))
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="#5b6670" text-anchor="end">%s</text>`,
			chartWidth, chartHeight+12, days[len(days)-1].Day.Format("2 Jan"))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
