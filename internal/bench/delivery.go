package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/chart"
	"github.com/retwis/retwis/internal/loadtest"
	"github.com/retwis/retwis/internal/store/bulk"
)

// deliveryCurve gives one author per size that many (made-up) followers,
// posts once as that author, and times the request and the delivery,
// while the other connections keep posting to measure posting latency
// during a large delivery. It returns the times, and the delivery's rate
// in timeline entries per second.
func (b *bench) deliveryCurve(ctx context.Context) (times, rates []chart.Series, err error) {
	total := chart.Series{Name: "delivery to every follower"}
	request := chart.Series{Name: "the posting request"}
	others := chart.Series{Name: "others' posts, p99"}
	rate := chart.Series{Name: "timeline entries written per second"}
	b.printf("\ndelivery of one post by number of followers, while another user posts on 4 connections\n")
	b.printf("(for fanout beyond 10,000 followers, start the server with a higher --celebrity-threshold)\n")
	b.printf("%-9s %12s %12s %12s %20s %7s\n", "followers", "post request", "delivery", "entries/s", "other posts p99", "errors")
	if err := b.waitIdle(ctx); err != nil {
		return nil, nil, err
	}
	bystander, _, err := b.author(ctx, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	for i, k := range audienceSizes {
		if k > b.opts.MaxAudience {
			break
		}
		cookie, uid, err := b.author(ctx, k, int64(i+1)*10_000_000)
		if err != nil {
			return nil, nil, err
		}
		bg, stop := b.backgroundPosts(ctx, bystander)
		start := time.Now()
		if err := postAs(ctx, b.opts.URL, cookie); err != nil {
			stop()
			return nil, nil, err
		}
		posted := time.Since(start)
		celebrity, err := b.st.IsCelebrity(ctx, uid)
		if err != nil {
			stop()
			return nil, nil, err
		}
		if err := b.waitDelivered(ctx, uid, celebrity); err != nil {
			stop()
			return nil, nil, err
		}
		delivered := time.Since(start)
		stop()
		r := <-bg
		if celebrity {
			b.printf("%-9d %12s %12s %12s %20s %7d  (over the celebrity threshold: merged at read, not fanned out)\n",
				k, msec(posted), "-", "-", msec(r.P99), r.Errors)
			continue
		}
		perSecond := float64(k) / delivered.Seconds()
		b.printf("%-9d %12s %12s %12.0f %20s %7d\n", k, msec(posted), msec(delivered), perSecond, msec(r.P99), r.Errors)
		total.Points = append(total.Points, chart.Point{X: float64(k), Y: ms(delivered)})
		request.Points = append(request.Points, chart.Point{X: float64(k), Y: ms(posted)})
		others.Points = append(others.Points, chart.Point{X: float64(k), Y: ms(r.P99)})
		rate.Points = append(rate.Points, chart.Point{X: float64(k), Y: perSecond})
	}
	return nonEmpty(total, request, others), nonEmpty(rate), nil
}

func nonEmpty(series ...chart.Series) []chart.Series {
	var out []chart.Series
	for _, s := range series {
		if len(s.Points) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// author signs up an author with k made-up followers (ids from first on).
func (b *bench) author(ctx context.Context, k int, first int64) (string, int64, error) {
	name := uniqueName(fmt.Sprint("audience", k))
	u, _, err := b.st.Register(ctx, name, b.opts.Password)
	if err != nil {
		return "", 0, err
	}
	w := bulk.NewLiveWriter(ctx, b.st.DB)
	now := time.Now().Unix()
	for i := range int64(k) {
		if err := w.Follows(first+i, []int64{u.ID}, now); err != nil {
			return "", 0, err
		}
	}
	if err := w.Flush(); err != nil {
		return "", 0, err
	}
	cookie, err := loginAs(ctx, b.opts.URL, name, b.opts.Password)
	return cookie, u.ID, err
}

// backgroundPosts keeps a few connections posting as a user without
// followers until stop is called, then sends the result: the latency of
// posting while a large delivery runs, without adding delivery work that
// would queue in front of the one being measured.
func (b *bench) backgroundPosts(ctx context.Context, cookie string) (<-chan loadtest.Result, func()) {
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan loadtest.Result, 1)
	go func() {
		r, _ := loadtest.Run(ctx, loadtest.Options{
			BaseURL: b.opts.URL, Connections: 4, Duration: time.Hour, Cookies: []string{cookie}, CookieName: retwis.SessionCookie,
			Next: func(conn int, rng *rand.Rand) loadtest.Request { return postRequest(conn, rng) },
		})
		out <- r
	}()
	return out, cancel
}

// waitIdle waits until the delivery workers have caught up with the
// jobs earlier scenarios queued, so that the curve measures delivery, not
// queueing.
func (b *bench) waitIdle(ctx context.Context) error {
	start := time.Now()
	for {
		n, err := b.st.DeliveryBacklog(ctx)
		if err != nil || n == 0 {
			if time.Since(start) > time.Second {
				b.printf("(waited %s for earlier deliveries to finish)\n", time.Since(start).Round(time.Second))
			}
			return err
		}
		if time.Since(start) > 30*time.Minute {
			return fmt.Errorf("%d delivery jobs still queued after 30 minutes", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitDelivered waits until the author's newest post has reached every
// follower (at once for a celebrity, whose posts are not delivered).
func (b *bench) waitDelivered(ctx context.Context, author int64, celebrity bool) error {
	deadline := time.Now().Add(10 * time.Minute)
	for !celebrity && time.Now().Before(deadline) {
		done, err := b.st.DeliveryDone(ctx, author)
		if retwis.ErrorKind(err) == retwis.Unavailable {
			// Redis stalled past the store's deadline: copying the
			// follower snapshot of a job to a million followers takes
			// about a second. Ask again.
			b.printf("(Redis did not answer within a second while the delivery ran)\n")
			continue
		}
		if err != nil || done {
			return err
		}
		time.Sleep(2 * time.Millisecond)
	}
	if celebrity {
		return nil
	}
	return fmt.Errorf("delivery did not finish within 10 minutes")
}

func postAs(ctx context.Context, base, cookie string) error {
	form := url.Values{"status": {"one post to a very large audience"}}
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/post", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: retwis.SessionCookie, Value: cookie})
	res, err := noRedirects.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("post answered %s", res.Status)
	}
	return nil
}
