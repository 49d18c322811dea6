package export

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/store"
	mediastore "github.com/retwis/retwis/internal/store/media"
)

// picture is a picture in the archive's media.json: its record, and the
// file in the archive that holds its original.
type picture struct {
	ID          string  `json:"id"`
	File        string  `json:"file,omitempty"` // media/<id>.<ext>; empty if its file is lost
	Type        string  `json:"type"`
	Purpose     string  `json:"purpose"` // post, avatar or header
	PostID      string  `json:"post_id,omitempty"`
	Description string  `json:"description,omitempty"` // the alt text
	FocusX      float64 `json:"focus_x"`
	FocusY      float64 `json:"focus_y"`
	Width       int     `json:"width"`
	Height      int     `json:"height"`
	Blurhash    string  `json:"blurhash,omitempty"`
	CreatedAt   string  `json:"created_at"`
}

// ArchiveName is the name the archive of u is downloaded as.
func ArchiveName(u retwis.User) string { return fmt.Sprintf("retwis-%s.zip", u.Username) }

// WriteArchive writes the export of u to w as a ZIP archive: the JSON
// document of Write (FileName), and, if m is not nil, media.json, the
// records of u's pictures (for posts, the avatar and the header: alt
// text, focus, size, the post each is attached to), and the original
// file of each under media/<id>.<ext>, one at a time. An error after the
// first byte leaves the archive without its directory, which an
// unzipper notices.
func WriteArchive(ctx context.Context, w io.Writer, st *store.Store, m *media.Service, u retwis.User) error {
	zw := zip.NewWriter(w)
	doc, err := zw.CreateHeader(&zip.FileHeader{Name: FileName(u), Method: zip.Deflate, Modified: time.Now()})
	if err != nil {
		return err
	}
	if err := Write(ctx, doc, st, u); err != nil {
		return err
	}
	if m != nil {
		if err := writeMedia(ctx, zw, m, u.ID); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeMedia writes media.json and the original file of each of uid's
// ready pictures, by id.
func writeMedia(ctx context.Context, zw *zip.Writer, m *media.Service, uid int64) error {
	recs, err := m.Records().All(ctx, uid)
	if err != nil {
		return err
	}
	var pics []picture
	for _, id := range slices.Sorted(maps.Keys(recs)) {
		r := recs[id]
		if r.State != mediastore.Ready {
			continue
		}
		p := pictureOf(r)
		if p.File, err = copyFile(ctx, zw, m, r.Attachment); err != nil {
			return err
		}
		pics = append(pics, p)
	}
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "media.json", Method: zip.Deflate, Modified: time.Now()})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", " ")
	return enc.Encode(struct {
		Pictures []picture `json:"pictures"`
	}{pics})
}

// pictureOf returns what media.json says of r.
func pictureOf(r mediastore.Record) picture {
	a := r.Attachment
	p := picture{ID: strconv.FormatInt(a.ID, 10), Type: retwis.MediaType(a.Ext), Purpose: r.Purpose, Description: a.Description,
		FocusX: a.FocusX, FocusY: a.FocusY, Width: a.Width, Height: a.Height, Blurhash: a.Blurhash,
		CreatedAt: time.Unix(r.Created, 0).UTC().Format(time.RFC3339)}
	if r.Status != 0 {
		p.PostID = strconv.FormatInt(r.Status, 10)
	}
	return p
}

// copyFile copies the original file of a into the archive as
// media/<id>.<ext>, stored as it is (a picture does not compress), and
// returns that name; "" if the file is lost.
func copyFile(ctx context.Context, zw *zip.Writer, m *media.Service, a retwis.Attachment) (string, error) {
	rc, _, err := m.Open(ctx, a.Blob())
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer rc.Close()
	name := "media/" + strconv.FormatInt(a.ID, 10) + "." + a.Ext
	f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: time.Now()})
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, rc); err != nil {
		return "", fmt.Errorf("export: %s: %w", a.Blob(), err)
	}
	return name, nil
}
