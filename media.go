package retwis

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Attachment is a picture: attached to a post (up to MaxAttachments),
// uploaded for one and not attached yet, or a user's avatar or header.
// Its files (blobs) are the re-encoded original, at most MaxMediaSide on
// its long side, and a small copy, at most SmallMediaSide: both named by
// owner and id (BlobPrefix), so that a retry writes them again rather
// than twice, and by Secret, so that the files of a post only some may
// read cannot be found by guessing ids; served under MediaPrefix.
type Attachment struct {
	ID    int64 `json:"id,string"`
	Owner int64 `json:"o,string"`
	// Secret is random, chosen when the upload begins (hex; "" in
	// attachments of before it was).
	Secret string `json:"k,omitempty"`
	// Ext and SmallExt are the extensions of the files ("jpg", "png",
	// "gif"), which tell their content types (MediaType).
	Ext      string `json:"e"`
	SmallExt string `json:"se"`
	// Width and Height are the original's size in pixels, SmallWidth
	// and SmallHeight the small copy's.
	Width       int `json:"w"`
	Height      int `json:"h"`
	SmallWidth  int `json:"sw"`
	SmallHeight int `json:"sh"`
	// Animated is set for an animated GIF (Mastodon's "gifv").
	Animated bool `json:"a,omitempty"`
	// Bytes is what both files weigh together.
	Bytes int64 `json:"b"`
	// Blurhash is a compact placeholder of the picture
	// (https://blurha.sh), shown while it loads or while it is hidden.
	Blurhash string `json:"bh,omitempty"`
	// Description is the alt text (at most MaxDescriptionChars).
	Description string `json:"d,omitempty"`
	// FocusX and FocusY are the focal point, each in [-1, 1] (0, 0: the
	// centre), which croppers keep in view.
	FocusX float64 `json:"fx,omitempty"`
	FocusY float64 `json:"fy,omitempty"`
}

// Limits of media.
const (
	MaxAttachments      = 4    // pictures per post
	MaxDescriptionChars = 1500 // alt text, in characters
	MaxMediaSide        = 1920 // the original's long side, in pixels
	SmallMediaSide      = 400  // the small copy's long side
	MediaPrefix         = "/media/"
)

// BlobPrefix is the prefix of the names of a's files (and of no other
// attachment's): "<owner>/<id>/".
func (a Attachment) BlobPrefix() string {
	return strconv.FormatInt(a.Owner, 10) + "/" + strconv.FormatInt(a.ID, 10) + "/"
}

// Blob is the name of a's original file; SmallBlob its small copy's.
func (a Attachment) Blob() string      { return a.BlobPrefix() + a.secret() + "original." + a.Ext }
func (a Attachment) SmallBlob() string { return a.BlobPrefix() + a.secret() + "small." + a.SmallExt }

// secret is what begins a's files' own names.
func (a Attachment) secret() string {
	if a.Secret == "" {
		return ""
	}
	return a.Secret + "-"
}

// Path and SmallPath are where a's files are served, from the site's
// root.
func (a Attachment) Path() string      { return MediaPrefix + a.Blob() }
func (a Attachment) SmallPath() string { return MediaPrefix + a.SmallBlob() }

// Ready reports whether a's files are made (an upload being processed
// has none yet).
func (a Attachment) Ready() bool { return a.Ext != "" }

// MediaType is the content type of a file with extension ext ("": not
// one retwis makes).
func MediaType(ext string) string {
	switch ext {
	case "jpg":
		return "image/jpeg"
	case "png":
		return "image/png"
	case "gif":
		return "image/gif"
	}
	return ""
}

// AvatarPath is where user uid's avatar is served, whatever it is: the
// picture they uploaded or, without one, a picture made from their id
// (distinct for each account).
func AvatarPath(uid int64) string { return "/avatars/" + strconv.FormatInt(uid, 10) }

// HeaderPath is the header of an account without one.
const HeaderPath = "/static/header.png"

// Card is the preview of a link in a post, made from the page's
// OpenGraph or oEmbed data when the post was delivered.
type Card struct {
	URL          string `json:"u"`
	Title        string `json:"t"`
	Description  string `json:"d,omitempty"`
	Type         string `json:"k,omitempty"` // Mastodon's: "link" (the zero value) or "photo"
	ProviderName string `json:"pn,omitempty"`
	ProviderURL  string `json:"pu,omitempty"`
	AuthorName   string `json:"an,omitempty"`
	AuthorURL    string `json:"au,omitempty"`
	// Image is the page's picture as retwis keeps it (nil: none).
	Image *Attachment `json:"i,omitempty"`
}

// EncodeAttachments is how a post or a user hash keeps attachments
// ("" for none); DecodeAttachments reads them back, nil for "" or a
// value that does not parse.
func EncodeAttachments(as []Attachment) string {
	if len(as) == 0 {
		return ""
	}
	b, _ := json.Marshal(as) // plain data: cannot fail
	return string(b)
}

// DecodeAttachments: see EncodeAttachments.
func DecodeAttachments(s string) []Attachment {
	if s == "" {
		return nil
	}
	var as []Attachment
	if json.Unmarshal([]byte(s), &as) != nil {
		return nil
	}
	return as
}

// EncodeCard is how a post hash keeps its card; DecodeCard reads it
// back, nil for "" or a value that does not parse.
func EncodeCard(c Card) string {
	b, _ := json.Marshal(c) // plain data: cannot fail
	return string(b)
}

// DecodeCard: see EncodeCard.
func DecodeCard(s string) *Card {
	if s == "" {
		return nil
	}
	var c Card
	if json.Unmarshal([]byte(s), &c) != nil || c.URL == "" {
		return nil
	}
	return &c
}

// NormalizeDescription checks alt text d: trimmed, at most
// MaxDescriptionChars characters, else an Invalid error.
func NormalizeDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	if n := len([]rune(d)); n > MaxDescriptionChars {
		return "", Errorf(Invalid, "A description may have at most %d characters; this one has %d.", MaxDescriptionChars, n)
	}
	return d, nil
}

// ParseFocus reads a focal point as Mastodon's apps send it, "x,y" with
// each in [-1, 1] ("" is the centre).
func ParseFocus(s string) (x, y float64, err error) {
	if s == "" {
		return 0, 0, nil
	}
	xs, ys, ok := strings.Cut(s, ",")
	x, err1 := strconv.ParseFloat(strings.TrimSpace(xs), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(ys), 64)
	if !ok || err1 != nil || err2 != nil || x < -1 || x > 1 || y < -1 || y > 1 || x != x || y != y {
		return 0, 0, Errorf(Invalid, "The focus must be two numbers from -1 to 1, as in \"0.5,-0.25\".")
	}
	return x, y, nil
}
