package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retwis/retwis"
)

// How the streaming scenario measures: each of its streams is measured
// streamRuns times, a run posting for a fifth of the scenario duration
// (streamMinPosts at least), one post at a time (the next once every
// client has the one before, and a pause).
const (
	streamRuns     = 5
	streamMinPosts = 3
	streamPause    = 50 * time.Millisecond
	streamWait     = 30 * time.Second // for a post to reach every client
	streamOpening  = 32               // streams opened at once
)

// streaming measures live updates: how long a post takes to reach the
// clients that listen for it. Every connection, logged in as its own
// seeded user, follows a fresh author and listens to its user stream
// (Server-Sent Events with the session cookie, as the pages do); the
// author posts through the API, and each client notes when the post's
// update arrives. The same is then measured with as many clients of the
// public stream. For each run it reports the delay from the post's
// request to its arrival (p50 and p99 over every client and post) and
// to the last client (p50 over the posts), then the median of the runs
// and their spread.
func (b *bench) streaming(ctx context.Context) error {
	if err := b.waitIdle(ctx); err != nil {
		return err
	}
	token, err := b.streamAuthor(ctx)
	if err != nil {
		return err
	}
	b.printf("\nstreaming: %d clients (Server-Sent Events), %d runs of %s each, one post at a time\n",
		b.opts.Connections, streamRuns, b.opts.Duration/streamRuns)
	for _, st := range []struct{ name, path string }{
		{"user streams (all follow the author)", "/api/v1/streaming/user"},
		{"public stream", "/api/v1/streaming/public"},
	} {
		if err := b.measureStream(ctx, st.name, st.path, token); err != nil {
			return err
		}
	}
	return nil
}

// streamAuthor signs up a fresh author, has every connection's user
// follow them, and returns the author's API token.
func (b *bench) streamAuthor(ctx context.Context) (string, error) {
	var author retwis.User
	for i := 1; ; i++ {
		u, _, err := b.st.Register(ctx, "streamer"+strconv.Itoa(i), b.opts.Password)
		if err == nil {
			author = u
			break
		}
		if retwis.ErrorKind(err) != retwis.Conflict || i == 100 {
			return "", fmt.Errorf("sign up the streaming author: %w", err)
		}
	}
	for i := range min(b.opts.Connections, b.users()) {
		u, err := b.st.UserByName(ctx, "user"+strconv.Itoa(1+i))
		if err == nil {
			err = b.st.Follow(ctx, u.ID, author.ID)
		}
		if err != nil {
			return "", fmt.Errorf("follow the streaming author: %w", err)
		}
	}
	cookie, err := loginAs(ctx, b.opts.URL, author.Username, b.opts.Password)
	if err != nil {
		return "", fmt.Errorf("log in as the streaming author: %w", err)
	}
	return personalToken(ctx, b.opts.URL, cookie)
}

// streamRun is what one run of a stream measured.
type streamRun struct {
	delays  []time.Duration // of every arrival, sorted
	last    []time.Duration // of each post, to its last client, sorted
	missing int             // arrivals that did not come within streamWait
}

// measureStream opens a stream per connection at path, measures its
// runs, and prints them.
func (b *bench) measureStream(ctx context.Context, name, path, token string) error {
	listening, err := b.openStreamsec(ctx, path)
	if err != nil {
		return err
	}
	defer listening.close()
	b.printf("%s:\n", name)
	var p50s, p99s []time.Duration
	for i := range streamRuns {
		run, err := b.streamRun(ctx, listening, token)
		if err != nil {
			return err
		}
		p50, p99 := percentile(run.delays, 50), percentile(run.delays, 99)
		p50s, p99s = append(p50s, p50), append(p99s, p99)
		b.printf("  run %d: p50 %s, p99 %s; to the last client p50 %s  (%d posts, %d arrivals, %d missing)\n", i+1,
			msec(p50), msec(p99), msec(percentile(run.last, 50)), len(run.last), len(run.delays), run.missing)
	}
	slices.Sort(p50s)
	slices.Sort(p99s)
	b.printf("  median of %d runs: p50 %s (%s–%s), p99 %s (%s–%s)\n", streamRuns, msec(percentile(p50s, 50)),
		msec(p50s[0]), msec(p50s[len(p50s)-1]), msec(percentile(p99s, 50)), msec(p99s[0]), msec(p99s[len(p99s)-1]))
	return nil
}

// streamRun posts as the author of token for a run's time and collects
// when each post reaches each client.
func (b *bench) streamRun(ctx context.Context, l *listeners, token string) (streamRun, error) {
	var run streamRun
	began := time.Now()
	for p := 0; p < streamMinPosts || time.Since(began) < b.opts.Duration/streamRuns; p++ {
		start := time.Now()
		id, err := postStatus(ctx, b.opts.URL, token, fmt.Sprintf("live post %d, of a realistic length for a status update", p))
		if err != nil {
			return run, err
		}
		var last time.Duration
		got, timeout := 0, time.After(streamWait)
	collect:
		for got < l.n {
			select {
			case a := <-l.arrivals:
				if a.id == id { // else a straggler of an earlier post
					d := a.at.Sub(start)
					run.delays, last, got = append(run.delays, d), max(last, d), got+1
				}
			case err := <-l.failed:
				return run, fmt.Errorf("a stream ended: %w", err)
			case <-timeout:
				run.missing += l.n - got
				break collect
			}
		}
		run.last = append(run.last, last)
		time.Sleep(streamPause)
	}
	slices.Sort(run.delays)
	slices.Sort(run.last)
	return run, nil
}

// listeners are the open streams of a measurement.
type listeners struct {
	n        int
	client   *http.Client // without a timeout: streams last
	arrivals chan arrival
	failed   chan error
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// arrival is an update that reached a client.
type arrival struct {
	id string
	at time.Time
}

// close ends the streams.
func (l *listeners) close() {
	l.cancel()
	l.wg.Wait()
}

// openStreams opens a stream at path per connection, with its session
// cookie, and returns once every one is listening.
func (b *bench) openStreamsec(ctx context.Context, path string) (*listeners, error) {
	ctx, cancel := context.WithCancel(ctx)
	l := &listeners{n: b.opts.Connections, arrivals: make(chan arrival, 4*b.opts.Connections),
		failed: make(chan error, b.opts.Connections), cancel: cancel,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}}
	opened := make(chan error, b.opts.Connections)
	slots := make(chan struct{}, streamOpening)
	for i := range b.opts.Connections {
		slots <- struct{}{}
		l.wg.Go(func() { l.listen(ctx, b.opts.URL+path, b.cookies[i], opened, slots) })
	}
	var errs []error
	for range b.opts.Connections {
		errs = append(errs, <-opened)
	}
	if err := errors.Join(errs...); err != nil {
		l.close()
		return nil, fmt.Errorf("open the streams: %w", err)
	}
	return l, nil
}

// listen opens one stream and notes the updates it brings until ctx
// ends. It says on opened when the stream listens (or could not open),
// and then frees its slot.
func (l *listeners) listen(ctx context.Context, u, cookie string, opened chan<- error, slot <-chan struct{}) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		opened <- err
		<-slot
		return
	}
	req.AddCookie(&http.Cookie{Name: retwis.SessionCookie, Value: cookie})
	res, err := l.client.Do(req)
	if err == nil && res.StatusCode != http.StatusOK {
		res.Body.Close()
		err = fmt.Errorf("%s answered %s", u, res.Status)
	}
	if err != nil {
		opened <- err
		<-slot
		return
	}
	defer res.Body.Close()
	r := bufio.NewReaderSize(res.Body, 64<<10)
	first, err := r.ReadString('\n') // ":)" once the server listens
	opened <- err
	<-slot
	if err != nil || first != ":)\n" {
		return
	}
	if err := l.read(ctx, r); ctx.Err() == nil {
		l.failed <- err
	}
}

// read notes the updates of a stream until it or ctx ends.
func (l *listeners) read(ctx context.Context, r *bufio.Reader) error {
	update := false
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		at := time.Now()
		switch {
		case string(line) == "event: update\n":
			update = true
		case update && strings.HasPrefix(string(line), "data: "):
			id, ok := statusID(line[len("data: "):])
			if !ok {
				return fmt.Errorf("an update without an id: %.100s", line)
			}
			select {
			case l.arrivals <- arrival{id: id, at: at}:
			case <-ctx.Done():
				return ctx.Err()
			}
			update = false
		}
	}
}

// statusID returns the id of a Status as the server encodes it, its
// first field: cheaper than decoding a thousand of them per post, which
// would load the machine that is measured.
func statusID(status []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(status, []byte(`{"id":"`))
	if i := bytes.IndexByte(rest, '"'); ok && i > 0 {
		return string(rest[:i]), true
	}
	return "", false
}

// postStatus posts status through the API and returns its id.
func postStatus(ctx context.Context, base, token, status string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/statuses",
		strings.NewReader(url.Values{"status": {status}}.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := noRedirects.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var st struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil || res.StatusCode != http.StatusOK || st.ID == "" {
		return "", fmt.Errorf("post: %s, %v", res.Status, err)
	}
	return st.ID, nil
}

// percentile returns the p-th percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)*p/100, len(sorted)-1)]
}
