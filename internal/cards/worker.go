package cards

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/jobqueue"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// How long a URL's card is kept: a day, and an hour for a failure to
// fetch it, so that a flood of posts with one link fetches it once, and
// a page that was down is tried again later.
const (
	cardTTL = 24 * time.Hour
	failTTL = time.Hour
)

// queueKept is about how many jobs a stream of the queue keeps: past
// it, the oldest are dropped (a preview is worth less than the memory a
// queue without a worker would take).
const queueKept = 100_000

// JobCmd returns the XADD that queues the preview of link, in post pid
// of author (sent with the post's delivery).
func JobCmd(b rueidis.Builder, pid, author int64, link string) rueidis.Completed {
	return b.Xadd().Key(schema.CardQueueOf(pid)).Maxlen().Almost().Threshold(strconv.Itoa(queueKept)).Id("*").
		FieldValue().FieldValue(schema.CardPost, kernel.ID(pid)).FieldValue(schema.CardAuthor, kernel.ID(author)).
		FieldValue(schema.CardURL, link).Build()
}

// Streams are the streams of the queue of link previews.
func Streams() []string {
	streams := make([]string, schema.CardShards)
	for i := range streams {
		streams[i] = schema.CardQueue(i)
	}
	return streams
}

// Options configure a Worker.
type Options struct {
	FetchOptions
	// Consumer names this worker in the queue's consumer group (unique
	// per process).
	Consumer string
	// Fetches is how many links one worker fetches at once (8 when
	// zero).
	Fetches int
	// Log receives the jobs that could not be read and the fetches that
	// failed (slog.Default when nil).
	Log *slog.Logger
}

// Worker carries out the jobs of the queue of link previews.
type Worker struct {
	db   *kernel.DB
	f    *Fetcher
	opts Options
	q    *jobqueue.Queue
}

// claimIdle is how long a job may stay with a worker before another
// takes it over: a fetch is bounded by far less.
const claimIdle = time.Minute

// goneAfter is how long a consumer with no job pending has not read
// before a worker that starts removes it from the group.
const goneAfter = 10 * time.Minute

// New returns a Worker on db.
func New(db *kernel.DB, opts Options) *Worker {
	opts.Fetches = cmp.Or(opts.Fetches, 8)
	opts.Log = cmp.Or(opts.Log, slog.Default())
	w := &Worker{db: db, f: NewFetcher(opts.FetchOptions), opts: opts}
	w.q = jobqueue.New(db.C, jobqueue.Options{Streams: Streams(), Group: schema.CardGroup, Consumer: opts.Consumer,
		Handle: w.handle, Batch: 16, ClaimIdle: claimIdle, Block: 5 * time.Second, Parallel: 2,
		Drain: 10 * time.Second, Log: opts.Log})
	return w
}

// Run creates the consumer groups if need be and removes the workers
// gone for good, then makes previews until ctx is cancelled.
func (w *Worker) Run(ctx context.Context) error {
	for _, s := range Streams() {
		if err := w.q.EnsureGroup(ctx, s); err != nil {
			return fmt.Errorf("cards: consumer group on %s: %w", s, err)
		}
	}
	if _, err := w.q.RemoveGone(ctx, goneAfter); err != nil {
		w.opts.Log.Warn("cards: removing gone workers", "err", err)
	}
	w.q.Run(ctx)
	return nil
}

// handle carries out jobs: each link once (a flood of posts with one
// link fetches it once), up to Options.Fetches at once, then the cards
// written on the posts that still exist. A job whose Redis calls failed
// is left pending, to be tried again; a failed fetch is done (its URL
// cached as having no card).
func (w *Worker) handle(ctx context.Context, jobs []jobqueue.Job) error {
	posts := w.byLink(jobs)
	var mu sync.Mutex
	failed := jobqueue.JobErrors{}
	var cards []found
	fetches := make(chan struct{}, w.opts.Fetches)
	var wg sync.WaitGroup
	for link, js := range posts {
		fetches <- struct{}{}
		wg.Go(func() {
			defer func() { <-fetches }()
			c, err := w.card(ctx, link)
			mu.Lock()
			defer mu.Unlock()
			for _, j := range js {
				if err != nil {
					failed[j.Ref()] = err
				} else if c != nil {
					cards = append(cards, found{j, c})
				}
			}
		})
	}
	wg.Wait()
	w.write(ctx, cards, failed)
	if len(failed) == 0 {
		return nil
	}
	return failed
}

// found is a job and the card of its link.
type found struct {
	job  jobqueue.Job
	card *retwis.Card
}

// byLink returns the jobs by their link, dropping those that make no
// sense.
func (w *Worker) byLink(jobs []jobqueue.Job) map[string][]jobqueue.Job {
	links := map[string][]jobqueue.Job{}
	for _, j := range jobs {
		link := j.Fields[schema.CardURL]
		if _, err := strconv.ParseInt(j.Fields[schema.CardPost], 10, 64); err != nil || link == "" {
			w.opts.Log.Warn("cards: a job that is not one", "job", j.ID)
			continue
		}
		links[link] = append(links[link], j)
	}
	return links
}

// write sets the card of each post of cards that still exists (a
// deleted post does not come back as a hash with only its card), in one
// pipeline, recording in failed the jobs whose write failed.
func (w *Worker) write(ctx context.Context, cards []found, failed jobqueue.JobErrors) {
	if len(cards) == 0 {
		return
	}
	res := w.db.Pipeline(ctx, func() rueidis.Commands {
		cmds := make(rueidis.Commands, len(cards))
		for i, f := range cards {
			pid, _ := strconv.ParseInt(f.job.Fields[schema.CardPost], 10, 64)
			cmds[i] = kernel.SetIfExists.Cmd(w.db.C, []string{schema.Post(pid)}, schema.FieldCard, retwis.EncodeCard(*f.card))
		}
		return cmds
	})
	for i, r := range res {
		if err := r.Error(); err != nil {
			failed[cards[i].job.Ref()] = w.db.Wrap("cards: write", err)
		}
	}
}

// card returns the card of link, from the cache, or else fetched and
// cached: nil for a page without one, or that could not be fetched.
func (w *Worker) card(ctx context.Context, link string) (*retwis.Card, error) {
	key := schema.Card(link)
	v, err := w.db.C.Do(ctx, w.db.C.B().Get().Key(key).Build()).ToString()
	if err == nil {
		return retwis.DecodeCard(v), nil // CardNone decodes as nil
	}
	if !rueidis.IsRedisNil(err) {
		return nil, w.db.Wrap("cards: cache", err)
	}
	c, err := w.f.Fetch(ctx, link)
	if ctx.Err() != nil { // stopped: a failure of ours, not of the page
		return nil, ctx.Err()
	}
	value, ttl := schema.CardNone, cardTTL
	switch {
	case err != nil:
		w.opts.Log.Debug("cards: no preview", "url", link, "err", err)
		ttl = failTTL
	case c != nil:
		value = retwis.EncodeCard(*c)
	}
	err = w.db.C.Do(ctx, w.db.C.B().Set().Key(key).Value(value).Ex(ttl).Build()).Error()
	return c, w.db.Wrap("cards: cache", err)
}
