package web

import (
	"context"
	"fmt"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/web/page"
)

// pictures counts the files of field in fs (a file input left empty is
// none).
func pictures(fs page.Files, field string) int {
	n := 0
	for _, data := range fs[field] {
		if data != nil {
			n++
		}
	}
	return n
}

// postMedia takes the pictures of a post's form, the files "media", each
// described by the "alt" of the same rank (alts), for uid: each is
// checked and uploaded, all are waited for, and it returns what the
// draft attaches (posts.Draft.Media and Attach). A picture refused is
// named by its rank.
func (s *Server) postMedia(ctx context.Context, uid int64, fs page.Files, alts []string) ([]retwis.Attachment, func(int64) rueidis.Commands, error) {
	n := pictures(fs, "media")
	switch {
	case n == 0:
		return nil, nil, nil
	case s.media == nil:
		return nil, nil, retwis.Errorf(retwis.Invalid, "This server takes no pictures.")
	case n > retwis.MaxAttachments:
		return nil, nil, retwis.Errorf(retwis.Invalid, "A post may have at most %d pictures.", retwis.MaxAttachments)
	}
	var ups []*media.Upload
	for i, data := range fs["media"] {
		if data == nil {
			continue
		}
		alt := ""
		if i < len(alts) {
			alt = alts[i]
		}
		u, err := s.media.Upload(ctx, uid, mediastore.ForPost, data, alt, 0, 0)
		if err != nil {
			return nil, nil, pictureErr(fmt.Sprintf("Picture %d", len(ups)+1), err)
		}
		ups = append(ups, u)
	}
	mids := make([]int64, len(ups))
	for i, u := range ups {
		a, err := s.media.Ready(ctx, u)
		if err != nil {
			return nil, nil, pictureErr(fmt.Sprintf("Picture %d", i+1), err)
		}
		mids[i] = a.ID
	}
	return s.media.ForPost(ctx, uid, mids, "")
}

// pictureErr names the picture err refused ("Picture 2", "Avatar") in
// its message.
func pictureErr(name string, err error) error {
	if retwis.ErrorKind(err) != retwis.Invalid {
		return err
	}
	return &retwis.Error{Kind: retwis.Invalid, Message: name + ": " + retwis.ErrorMessage(err), Err: err}
}
