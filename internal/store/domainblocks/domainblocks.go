// Package domainblocks keeps the domains each user blocks: Mastodon's
// user-level domain blocks, which hide every account of a domain from
// the user. retwis federates with no server, so every account is of its
// own domain, which a user may not block: the list is kept, listed and
// undone as Mastodon's apps expect, and hides nothing.
package domainblocks

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaxBlocked bounds the domains one user may block.
const MaxBlocked = 1000

// maxDomain bounds a domain name, in bytes, as DNS does.
const maxDomain = 253

// Blocked is a domain a user blocked, and when (unix ms, its place in
// the list).
type Blocked struct {
	Domain string
	At     int64
}

// Normalize returns domain as it is kept: lower case, without a
// trailing dot; an error of kind Invalid for what is no domain name of
// ASCII letters, digits and hyphens (an internationalized one in its
// xn-- form).
func Normalize(domain string) (string, error) {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	if d == "" || len(d) > maxDomain || !strings.Contains(d, ".") {
		return "", retwis.Errorf(retwis.Invalid, "Write a domain name, such as example.com.")
	}
	for label := range strings.SplitSeq(d, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return "", retwis.Errorf(retwis.Invalid, "%q is no domain name (an internationalized one is written in its xn-- form).", domain)
		}
	}
	return d, nil
}

// Block adds domain to uid's blocked domains (again: no change), unless
// uid blocked MaxBlocked already. One call, in uid's slot.
func Block(ctx context.Context, db *kernel.DB, uid int64, domain string) error {
	d, err := Normalize(domain)
	if err != nil {
		return err
	}
	n, err := kernel.AddCapped.Exec(ctx, db.C, []string{schema.DomainBlocks(uid)}, d,
		strconv.FormatInt(time.Now().UnixMilli(), 10), strconv.Itoa(MaxBlocked)).AsInt64()
	if err != nil {
		return db.Wrap("block domain", err)
	}
	if n < 0 {
		return retwis.Errorf(retwis.Invalid, "You may block at most %d domains.", MaxBlocked)
	}
	return nil
}

// Unblock takes domain off uid's blocked domains.
func Unblock(ctx context.Context, db *kernel.DB, uid int64, domain string) error {
	d, err := Normalize(domain)
	if err != nil {
		return err
	}
	return db.Wrap("unblock domain", db.C.Do(ctx, db.C.B().Zrem().Key(schema.DomainBlocks(uid)).Member(d).Build()).Error())
}

// List returns uid's blocked domains, the newest first (at most
// MaxBlocked).
func List(ctx context.Context, db *kernel.DB, uid int64) ([]Blocked, error) {
	entries, err := db.C.Do(ctx, db.C.B().Zrevrange().Key(schema.DomainBlocks(uid)).Start(0).Stop(MaxBlocked-1).Withscores().Build()).AsZScores()
	if err != nil {
		return nil, db.Wrap("blocked domains", err)
	}
	out := make([]Blocked, len(entries))
	for i, e := range entries {
		out[i] = Blocked{Domain: e.Member, At: int64(e.Score)}
	}
	return out, nil
}
