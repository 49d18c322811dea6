// Package media is the media service: pictures uploaded for posts, and
// accounts' avatars and headers, processed off the request path by a
// bounded pool of workers (package imaging), their files kept in a blob
// storage (Blobs: a directory, package dirblobs, or S3-compatible object
// storage, package s3blobs) and their records in Redis (package
// internal/store/media). It serves the files, and upkeep removes those
// nothing uses any longer (Sweep).
package media

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/bounded"
	"github.com/retwis/retwis/internal/media/imaging"
	"github.com/retwis/retwis/internal/store"
	mediastore "github.com/retwis/retwis/internal/store/media"
)

// Blobs keeps the files of media by name ("<owner>/<id>/original.jpg"…:
// retwis.Attachment.Blob).
type Blobs interface {
	// Put stores data under name with its content type, replacing what
	// was there (a retry writes the same name again).
	Put(ctx context.Context, name, contentType string, data []byte) error
	// Open returns the blob's content and size; an error wrapping
	// fs.ErrNotExist if there is none.
	Open(ctx context.Context, name string) (io.ReadCloser, int64, error)
	// Delete removes every blob whose name starts with prefix (a media's
	// "<owner>/<id>/", an account's "<owner>/"); none is not an error.
	Delete(ctx context.Context, prefix string) error
	// Walk calls fn with the name and size of every blob whose name
	// starts with prefix ("" for all), in name order, until fn returns
	// an error (returned).
	Walk(ctx context.Context, prefix string, fn func(name string, size int64) error) error
}

// Options configure a Service.
type Options struct {
	// Quota bounds what the files of one account's media weigh
	// together (0: no bound).
	Quota int64
	// UploadRate bounds each account's uploads (zero: no bound).
	UploadRate retwis.Rate
	// Workers is how many pictures are processed at once (0: half the
	// processors, at least one); Queue how many more may wait (0: four
	// per worker): an upload beyond is refused as too many.
	Workers, Queue int
	// Limits bound the work of one picture (zero: imaging's defaults).
	Limits imaging.Limits
	Log    *slog.Logger
}

// Service is the media service. Its methods are safe for concurrent
// use; Close stops its workers.
type Service struct {
	st    *mediastore.Store
	blobs Blobs
	opts  Options
	jobs  chan func()
	wg    sync.WaitGroup
	once  sync.Once
	// avatars keeps the avatars made from ids (each a few hundred bytes).
	avatars *bounded.Map[int64, []byte]
}

// New returns a Service keeping records through st and files in blobs,
// with its workers started.
func New(st *store.Store, blobs Blobs, opts Options) *Service {
	if opts.Workers <= 0 {
		opts.Workers = max(runtime.GOMAXPROCS(0)/2, 1)
	}
	if opts.Queue <= 0 {
		opts.Queue = 4 * opts.Workers
	}
	if opts.Limits == (imaging.Limits{}) {
		opts.Limits = imaging.DefaultLimits
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	m := &Service{st: mediastore.New(st), blobs: blobs, opts: opts, jobs: make(chan func(), opts.Queue),
		avatars: bounded.New[int64, []byte](avatarsKept)}
	for range opts.Workers {
		m.wg.Go(func() {
			for job := range m.jobs {
				job()
			}
		})
	}
	return m
}

// Close stops the workers once the pictures queued are processed.
func (m *Service) Close() error {
	m.once.Do(func() { close(m.jobs) })
	m.wg.Wait()
	return nil
}

// Records is the store of the media records.
func (m *Service) Records() *mediastore.Store { return m.st }

// Quota is the bound of what one account's media weigh (0: none).
func (m *Service) Quota() int64 { return m.opts.Quota }

// Limits are the bounds of one picture.
func (m *Service) Limits() imaging.Limits { return m.opts.Limits }

// avatarsKept is how many avatars made from ids a Service keeps.
const avatarsKept = 10_000

// processTimeout bounds the writes that follow the processing of one
// picture.
const processTimeout = time.Minute
