package media

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	mediastore "github.com/retwis/retwis/internal/store/media"
)

// CheckReport is what Check found: how many records and files it looked
// at, and the problems by kind.
type CheckReport struct {
	Records, Files int
	Problems       []CheckProblem
}

// CheckProblem is one kind of problem Check found, with up to a few
// examples.
type CheckProblem struct {
	What            string
	Count, Repaired int
	Examples        []string
}

// The kinds of problem Check finds.
const (
	// ProblemNoFiles: a ready record lacks one of its files or both; a
	// repair takes it out of its post (or off the avatar or header) and
	// drops it.
	ProblemNoFiles = "a picture's record whose files are missing"
	// ProblemNoRecord: files that no record names and that upkeep is not
	// about to remove; a repair deletes them.
	ProblemNoRecord = "files without a record"
	// ProblemStranded: a record attached to a post that is gone, which
	// upkeep does not know of; a repair hands it to upkeep.
	ProblemStranded = "a picture of a deleted post left behind"
)

// checkBatch is how many media without a record Check asks Redis about
// at once.
const checkBatch = 500

// checkExamples is how many examples a CheckProblem keeps.
const checkExamples = 5

// Check compares the media records in Redis with the files in the blob
// storage: a ready record whose files are missing, and files that no
// record names (but those upkeep is about to remove: a deleted account's,
// a deleted post's), are problems; with repair, the record is forgotten
// (mediastore.Store.Forget) and the files deleted. It lists every file
// first (its names are kept in memory, some 60 bytes each), then walks
// the records; a record made meanwhile is looked for again before its
// files count as unrecorded. Safe on a live instance.
func (m *Service) Check(ctx context.Context, repair bool) (CheckReport, error) {
	var rep CheckReport
	files := map[string]bool{}    // every file's name
	prefixes := map[string]bool{} // the media of every file ("<owner>/<id>/"): true once a record names it
	err := m.blobs.Walk(ctx, "", func(name string, _ int64) error {
		files[name] = true
		prefixes[mediaPrefix(name)] = false
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("media: check: list the files: %w", err)
	}
	rep.Files = len(files)
	noFiles, stranded := &CheckProblem{What: ProblemNoFiles}, &CheckProblem{What: ProblemStranded}
	err = m.st.WalkRecords(ctx, func(owner int64, recs map[int64]mediastore.Record) error {
		var attached []mediastore.Record
		for _, r := range recs {
			rep.Records++
			prefixes[r.Attachment.BlobPrefix()] = true
			if err := m.checkRecord(ctx, r, files, noFiles, repair); err != nil {
				return err
			}
			if r.Status != 0 {
				attached = append(attached, r)
			}
		}
		return m.checkStranded(ctx, attached, stranded, repair)
	})
	if err != nil {
		return rep, err
	}
	noRecord, err := m.checkFiles(ctx, prefixes, repair)
	for _, p := range []*CheckProblem{noFiles, stranded, noRecord} {
		if p.Count > 0 {
			rep.Problems = append(rep.Problems, *p)
		}
	}
	return rep, err
}

// mediaPrefix returns the "<owner>/<id>/" that blob name begins with
// (the name itself if it has no such beginning).
func mediaPrefix(name string) string {
	i := strings.IndexByte(name, '/')
	if i < 0 {
		return name
	}
	j := strings.IndexByte(name[i+1:], '/')
	if j < 0 {
		return name
	}
	return name[:i+1+j+1]
}

// checkRecord counts r in p if it is ready and one of its files is
// missing from files (forgetting it, with repair).
func (m *Service) checkRecord(ctx context.Context, r mediastore.Record, files map[string]bool, p *CheckProblem, repair bool) error {
	if r.State != mediastore.Ready {
		return nil
	}
	a := r.Attachment
	var missing []string
	for _, name := range []string{a.Blob(), a.SmallBlob()} {
		if !files[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	p.add(fmt.Sprintf("media %d of user %d (%s, post %d): %s missing", a.ID, a.Owner, r.Purpose, r.Status, strings.Join(missing, ", ")))
	if repair {
		if err := m.st.Forget(ctx, r); err != nil {
			return err
		}
		p.Repaired++
	}
	return nil
}

// checkStranded counts in p those of attached (records attached to a
// post) that a deleted post left behind, unknown to upkeep (handed to it,
// with repair).
func (m *Service) checkStranded(ctx context.Context, attached []mediastore.Record, p *CheckProblem, repair bool) error {
	if len(attached) == 0 {
		return nil
	}
	left, err := m.st.Stranded(ctx, attached)
	if err != nil || len(left) == 0 {
		return err
	}
	for _, r := range left {
		p.add(fmt.Sprintf("media %d of user %d (post %d)", r.Attachment.ID, r.Attachment.Owner, r.Status))
	}
	if repair {
		if err := m.st.HandToUpkeep(ctx, left); err != nil {
			return err
		}
		p.Repaired += len(left)
	}
	return nil
}

// checkFiles looks again, checkBatch at a time, for the records of the
// media of prefixes that none named during the walk, and returns those
// still without one (their files deleted, with repair).
func (m *Service) checkFiles(ctx context.Context, prefixes map[string]bool, repair bool) (*CheckProblem, error) {
	p := &CheckProblem{What: ProblemNoRecord}
	var batch []mediastore.Ref
	flush := func() error {
		none, err := m.st.Unaccounted(ctx, batch)
		if err != nil {
			return err
		}
		for _, r := range none {
			prefix := strconv.FormatInt(r.Owner, 10) + "/" + strconv.FormatInt(r.ID, 10) + "/"
			p.add(prefix)
			if repair {
				if err := m.blobs.Delete(ctx, prefix); err != nil {
					return fmt.Errorf("media: check: delete %s: %w", prefix, err)
				}
				p.Repaired++
			}
		}
		batch = batch[:0]
		return nil
	}
	for prefix, named := range prefixes {
		if named {
			continue
		}
		r, ok := parsePrefix(prefix)
		if !ok { // not a media's file (a bucket may hold others): none of the check's business
			continue
		}
		if batch = append(batch, r); len(batch) == checkBatch {
			if err := flush(); err != nil {
				return p, err
			}
		}
	}
	if len(batch) == 0 {
		return p, nil
	}
	return p, flush()
}

// parsePrefix reads "<owner>/<id>/".
func parsePrefix(prefix string) (mediastore.Ref, bool) {
	o, rest, ok1 := strings.Cut(prefix, "/")
	id, _, ok2 := strings.Cut(rest, "/")
	owner, err1 := strconv.ParseInt(o, 10, 64)
	mid, err2 := strconv.ParseInt(id, 10, 64)
	return mediastore.Ref{Owner: owner, ID: mid}, ok1 && ok2 && err1 == nil && err2 == nil && mid > 0
}

// add counts one more problem, keeping it as an example if there are
// few yet.
func (p *CheckProblem) add(example string) {
	p.Count++
	if len(p.Examples) < checkExamples {
		p.Examples = append(p.Examples, example)
	}
}
