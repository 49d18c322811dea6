// Package export writes the data of an account as one JSON document:
// its profile, every post newest first, whom it follows and who follows
// it; and the download of the settings page, a ZIP archive of that
// document with the account's pictures and their records. It is written
// as it is read, a page of posts or one picture at a time, so that an
// account of any size costs little memory.
package export

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
)

// page is how many posts or follows the export reads at a time.
const page = 200

// post is a post in the export.
type post struct {
	ID         string   `json:"id"`
	CreatedAt  string   `json:"created_at"`
	Text       string   `json:"text"`
	Warning    string   `json:"spoiler_text,omitempty"` // its content warning, if any
	Visibility string   `json:"visibility"`             // who sees it: public, unlisted, private or direct
	InReplyTo  string   `json:"in_reply_to,omitempty"`
	Media      []string `json:"media,omitempty"` // the ids of its pictures (the archive's media.json)
}

// follow is a follower or followed account in the export.
type follow struct {
	Username string `json:"username"`
	Since    string `json:"since"`
}

// FileName is the name the export of u is downloaded as.
func FileName(u retwis.User) string { return fmt.Sprintf("retwis-%s.json", u.Username) }

// Write writes the export of u to w. An error after the first byte
// leaves the document unfinished, which a JSON reader notices.
func Write(ctx context.Context, w io.Writer, st *store.Store, u retwis.User) error {
	name, bio, err := st.About(ctx, u.ID)
	if err != nil {
		return err
	}
	head, _ := json.Marshal(struct {
		Username    string `json:"username"`
		DisplayName string `json:"display_name"`
		Bio         string `json:"bio"`
		ExportedAt  string `json:"exported_at"`
	}{u.Username, name, bio, time.Now().UTC().Format(time.RFC3339)})
	io.WriteString(w, string(head[:len(head)-1])) // the object stays open for the lists
	if err := posts(ctx, w, st, u); err != nil {
		return err
	}
	if err := follows(ctx, w, "following", func(ctx context.Context, c retwis.Cursor) (retwis.FollowPage, error) {
		return st.Following(ctx, u.ID, c, page)
	}); err != nil {
		return err
	}
	if err := follows(ctx, w, "followers", func(ctx context.Context, c retwis.Cursor) (retwis.FollowPage, error) {
		return st.Followers(ctx, u.ID, c, page)
	}); err != nil {
		return err
	}
	_, err = io.WriteString(w, "}\n")
	return err
}

// posts writes the "posts" member: every post of u, newest first.
func posts(ctx context.Context, w io.Writer, st *store.Store, u retwis.User) error {
	io.WriteString(w, `,"posts":[`)
	enc := json.NewEncoder(w)
	first := true
	for c := (retwis.Cursor{}); ; {
		p, err := st.Profile(ctx, u.ID, u, c, page) // as its author sees them: every visibility
		if err != nil {
			return err
		}
		for _, pp := range p.Page.Posts {
			e := post{ID: strconv.FormatInt(pp.ID, 10), CreatedAt: pp.Time.UTC().Format(time.RFC3339), Text: pp.Body, Warning: pp.Warning,
				Visibility: pp.Visibility.String()}
			if pp.InReplyTo > 0 {
				e.InReplyTo = strconv.FormatInt(pp.InReplyTo, 10)
			}
			for _, a := range pp.Media {
				e.Media = append(e.Media, strconv.FormatInt(a.ID, 10))
			}
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		if !p.Page.Older || len(p.Page.Posts) == 0 {
			break
		}
		c = retwis.Cursor{Before: p.Page.Posts[len(p.Page.Posts)-1].ID}
	}
	_, err := io.WriteString(w, "]")
	return err
}

// follows writes the member name: a follow list, the most recent first,
// read a page at a time by read.
func follows(ctx context.Context, w io.Writer, name string, read func(context.Context, retwis.Cursor) (retwis.FollowPage, error)) error {
	io.WriteString(w, `,"`+name+`":[`)
	enc := json.NewEncoder(w)
	first := true
	for c := (retwis.Cursor{}); ; {
		p, err := read(ctx, c)
		if err != nil {
			return err
		}
		for _, f := range p.Follows {
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			if err := enc.Encode(follow{Username: f.User.Username, Since: f.Since.UTC().Format(time.RFC3339)}); err != nil {
				return err
			}
		}
		if !p.Older || len(p.Follows) == 0 {
			break
		}
		c = retwis.Cursor{Before: p.Follows[len(p.Follows)-1].User.ID}
	}
	_, err := io.WriteString(w, "]")
	return err
}
