package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/media/dirblobs"
	"github.com/retwis/retwis/internal/media/s3blobs"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/s3test"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// putFiles puts n media files (two per media) in a directory store at
// dir.
func putFiles(t *testing.T, dir string, n int) {
	t.Helper()
	src := must.Value(dirblobs.New(dir))(t)
	for i := range n {
		name := fmt.Sprintf("%d/%d/original.jpg", 1+i%3, 100+i)
		must.OK(t, src.Put(t.Context(), name, "image/jpeg", []byte(strings.Repeat("x", 10+i))))
	}
}

// migrateOut runs `retwis media` with args and returns its stderr,
// failing t unless its exit status is want.
func migrateOut(t *testing.T, want int, args ...string) string {
	t.Helper()
	var stderr syncbuf.Buffer
	if code := run(t.Context(), append([]string{"media"}, args...), io.Discard, &stderr); code != want {
		t.Fatalf("retwis media %s: status %d; want %d\n%s", strings.Join(args, " "), code, want, stderr.String())
	}
	return stderr.String()
}

// TestMediaMigrate copies a directory's files to another directory,
// showing its progress; run again, it copies only what is missing (a
// copy cut short resumes).
func TestMediaMigrate(t *testing.T) {
	t.Parallel()
	from, to := t.TempDir(), t.TempDir()
	putFiles(t, from, 12)
	out := migrateOut(t, 0, "migrate", "--from-dir", from, "--media-dir", to)
	for _, want := range []string{"copying 12 files from " + from + " to " + to, "copied 12 of 12 files"} {
		if !strings.Contains(out, want) {
			t.Errorf("the progress does not say %q:\n%s", want, out)
		}
	}
	dst := must.Value(dirblobs.New(to))(t)
	must.OK(t, dst.Delete(t.Context(), "2/"))
	if out := migrateOut(t, 0, "migrate", "--media-dir", to, "--from-dir", from); !strings.Contains(out, "copied 4 of 12 files") {
		t.Errorf("a second run (the files of one owner removed) says:\n%s", out)
	}
}

// TestMediaMigrateToS3 copies a directory's files to a real
// S3-compatible server, its secret key from the environment; run again,
// it copies only a file changed meanwhile.
func TestMediaMigrateToS3(t *testing.T) { // not in parallel: it sets the environment
	from := t.TempDir()
	putFiles(t, from, 12)
	b := s3test.NewServer(t).Bucket(t)
	t.Setenv("RETWIS_MEDIA_S3_SECRET_KEY", b.SecretKey)
	args := []string{"migrate", "--from-dir", from, "--media-s3", "http://" + b.Endpoint, "--media-s3-bucket", b.Name,
		"--media-s3-access-key", b.AccessKey, "--media-s3-region", b.Region, "--media-s3-prefix", "m"}
	if out := migrateOut(t, 0, args...); !strings.Contains(out, "copied 12 of 12 files") {
		t.Errorf("the copy to S3 says:\n%s", out)
	}
	changed := "longer than before"
	must.OK(t, must.Value(dirblobs.New(from))(t).Put(t.Context(), "3/102/original.jpg", "image/jpeg", []byte(changed)))
	if out := migrateOut(t, 0, args...); !strings.Contains(out, "copied 1 of 12 files") {
		t.Errorf("the second copy to S3 says:\n%s", out)
	}
	s3 := must.Value(s3blobs.New(context.Background(), s3blobs.Options{Endpoint: b.Endpoint, Bucket: b.Name,
		AccessKey: b.AccessKey, SecretKey: b.SecretKey, Region: b.Region, Prefix: "m"}))(t)
	rc, size, err := s3.Open(t.Context(), "3/102/original.jpg")
	must.OK(t, err)
	rc.Close()
	if size != int64(len(changed)) {
		t.Fatalf("the changed file has %d bytes in S3; want %d", size, len(changed))
	}
}

// TestMediaMigrateUsage refuses a migration without its source or
// destination.
func TestMediaMigrateUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for want, args := range map[string][]string{
		"--from-dir is needed":        {"migrate", "--media-dir", dir},
		"give where to copy to":       {"migrate", "--from-dir", dir},
		"are the same directory":      {"migrate", "--from-dir", dir, "--media-dir", dir + "/"},
		"the action must be migrate":  {"copy", "--from-dir", dir},
		"unexpected argument \"now\"": {"migrate", "--from-dir", dir, "--media-dir", t.TempDir(), "now"},
	} {
		if out := migrateOut(t, 2, args...); !strings.Contains(out, want) {
			t.Errorf("retwis media %s says %q; want %q", strings.Join(args, " "), out, want)
		}
	}
}

// TestMaintenanceSweepsMedia: a server's maintenance round removes the
// files of media nothing uses any longer (here an account that is gone)
// from its media storage, a directory or a real S3-compatible server.
func TestMaintenanceSweepsMedia(t *testing.T) {
	t.Parallel()
	t.Run("dir", func(t *testing.T) {
		t.Parallel()
		sweepsMedia(t, mediaConfig{dir: t.TempDir()})
	})
	t.Run("s3", func(t *testing.T) {
		t.Parallel()
		b := s3test.NewServer(t).Bucket(t)
		sweepsMedia(t, mediaConfig{s3: s3blobs.Options{Endpoint: b.Endpoint, Bucket: b.Name, AccessKey: b.AccessKey,
			SecretKey: b.SecretKey, Region: b.Region}})
	})
}

// sweepsMedia runs a server on the media storage of cfg and checks that
// its maintenance sweeps the files of an account that is gone, and no
// others.
func sweepsMedia(t *testing.T, cfg mediaConfig) {
	redis := redistest.Start(t)
	c := must.Value(redisconn.Dial(redis.URL))(t)
	defer c.Close()
	blobs, _, err := cfg.blobs(t.Context(), "")
	must.OK(t, err)
	for owner := 1; owner <= 3; owner++ {
		must.OK(t, blobs.Put(t.Context(), fmt.Sprintf("%d/10/original.jpg", owner), "image/jpeg", []byte("x")))
	}
	redistest.Do(t, c, "ZADD", schema.MediaPending, "0", schema.PendingMember(2, 0))
	_, stop := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, maintainEvery: 50 * time.Millisecond, media: cfg})
	defer stop()
	deadline := time.Now().Add(30 * time.Second) // generous: a loaded machine's rounds are slow
	for redistest.Do(t, c, "ZCARD", schema.MediaPending) != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the maintenance did not sweep the media")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var left []string
	must.OK(t, blobs.Walk(t.Context(), "", func(name string, _ int64) error { left = append(left, name); return nil }))
	if want := []string{"1/10/original.jpg", "3/10/original.jpg"}; !slices.Equal(left, want) {
		t.Errorf("the files left: %q; want %q (the account gone's swept)", left, want)
	}
}

// TestCheckMedia: retwis check, given the media's directory, reports the
// files that no record names with the other kinds' problems, and
// repairs them; --kinds media checks them alone, and needs the storage.
func TestCheckMedia(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	dir := t.TempDir()
	putFiles(t, dir, 1) // 1/100/original.jpg, of no record
	status, out, errs := runCheckCmd(t, "--redis", redis.URL, "--media-dir", dir, "--sizes", "0")
	for _, want := range []string{
		`(?m)^checked \d+ keys in `,
		`(?m)^checked 0 media records and 1 files of ` + regexp.QuoteMeta(dir) + `$`,
		`(?m)^media: files without a record: 1\n    1/100/$`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Fatalf("the check's report lacks %s:\n%s", want, out)
		}
	}
	if status != 1 || !strings.Contains(errs, "problems found") {
		t.Fatalf("a check that found media problems exited %d: %s", status, errs)
	}
	if status, out, errs := runCheckCmd(t, "--redis", redis.URL, "--media-dir", dir, "--kinds", "media", "--repair"); status != 0 ||
		!strings.Contains(out, "media: files without a record: 1 (repaired 1)") || strings.Contains(out, "keys in") {
		t.Fatalf("check --kinds media --repair: exit %d\n%s%s", status, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "1", "100", "original.jpg")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file without a record is still there: %v", err)
	}
	if status, _, errs := runCheckCmd(t, "--redis", redis.URL, "--kinds", "media"); status != 2 || !strings.Contains(errs, "--media-dir or --media-s3") {
		t.Fatalf("--kinds media without the storage: exit %d, %q", status, errs)
	}
}
