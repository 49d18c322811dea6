package entity

import (
	"strconv"

	"github.com/retwis/retwis"
)

// MediaAttachment is Mastodon's MediaAttachment. Every picture is of
// type "image": Mastodon's "gifv" is a video, and retwis serves an
// animated GIF as it is.
type MediaAttachment struct {
	ID               string    `json:"id"`
	Type             string    `json:"type"`
	URL              *string   `json:"url"`
	PreviewURL       *string   `json:"preview_url"`
	RemoteURL        *string   `json:"remote_url"`
	PreviewRemoteURL *string   `json:"preview_remote_url"`
	TextURL          *string   `json:"text_url"`
	Meta             MediaMeta `json:"meta"`
	Description      *string   `json:"description"`
	Blurhash         *string   `json:"blurhash"`
}

// MediaMeta is a MediaAttachment's meta: the sizes of its files, once
// made, and its focal point.
type MediaMeta struct {
	Original *MediaSize `json:"original,omitempty"`
	Small    *MediaSize `json:"small,omitempty"`
	Focus    MediaFocus `json:"focus"`
}

// MediaSize is the size of one file of a MediaAttachment.
type MediaSize struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Size   string  `json:"size"` // "640x480"
	Aspect float64 `json:"aspect"`
}

// MediaFocus is a MediaAttachment's focal point, each in [-1, 1].
type MediaFocus struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Media returns the entity of a: without its URLs, sizes and blurhash
// while it is processed (not Ready), as Mastodon's.
func (st Site) Media(a retwis.Attachment) MediaAttachment {
	m := MediaAttachment{ID: ID(a.ID), Type: "image", Meta: MediaMeta{Focus: MediaFocus{X: a.FocusX, Y: a.FocusY}}}
	if a.Description != "" {
		m.Description = &a.Description
	}
	if !a.Ready() {
		return m
	}
	url, preview := st.origin+a.Path(), st.origin+a.SmallPath()
	m.URL, m.PreviewURL = &url, &preview
	m.Meta.Original, m.Meta.Small = mediaSize(a.Width, a.Height), mediaSize(a.SmallWidth, a.SmallHeight)
	if a.Blurhash != "" {
		m.Blurhash = &a.Blurhash
	}
	return m
}

// mediaSize returns the MediaSize of a file of w by h pixels.
func mediaSize(w, h int) *MediaSize {
	s := &MediaSize{Width: w, Height: h, Size: strconv.Itoa(w) + "x" + strconv.Itoa(h)}
	if h > 0 {
		s.Aspect = float64(w) / float64(h)
	}
	return s
}

// MediaList returns the entities of as, [] for none.
func (st Site) MediaList(as []retwis.Attachment) []MediaAttachment {
	out := make([]MediaAttachment, len(as))
	for i, a := range as {
		out[i] = st.Media(a)
	}
	return out
}

// avatar and header are the URLs of the pictures of the account summed
// up in sum: those they uploaded, or the generated avatar and the
// default header.
func (st Site) avatar(sum retwis.Summary) string {
	if sum.Avatar != nil && sum.Avatar.Ready() {
		return st.origin + sum.Avatar.SmallPath()
	}
	return st.origin + retwis.AvatarPath(sum.User.ID)
}

func (st Site) header(sum retwis.Summary) string {
	if sum.Header != nil && sum.Header.Ready() {
		return st.origin + sum.Header.Path()
	}
	return st.origin + retwis.HeaderPath
}
