package domainblocks_test

import (
	"fmt"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/domainblocks"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestCapped: a user who blocked MaxBlocked domains may block no more,
// though blocking one of them again is no change; after an unblock,
// one more may be blocked.
func TestCapped(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, false)
	key := schema.DomainBlocks(7)
	for i := range domainblocks.MaxBlocked {
		f.Do(t, "ZADD", key, fmt.Sprint(i+1), fmt.Sprintf("d%d.example", i))
	}
	db := f.St.DB
	storetest.WantKind(t, domainblocks.Block(f.Ctx, db, 7, "one-more.example"), retwis.Invalid)
	if err := domainblocks.Block(f.Ctx, db, 7, "D5.example"); err != nil {
		t.Fatalf("blocking a blocked domain again: %v", err)
	}
	if err := domainblocks.Unblock(f.Ctx, db, 7, "d5.example"); err != nil {
		t.Fatal(err)
	}
	if err := domainblocks.Block(f.Ctx, db, 7, "one-more.example"); err != nil {
		t.Fatalf("blocking after an unblock: %v", err)
	}
	all, err := domainblocks.List(f.Ctx, db, 7)
	if err != nil || len(all) != domainblocks.MaxBlocked || all[0].Domain != "one-more.example" {
		t.Fatalf("list: %d entries, first %+v, %v; want %d, one-more.example first", len(all), all[0], err, domainblocks.MaxBlocked)
	}
}

// FuzzNormalize: a domain name is kept only as lower-case labels of
// letters, digits and hyphens, and normalizing it again changes nothing.
func FuzzNormalize(f *testing.F) {
	for _, d := range []string{"example.com", "Example.COM.", "xn--bcher-kva.example", "-a.example", "a..b", "ünï.example", ""} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, err := domainblocks.Normalize(in)
		if err != nil {
			return
		}
		again, err := domainblocks.Normalize(d)
		if err != nil || again != d {
			t.Fatalf("Normalize(%q) = %q, then %q, %v", in, d, again, err)
		}
		for _, r := range d {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
				t.Fatalf("Normalize(%q) = %q keeps %q", in, d, r)
			}
		}
	})
}
