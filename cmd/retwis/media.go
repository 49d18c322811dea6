package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
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
	quota   byteSize    // what one account's files may weigh; 0: no bound
	workers int         // pictures processed at once; 0: half the cores
	uploads retwis.Rate // uploads per account
}

// The defaults of the media service's bounds.
var (
	defaultMediaQuota = byteSize(1 << 30)
	defaultUploadRate = retwis.Rate{Count: 30, Per: time.Hour}
)

// errNoMediaStorage is the error of a configuration without storage.
var errNoMediaStorage = errors.New("no media storage: give --media-dir or --media-s3")

// migrateProgressGap is how many files `retwis media migrate` looks at
// between two lines of its progress.
const migrateProgressGap = 1000

// registerStorage defines the flags of the media's storage.
func (c *mediaConfig) registerStorage(fs *flag.FlagSet, dirHelp string) {
	fs.StringVar(&c.dir, "media-dir", "", envHelp(dirHelp, "RETWIS_MEDIA_DIR"))
	fs.StringVar(&c.s3.Endpoint, "media-s3", "", envHelp(
		"keep the media's files in an S3-compatible object store at this `URL` (http://127.0.0.1:8333, https://s3.eu-west-1.amazonaws.com) "+
			"instead of a directory: for several servers", "RETWIS_MEDIA_S3"))
	fs.StringVar(&c.s3.Bucket, "media-s3-bucket", "retwis-media", envHelp("the S3 `bucket` of the media's files (created if missing)", "RETWIS_MEDIA_S3_BUCKET"))
	fs.StringVar(&c.s3.AccessKey, "media-s3-access-key", "", envHelp("the S3 access `key`", "RETWIS_MEDIA_S3_ACCESS_KEY", "AWS_ACCESS_KEY_ID"))
	fs.StringVar(&c.s3.SecretKey, "media-s3-secret-key", "", envHelp(
		"the S3 secret `key` (better given by its variable than on the command line, where other users see it)",
		"RETWIS_MEDIA_S3_SECRET_KEY", "AWS_SECRET_ACCESS_KEY"))
	fs.StringVar(&c.s3.Region, "media-s3-region", "", envHelp("the S3 bucket's `region` (empty: asked of the store)", "RETWIS_MEDIA_S3_REGION"))
	fs.StringVar(&c.s3.Prefix, "media-s3-prefix", "", envHelp(
		"put the media's objects under this `prefix` of the bucket (empty: at its root)", "RETWIS_MEDIA_S3_PREFIX"))
}

// register defines the flags of a server's media: the storage, the
// quota, the workers and the rate of uploads.
func (c *mediaConfig) register(fs *flag.FlagSet) {
	c.registerStorage(fs, "the `directory` of the media's files (pictures, avatars, headers); empty: the directory media of --data-dir")
	c.quota = defaultMediaQuota
	fs.Var(&c.quota, "media-quota", envHelp(
		"what the pictures of one account may weigh together (`SIZE`: 500MB, 1GB, or bytes; 0: no bound)", "RETWIS_MEDIA_QUOTA"))
	fs.IntVar(&c.workers, "media-workers", 0, envHelp(
		"pictures processed at once (`count`); more wait in a short queue, beyond which uploads are refused as too many; "+
			"0: half the cores", "RETWIS_MEDIA_WORKERS"))
	rateVar(fs, &c.uploads, "rate-uploads", defaultUploadRate, envHelp(
		"uploads of pictures per account, avatars and headers included (`COUNT/DURATION`, or off)", "RETWIS_RATE_UPLOADS"))
}

// check refuses values the flags parse but the service cannot work with.
func (c *mediaConfig) check() error {
	switch {
	case c.workers < 0:
		return errors.New("--media-workers must be 0 (half the cores) or more")
	case c.s3.Endpoint != "" && c.s3.Bucket == "":
		return errors.New("--media-s3 needs --media-s3-bucket")
	}
	return nil
}

// blobs opens the configured storage: the bucket if --media-s3 is set,
// else the directory (--media-dir, or else media under dataDir).
func (c *mediaConfig) blobs(ctx context.Context, dataDir string) (media.Blobs, string, error) {
	if c.s3.Endpoint != "" {
		s, err := s3blobs.New(ctx, c.s3)
		if err != nil {
			return nil, "", fmt.Errorf("--media-s3: %w", err)
		}
		return s, c.s3.Endpoint + "/" + c.s3.Bucket, nil
	}
	dir := c.dir
	if dir == "" {
		if dataDir == "" {
			return nil, "", errNoMediaStorage
		}
		dir = filepath.Join(dataDir, "media")
	}
	s, err := dirblobs.New(dir)
	if err != nil {
		return nil, "", fmt.Errorf("--media-dir: %w", err)
	}
	return s, s.Dir(), nil
}

// service opens the storage and returns the media service on st; the
// caller closes it.
func (c *mediaConfig) service(ctx context.Context, st *store.Store, dataDir string, rateLimits bool, log *slog.Logger) (*media.Service, error) {
	blobs, where, err := c.blobs(ctx, dataDir)
	if err != nil {
		return nil, err
	}
	opts := media.Options{Quota: int64(c.quota), UploadRate: c.uploads, Workers: c.workers, Log: log}
	if !rateLimits {
		opts.UploadRate = retwis.Rate{}
	}
	log.Info("media storage", "at", where)
	return media.New(st, blobs, opts), nil
}

// sweepMedia removes the files of the media nothing uses any longer
// (media.Service.Sweep), a step of the maintenance round.
func sweepMedia(ctx context.Context, m *media.Service, log *slog.Logger) error {
	n, err := m.Sweep(ctx, time.Now())
	if n > 0 {
		log.Info("maintenance", "media_removed", n)
	}
	if err != nil {
		return fmt.Errorf("media sweep: %w", err)
	}
	return nil
}

// mediaKind is the kind of `retwis check` that checks the media.
const mediaKind = "media"

// checkMedia compares the media's records with their files in the
// storage of cfg (media.Service.Check), repairing what it finds with
// repair, writes what it found as printCheck does, and returns the
// problems.
func checkMedia(ctx context.Context, st *store.Store, cfg mediaConfig, repair bool, w io.Writer) ([]check.Problem, error) {
	blobs, where, err := cfg.blobs(ctx, "")
	if err != nil {
		return nil, err
	}
	m := media.New(st, blobs, media.Options{Workers: 1})
	defer m.Close()
	start := time.Now()
	rep, err := m.Check(ctx, repair)
	if err != nil {
		return nil, err
	}
	problems := make([]check.Problem, len(rep.Problems))
	for i, p := range rep.Problems {
		problems[i] = check.Problem{Kind: mediaKind, What: p.What, Count: int64(p.Count), Repaired: int64(p.Repaired), Examples: p.Examples}
	}
	fmt.Fprintf(w, "checked %s media records and %s files of %s in %s\n", thousands(rep.Records), thousands(rep.Files), where,
		time.Since(start).Round(time.Millisecond))
	printProblems(w, problems, repair)
	return problems, nil
}

// byteSize is a flag.Value of a number of bytes, written with a unit
// (500MB, 1.5GB; KB, MB, GB and TB of 1,024) or without (bytes).
type byteSize int64

// String writes n in the largest unit that divides it.
func (n *byteSize) String() string {
	if n == nil {
		return ""
	}
	v := int64(*n)
	for _, u := range []string{"TB", "GB", "MB", "KB"} {
		if unit := byteUnits[u]; v != 0 && v%unit == 0 {
			return strconv.FormatInt(v/unit, 10) + u
		}
	}
	return strconv.FormatInt(v, 10)
}

// byteUnits are the units byteSize reads.
var byteUnits = map[string]int64{"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}

// Set reads a size: a number, optionally followed by a unit.
func (n *byteSize) Set(s string) error {
	t := strings.ToUpper(strings.TrimSpace(s))
	num := strings.TrimRight(t, "KMGTB ")
	unit := int64(1)
	if u := strings.TrimSpace(t[len(num):]); u != "" {
		var ok bool
		if unit, ok = byteUnits[u]; !ok {
			return fmt.Errorf("%q: the unit must be B, KB, MB, GB or TB", s)
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || v*float64(unit) >= 1<<62 {
		return fmt.Errorf("%q is not a size (500MB, 1GB, or bytes)", s)
	}
	*n = byteSize(v * float64(unit))
	return nil
}

// runMedia runs an action on the media's files: migrate, which copies
// every file of the directory --from-dir to the configured storage
// (media.Copy), those it holds already skipped, so that a copy cut short
// resumes where it stopped, showing its progress on stderr.
func runMedia(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg mediaConfig
	var from string
	fs := newFlagSet("media", stderr)
	fs.StringVar(&from, "from-dir", "", "the `directory` the media's files are in now (a server's --media-dir)")
	cfg.registerStorage(fs, "copy to this `directory` (when not to --media-s3)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: retwis media migrate --from-dir DIR (--media-s3 URL … | --media-dir DIR)\n\n"+
			"Copies the media's files from a directory to another storage; run again, it copies only what is missing.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 || fs.Arg(0) != "migrate" {
		return usageError(fs, "the action must be migrate")
	}
	if err := fs.Parse(fs.Args()[1:]); err != nil { // the flags after the action
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	switch {
	case fs.NArg() > 0:
		return usageError(fs, "unexpected argument %q", fs.Arg(0))
	case from == "":
		return usageError(fs, "--from-dir is needed")
	case cfg.s3.Endpoint == "" && cfg.dir == "":
		return usageError(fs, "give where to copy to: --media-s3 (and its bucket and keys) or --media-dir")
	case cfg.s3.Endpoint == "" && filepath.Clean(cfg.dir) == filepath.Clean(from):
		return usageError(fs, "--from-dir and --media-dir are the same directory")
	}
	if err := cfg.check(); err != nil {
		return usageError(fs, "%v", err)
	}
	src, err := dirblobs.New(from)
	if err != nil {
		return err
	}
	dst, where, err := cfg.blobs(ctx, "")
	if err != nil {
		return err
	}
	return migrate(ctx, dst, src, from, where, stderr, migrateProgressGap)
}

// migrate copies src (at from) to dst (at to), writing its progress to w
// every so many files, and at the end.
func migrate(ctx context.Context, dst, src media.Blobs, from, to string, w io.Writer, every int) error {
	total := 0
	if err := src.Walk(ctx, "", func(string, int64) error { total++; return nil }); err != nil {
		return fmt.Errorf("list %s: %w", from, err)
	}
	fmt.Fprintf(w, "copying %s files from %s to %s\n", thousands(total), from, to)
	start := time.Now()
	copied, err := media.Copy(ctx, dst, src, func(seen, copied int) {
		if seen%every == 0 {
			fmt.Fprintf(w, "copied %s of %s (%s looked at)\n", thousands(copied), thousands(total), thousands(seen))
		}
	})
	fmt.Fprintf(w, "copied %s of %s files in %s (the others were there already)\n",
		thousands(copied), thousands(total), time.Since(start).Round(time.Millisecond))
	if err != nil {
		return fmt.Errorf("%w; run it again to go on where it stopped", err)
	}
	return nil
}

// thousands writes n with commas between its groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
