package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/chart"
	"github.com/retwis/retwis/internal/loadtest"
	"github.com/retwis/retwis/internal/store/bulk"
)

// Points of the growth curves.
var (
	followingSizes = []int{10, 100, 1_000, 10_000}
	audienceSizes  = []int{1_000, 10_000, 100_000, 1_000_000}
)

// growthCurves measures how the home page grows with the number of
// followed users and with its depth, and how delivery grows with the
// number of followers, prints them and writes them as SVG charts into
// the curves directory.
func (b *bench) growthCurves(ctx context.Context) error {
	home, deepest, err := b.homeCurve(ctx)
	if err != nil {
		return err
	}
	if err := writeChart(filepath.Join(b.opts.Curves, "home-latency.svg"), chart.Chart{
		Title: "Home page latency by number of followed users", XLabel: "followed users", YLabel: "latency (ms)",
		LogX: true, LogY: true, Series: home,
	}); err != nil {
		return err
	}
	depth, err := b.depthCurve(ctx, deepest)
	if err != nil {
		return err
	}
	if err := writeChart(filepath.Join(b.opts.Curves, "page-depth.svg"), chart.Chart{
		Title: fmt.Sprintf("Home page latency by depth (following %d users)", deepest), XLabel: "posts above the page",
		YLabel: "latency (ms)", LogX: true, LogY: true, Series: depth,
	}); err != nil {
		return err
	}
	delivery, rate, err := b.deliveryCurve(ctx)
	if err != nil {
		return err
	}
	if err := writeChart(filepath.Join(b.opts.Curves, "delivery.svg"), chart.Chart{
		Title: "Delivery of one post by number of followers", XLabel: "followers", YLabel: "milliseconds",
		LogX: true, LogY: true, Series: delivery,
	}); err != nil {
		return err
	}
	return writeChart(filepath.Join(b.opts.Curves, "delivery-rate.svg"), chart.Chart{
		Title: "Delivered timeline entries per second by number of followers", XLabel: "followers",
		YLabel: "entries per second", LogX: true, LogY: true, Series: rate,
	})
}

// depths are the points of the depth curve: posts above the page.
var depths = []int{10, 100, 1_000, 10_000, 20_000}

// depthCurve gives a new user following the first k seeded users a
// timeline 20,000 posts deeper than its list, and loads pages at growing
// depths, the first ones in the list, the others in the archive.
func (b *bench) depthCurve(ctx context.Context, k int) ([]chart.Series, error) {
	p50 := chart.Series{Name: "p50"}
	p99 := chart.Series{Name: "p99"}
	cookie, timeline, err := b.userFollowing(ctx, k, b.opts.HomeCap+depths[len(depths)-1])
	if err != nil {
		return nil, err
	}
	b.printf("\nhome page by depth, following %d users (%d posts in the timeline, %d in its list; %d connections, %s each)\n",
		k, len(timeline), min(len(timeline), b.opts.HomeCap), b.opts.Connections, b.curveDuration())
	b.printf("%-9s %10s %9s %9s %7s\n", "depth", "req/s", "p50", "p99", "errors")
	for _, d := range depths {
		if d >= len(timeline) {
			b.printf("%-9d skipped: the timeline holds %d posts\n", d, len(timeline))
			continue
		}
		r, err := b.loadAs(ctx, cookie, "/?before="+strconv.FormatInt(timeline[d-1], 10))
		if err != nil {
			return nil, err
		}
		b.printf("%-9d %10.0f %9s %9s %7d\n", d, r.RPS, msec(r.P50), msec(r.P99), r.Errors)
		p50.Points = append(p50.Points, chart.Point{X: float64(d), Y: ms(r.P50)})
		p99.Points = append(p99.Points, chart.Point{X: float64(d), Y: ms(r.P99)})
	}
	return nonEmpty(p50, p99), nil
}

// writeChart writes c as SVG into the file path.
func writeChart(path string, c chart.Chart) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := c.WriteSVG(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// homeCurve signs up one user per size, makes them follow that many
// seeded users, gives them a timeline as deep as the seeded ones (list
// and archive), and loads their home page and a page from the middle of
// their archive. It returns the largest size it measured too.
func (b *bench) homeCurve(ctx context.Context) ([]chart.Series, int, error) {
	p50 := chart.Series{Name: "home page p50"}
	p99 := chart.Series{Name: "home page p99"}
	deep := chart.Series{Name: "page in the archive, p50"}
	b.printf("\nhome page by number of followed users (%d connections as that user, %s each)\n", b.opts.Connections, b.curveDuration())
	b.printf("%-9s %10s %9s %9s %10s %16s %7s\n", "follows", "req/s", "p50", "p99", "deep req/s", "deep p50 (ratio)", "errors")
	largest := 0
	for _, k := range followingSizes {
		if k > b.users() {
			b.printf("%-9d skipped: needs more than %d seeded users\n", k, b.users())
			continue
		}
		largest = k
		cookie, timeline, err := b.userFollowing(ctx, k, b.opts.HomeCap+max(b.opts.Archive, 1000))
		if err != nil {
			return nil, 0, err
		}
		top, err := b.loadAs(ctx, cookie, "/")
		if err != nil {
			return nil, 0, err
		}
		// A cursor halfway down the archive (or the list, if that is all).
		at := timeline[min(len(timeline)-1, (len(timeline)+b.opts.HomeCap)/2)]
		past, err := b.loadAs(ctx, cookie, "/?before="+strconv.FormatInt(at, 10))
		if err != nil {
			return nil, 0, err
		}
		b.printf("%-9d %10.0f %9s %9s %10.0f %9s (%.1f×) %7d\n", k, top.RPS, msec(top.P50), msec(top.P99), past.RPS,
			msec(past.P50), float64(past.P50)/float64(max(top.P50, 1)), top.Errors+past.Errors)
		p50.Points = append(p50.Points, chart.Point{X: float64(k), Y: ms(top.P50)})
		p99.Points = append(p99.Points, chart.Point{X: float64(k), Y: ms(top.P99)})
		deep.Points = append(deep.Points, chart.Point{X: float64(k), Y: ms(past.P50)})
	}
	return []chart.Series{p50, p99, deep}, largest, nil
}

// userFollowing signs up a new user who follows the first k seeded users,
// gives them a timeline of the newest n posts, and returns its cookie and
// the timeline.
func (b *bench) userFollowing(ctx context.Context, k, n int) (string, []int64, error) {
	name := uniqueName(fmt.Sprint("follows", k))
	u, _, err := b.st.Register(ctx, name, b.opts.Password)
	if err != nil {
		return "", nil, err
	}
	ids := make([]int64, k)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	// One bulk write and one build, cheaper than a backfill per follow.
	w := bulk.NewLiveWriter(ctx, b.st.DB)
	if err := w.Follows(u.ID, ids, time.Now().Unix()); err != nil {
		return "", nil, err
	}
	if err := w.Flush(); err != nil {
		return "", nil, err
	}
	timeline, err := bulk.BuildTimeline(ctx, b.st, u.ID, n)
	if err != nil {
		return "", nil, err
	}
	if len(timeline) == 0 {
		return "", nil, fmt.Errorf("the %d users %s follows have posted nothing", k, name)
	}
	cookie, err := loginAs(ctx, b.opts.URL, name, b.opts.Password)
	return cookie, timeline, err
}

func (b *bench) curveDuration() time.Duration { return min(b.opts.Duration, 5*time.Second) }

// loadAs loads one path with every connection logged in as one user.
func (b *bench) loadAs(ctx context.Context, cookie, path string) (loadtest.Result, error) {
	return loadtest.Run(ctx, loadtest.Options{
		BaseURL: b.opts.URL, Connections: b.opts.Connections, Duration: b.curveDuration(), Cookies: []string{cookie}, CookieName: retwis.SessionCookie,
		Next: func(int, *rand.Rand) loadtest.Request { return loadtest.Request{Path: path} },
	})
}

func ms(d time.Duration) float64 { return max(float64(d.Microseconds())/1000, 0.001) }

func msec(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
