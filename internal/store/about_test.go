package store_test

import (
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
)

// TestAbout sets, reads and clears a display name and bio; the profile
// carries them; invalid ones and unknown users are refused, writing
// nothing.
func TestAbout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u := f.Register(t, "jose")
	if err := f.St.SetAbout(f.Ctx, u.ID, " Jose\u0301 ", "  likes  Redis "); err != nil {
		t.Fatal(err)
	}
	name, bio, err := f.St.About(f.Ctx, u.ID)
	if err != nil || name != "José" || bio != "likes Redis" {
		t.Fatalf("About = %q, %q, %v; want José, likes Redis", name, bio, err)
	}
	prof, err := f.St.Profile(f.Ctx, 0, u, retwis.Cursor{}, 10)
	if err != nil || prof.DisplayName != "José" || prof.Bio != "likes Redis" {
		t.Fatalf("Profile = %q, %q, %v", prof.DisplayName, prof.Bio, err)
	}
	before := f.Do(t, "HGETALL", store.KeyUser(u.ID))
	if err := f.St.SetAbout(f.Ctx, u.ID, "ok", strings.Repeat("b", 161)); retwis.ErrorKind(err) != retwis.Invalid {
		t.Fatalf("a bio too long: %v; want Invalid", err)
	}
	if after := f.Do(t, "HGETALL", store.KeyUser(u.ID)); after != before {
		t.Fatalf("a refused bio changed the user: %s → %s", before, after)
	}
	if err := f.St.SetAbout(f.Ctx, u.ID, "", ""); err != nil {
		t.Fatal(err)
	}
	if name, bio, err := f.St.About(f.Ctx, u.ID); name != "" || bio != "" || err != nil {
		t.Fatalf("cleared: %q, %q, %v", name, bio, err)
	}
	if err := f.St.SetAbout(f.Ctx, 999, "ghost", ""); retwis.ErrorKind(err) != retwis.NotFound {
		t.Fatalf("an unknown user: %v; want NotFound", err)
	}
	if n := f.Do(t, "EXISTS", store.KeyUser(999)); n != "0" {
		t.Fatal("setting an unknown user's name created the user")
	}
}
