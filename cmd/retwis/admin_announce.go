package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/announcements"
)

// adminAnnounce posts an announcement (its text the argument, shown
// between --starts-at and --ends-at), or removes one (--remove ID).
func adminAnnounce(ctx context.Context, st *store.Store, a adminRun) error {
	an := announcements.New(st)
	if a.cfg.remove != 0 {
		if err := an.Remove(ctx, a.cfg.remove); err != nil {
			return err
		}
		_, err := fmt.Fprintf(a.stdout, "removed announcement %d\n", a.cfg.remove)
		return err
	}
	if a.arg == "" {
		return fmt.Errorf("announce needs a TEXT, or --remove ID")
	}
	starts, err := flagTime("--starts-at", a.cfg.startsAt)
	if err != nil {
		return err
	}
	ends, err := flagTime("--ends-at", a.cfg.endsAt)
	if err != nil {
		return err
	}
	n, err := an.Announce(ctx, a.arg, starts, ends)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "announced %d: %s\n", n.ID, n.Text)
	return err
}

// flagTime reads the time of flag name (RFC 3339; "": the zero time).
func flagTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not a time as RFC 3339 writes it (2026-12-01T09:00:00Z)", name, v)
	}
	return t, nil
}

// printAnnouncements writes every announcement as a table.
func printAnnouncements(ctx context.Context, st *store.Store, a adminRun) error {
	all, err := announcements.New(st).All(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	tw := tabwriter.NewWriter(a.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tACTIVE\tSTARTS (UTC)\tENDS (UTC)\tTEXT")
	for _, n := range all {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", n.ID, yesNo(n.ActiveAt(now)), when(n.Starts, n.Published), when(n.Ends, time.Time{}), n.Text)
	}
	return tw.Flush()
}

// when writes t, or else (if t is zero) instead: "-" if that is zero too.
func when(t, instead time.Time) string {
	if t.IsZero() {
		t = instead
	}
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.DateTime)
}

// yesNo writes b as a word.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
