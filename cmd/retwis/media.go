package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/media/dirblobs"
	"github.com/retwis/retwis/internal/media/s3blobs"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/check"
)

// mediaConfig is where the media's files are kept (a directory, or an
// S3-compatible bucket when s3.Endpoint is set) and, for a server, the
// bounds of the media service.
type mediaConfig struct {
	dir     string // the directory of the files; "": <--data-dir>/media
	s3      s3blobs.Options
	quota   int64       // what one account's files may weigh; 0: no bound
	workers int         // pictures processed at once; 0: half the cores
	uploads retwis.Rate // uploads per account
}

// mediaKind is the kind of `retwis check` that checks the media.
const mediaKind = "media"

// registerStorage defines the flags of the media's storage.
func (c *mediaConfig) registerStorage(fs *flag.FlagSet, dirHelp string) {
	fs.StringVar(&c.dir, "media-dir", "", envHelp(dirHelp, "RETWIS_MEDIA_DIR"))
	fs.StringVar(&c.s3.Endpoint, "media-s3", "", envHelp("keep the media's files in an S3-compatible object store at this `URL` (http://127.0.0.1:8333, https://s3.eu-west-1.amazonaws.com) instead of a directory: for several servers", "RETWIS_MEDIA_S3"))
	fs.StringVar(&c.s3.Bucket, "media-s3-bucket", "retwis-media", envHelp("the S3 `bucket` (created if missing)", "RETWIS_MEDIA_S3_BUCKET"))
	fs.StringVar(&c.s3.AccessKey, "media-s3-access-key", "", envHelp("the S3 access `key`", "RETWIS_MEDIA_S3_ACCESS_KEY", "AWS_ACCESS_KEY_ID"))
	fs.StringVar(&c.s3.SecretKey, "media-s3-secret-key", "", envHelp("the S3 secret `key` (better given by its variable: other users see command lines)", "RETWIS_MEDIA_S3_SECRET_KEY", "AWS_SECRET_ACCESS_KEY"))
	fs.StringVar(&c.s3.Region, "media-s3-region", "", envHelp("the S3 bucket's `region` (empty: asked of the store)", "RETWIS_MEDIA_S3_REGION"))
	fs.StringVar(&c.s3.Prefix, "media-s3-prefix", "", envHelp("keep the objects under this `prefix` of the bucket", "RETWIS_MEDIA_S3_PREFIX"))
}

// register defines the flags of a server's media: the storage, the
// quota, the workers and the rate of uploads.
func (c *mediaConfig) register(fs *flag.FlagSet) {
	c.registerStorage(fs, "the `directory` of the media's files (pictures, avatars, headers); empty: media under --data-dir")
	c.quota = 1 << 30
	fs.Func("media-quota", envHelp("what the pictures of one account may weigh together (`SIZE`: 500MB, 1GB, or bytes; 0: no bound; default 1GB)", "RETWIS_MEDIA_QUOTA"),
		func(s string) (err error) { c.quota, err = retwis.ParseSize(s); return err })
	fs.IntVar(&c.workers, "media-workers", 0, envHelp("pictures processed at once (`count`); four times as many wait, more are refused as too many; 0 or less: half the cores", "RETWIS_MEDIA_WORKERS"))
	rateVar(fs, &c.uploads, "rate-uploads", retwis.Rate{Count: 30, Per: time.Hour}, envHelp("uploads of pictures per account, avatars and headers included (`COUNT/DURATION`, or off)", "RETWIS_RATE_UPLOADS"))
}

// blobs opens the configured storage, and says where it is: the bucket
// if --media-s3 is set, else the directory (--media-dir, or else media
// under dataDir).
func (c *mediaConfig) blobs(ctx context.Context, dataDir string) (media.Blobs, string, error) {
	if c.s3.Endpoint != "" {
		s, err := s3blobs.New(ctx, c.s3)
		if err != nil {
			return nil, "", fmt.Errorf("--media-s3: %w", err)
		}
		return s, c.s3.Endpoint + "/" + c.s3.Bucket, nil
	}
	s, err := dirblobs.New(cmp.Or(c.dir, filepath.Join(dataDir, "media")))
	if err != nil {
		return nil, "", fmt.Errorf("--media-dir: %w", err)
	}
	return s, s.Dir(), nil
}

// service opens the storage and returns the media service on st (no
// rate of uploads unless rateLimits); the caller closes it.
func (c *mediaConfig) service(ctx context.Context, st *store.Store, dataDir string, rateLimits bool, log *slog.Logger) (*media.Service, error) {
	blobs, where, err := c.blobs(ctx, dataDir)
	if err != nil {
		return nil, err
	}
	opts := media.Options{Quota: c.quota, UploadRate: c.uploads, Workers: c.workers, Log: log}
	if !rateLimits {
		opts.UploadRate = retwis.Rate{}
	}
	log.Info("media storage", "at", where)
	return media.New(st, blobs, opts), nil
}

// checkMedia runs media.Service.Check on the storage of cfg, writes what
// it found as printCheck does, and returns the problems.
func checkMedia(ctx context.Context, st *store.Store, cfg mediaConfig, repair bool, w io.Writer) ([]check.Problem, error) {
	blobs, where, err := cfg.blobs(ctx, "")
	if err != nil {
		return nil, err
	}
	m := media.New(st, blobs, media.Options{Workers: 1})
	defer m.Close()
	rep, err := m.Check(ctx, repair)
	var problems []check.Problem
	for _, p := range rep.Problems {
		problems = append(problems, check.Problem{Kind: mediaKind, What: p.What, Count: int64(p.Count), Repaired: int64(p.Repaired), Examples: p.Examples})
	}
	fmt.Fprintf(w, "checked %d media records and %d files of %s\n", rep.Records, rep.Files, where)
	printProblems(w, problems, repair)
	return problems, err
}

// runMedia runs `retwis media migrate`: it copies every file of the
// directory --from-dir to the configured storage (media.Migrate), those
// it holds already skipped, so that a copy cut short resumes where it
// stopped, showing its progress on stderr.
func runMedia(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg mediaConfig
	var from string
	fs := newFlagSet("media migrate", stderr)
	fs.StringVar(&from, "from-dir", "", "the `directory` the media's files are in now (a server's --media-dir)")
	cfg.registerStorage(fs, "copy to this `directory` (when not to --media-s3)")
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case action != "migrate":
		return usageError(fs, "the action must be migrate: retwis media migrate --from-dir DIR (--media-s3 URL … | --media-dir DIR)")
	case from == "":
		return usageError(fs, "--from-dir is needed")
	case cfg.s3.Endpoint == "" && cfg.dir == "":
		return usageError(fs, "give where to copy to: --media-s3 (and its bucket and keys) or --media-dir")
	case cfg.s3.Endpoint == "" && filepath.Clean(cfg.dir) == filepath.Clean(from):
		return usageError(fs, "--from-dir and --media-dir are the same directory")
	}
	src, err := dirblobs.New(from)
	if err != nil {
		return err
	}
	dst, where, err := cfg.blobs(ctx, "")
	if err != nil {
		return err
	}
	return media.Migrate(ctx, dst, src, from, where, stderr, 1000)
}
