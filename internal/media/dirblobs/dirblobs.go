// Package dirblobs keeps the blobs of media as files in a directory: the
// default storage of a single server (what `make run` uses), one file per
// blob under its name ("<owner>/<id>/original.jpg" is the file
// <dir>/<owner>/<id>/original.jpg).
//
// A blob is written to a temporary file beside it, synced, then renamed
// over its name, so that a reader sees the whole old file or the whole new
// one, never half of either. Names are checked before any file is touched
// (ValidName), so that no name reaches outside the directory.
package dirblobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// MaxNameLen is the longest name a Store takes, in bytes.
const MaxNameLen = 255

// Store keeps blobs as files under a directory.
type Store struct {
	dir string
}

// New returns a Store of the files under dir, created (0o750) if it does
// not exist.
func New(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("dirblobs: create %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("dirblobs: %s: %w", dir, err)
	}
	return &Store{dir: abs}, nil
}

// Dir is the directory the Store keeps its files in.
func (s *Store) Dir() string { return s.dir }

// ValidName reports whether name may name a blob: not empty, at most
// MaxNameLen bytes of [0-9a-z._/-], relative, with no empty, "." or ".."
// element and no trailing slash.
func ValidName(name string) bool {
	return validPath(name) && !strings.HasSuffix(name, "/")
}

// validPath is ValidName but for a trailing slash, which a prefix may
// have.
func validPath(name string) bool {
	if name == "" || len(name) > MaxNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	for elem := range strings.SplitSeq(strings.TrimSuffix(name, "/"), "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}

// nameByte reports whether c may appear in a name.
func nameByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '.' || c == '_' || c == '-' || c == '/'
}

// file is the path of the file of name, or an error if name is not valid.
func (s *Store) file(name string) (string, error) {
	if !ValidName(name) {
		return "", fmt.Errorf("dirblobs: invalid blob name %q", name)
	}
	return filepath.Join(s.dir, filepath.FromSlash(name)), nil
}

// Put stores data under name, replacing what was there: written to a
// temporary file in the same directory, synced, and renamed over name.
// The content type is not kept: it follows from the name's extension.
func (s *Store) Put(ctx context.Context, name, contentType string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("dirblobs: put %s: %w", name, err)
	}
	file, err := s.file(name)
	if err != nil {
		return err
	}
	// A Delete beside may remove a folder that has just been made, empty
	// still: then it is made again.
	for try := 1; ; try++ {
		err = os.MkdirAll(filepath.Dir(file), 0o750)
		if err == nil {
			err = writeAtomic(file, data)
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) || try == 3 {
			return fmt.Errorf("dirblobs: put %s: %w", name, err)
		}
	}
}

// writeAtomic writes data to a temporary file beside file, syncs it and
// renames it to file; on failure the temporary file is removed.
func writeAtomic(file string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".put-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(0o640); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// Open returns the content of the blob name and its size; an error
// wrapping fs.ErrNotExist if there is none (a directory is none either).
func (s *Store) Open(ctx context.Context, name string) (io.ReadCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("dirblobs: open %s: %w", name, err)
	}
	file, err := s.file(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", err, fs.ErrNotExist)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, fmt.Errorf("dirblobs: open %s: %w", name, err)
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fs.ErrNotExist
	}
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("dirblobs: open %s: %w", name, err)
	}
	return f, info.Size(), nil
}

// Delete removes every blob whose name starts with prefix, then the
// directories it leaves empty; none is not an error.
func (s *Store) Delete(ctx context.Context, prefix string) error {
	var files []string
	err := s.Walk(ctx, prefix, func(name string, _ int64) error {
		files = append(files, name)
		return nil
	})
	if err != nil {
		return err
	}
	dirs := map[string]bool{}
	for _, name := range files {
		if err := os.Remove(filepath.Join(s.dir, filepath.FromSlash(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("dirblobs: delete %s: %w", name, err)
		}
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	s.removeEmpty(dirs)
	return nil
}

// removeEmpty removes those of dirs (names relative to the store) that
// are empty, children before their parents; one that is not empty stays.
func (s *Store) removeEmpty(dirs map[string]bool) {
	ordered := slices.Collect(maps.Keys(dirs))
	// A directory's name is longer than its parent's.
	slices.SortFunc(ordered, func(a, b string) int { return len(b) - len(a) })
	for _, d := range ordered {
		os.Remove(filepath.Join(s.dir, filepath.FromSlash(d)))
	}
}

// Walk calls fn with the name and size of every blob whose name starts
// with prefix ("" for all), in name order (bytewise, as S3 lists), until
// fn returns an error, which Walk returns. Temporary files of writes
// under way are not blobs.
func (s *Store) Walk(ctx context.Context, prefix string, fn func(name string, size int64) error) error {
	if prefix != "" && !validPath(prefix) && !validPath(prefix+"x") {
		return fmt.Errorf("dirblobs: invalid prefix %q", prefix)
	}
	dir := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dir = prefix[:i+1]
	}
	if err := s.walk(ctx, dir, prefix, fn); err != nil {
		return fmt.Errorf("dirblobs: walk %q: %w", prefix, err)
	}
	return nil
}

// walk calls fn for the blobs under dir ("" or a name ending in "/")
// whose names start with prefix, in name order. A directory's entries
// are sorted as the names they lead to ("a/" for a directory a), so that
// "a-b" comes before "a/c" as it does bytewise.
func (s *Store) walk(ctx context.Context, dir, prefix string, fn func(string, int64) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(s.dir, filepath.FromSlash(dir)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "."): // a write under way
		case e.IsDir():
			names = append(names, dir+e.Name()+"/")
		case e.Type().IsRegular():
			names = append(names, dir+e.Name())
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if err := s.visit(ctx, name, prefix, fn); err != nil {
			return err
		}
	}
	return nil
}

// visit walks name if it is a directory that may hold names starting
// with prefix, or calls fn for it if it is a blob whose name does.
func (s *Store) visit(ctx context.Context, name, prefix string, fn func(string, int64) error) error {
	if strings.HasSuffix(name, "/") {
		if !strings.HasPrefix(name, prefix) && !strings.HasPrefix(prefix, name) {
			return nil
		}
		return s.walk(ctx, name, prefix, fn)
	}
	if !strings.HasPrefix(name, prefix) {
		return nil
	}
	info, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	return fn(name, info.Size())
}
