package web_test

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/posts"
)

// TestExport downloads a user's data: a ZIP archive of their profile,
// every post newest first (more than a page of them) with its
// visibility, whom they follow and who follows them, as valid JSON, and
// no secret, beside the records of their pictures (none here: see
// package export's tests); a visitor is sent home.
func TestExport(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("writer")
	writer, err := s.st.UserByName(t.Context(), "writer")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.st.SetAbout(t.Context(), writer.ID, "Wri Ter", "says \"things\""); err != nil {
		t.Fatal(err)
	}
	const n = 250
	for i := range n {
		d := posts.Draft{Author: writer.ID, Text: fmt.Sprint("post ", i)}
		if i == 0 {
			d.Warning, d.Visibility = "the first", retwis.Direct
		}
		if _, err := s.st.Publish(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"fan", "idol"} {
		u, _, err := s.st.Register(t.Context(), name, "password1")
		if err != nil {
			t.Fatal(err)
		}
		if name == "fan" {
			err = s.st.Follow(t.Context(), u.ID, writer.ID)
		} else {
			err = s.st.Follow(t.Context(), writer.ID, u.ID)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	r := b.get("/settings/export")
	if r.status != http.StatusOK || r.header.Get("Content-Disposition") != `attachment; filename="retwis-writer.zip"` ||
		r.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("export: %d %v", r.status, r.header)
	}
	archive, err := zip.NewReader(strings.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		t.Fatalf("the export is not a ZIP archive: %v", err)
	}
	var names []string
	for _, f := range archive.File {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"retwis-writer.json", "media.json"}) {
		t.Fatalf("the archive holds %q; want the document and the pictures' records (none)", names)
	}
	doc, err := fs.ReadFile(archive, "retwis-writer.json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Username    string `json:"username"`
		DisplayName string `json:"display_name"`
		Bio         string `json:"bio"`
		Posts       []struct {
			ID, Text   string
			Warning    string `json:"spoiler_text"`
			Visibility string
		}
		Following []struct{ Username string }
		Followers []struct{ Username string }
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatalf("the export is not JSON: %v", err)
	}
	if got.Username != "writer" || got.DisplayName != "Wri Ter" || got.Bio != `says "things"` || len(got.Posts) != n ||
		got.Posts[0].Text != fmt.Sprint("post ", n-1) || got.Posts[n-1].Text != "post 0" ||
		got.Posts[n-1].Warning != "the first" || got.Posts[0].Warning != "" ||
		got.Posts[n-1].Visibility != "direct" || got.Posts[0].Visibility != "public" ||
		len(got.Following) != 1 || got.Following[0].Username != "idol" || len(got.Followers) != 1 || got.Followers[0].Username != "fan" {
		t.Fatalf("export: %s, %q, %q, %d posts, following %v, followers %v", got.Username, got.DisplayName, got.Bio, len(got.Posts), got.Following, got.Followers)
	}
	_, secret, _ := strings.Cut(b.cookie(), ":")
	for _, secret := range []string{secret, accounts.SessionID(b.cookie()), "argon2id"} {
		if strings.Contains(string(doc), secret) {
			t.Fatalf("the export holds a secret, or what it is stored as: %q", secret)
		}
	}
	redirects(t, s.browser().get("/settings/export"), "/")
}
