package main

import (
	"errors"
	"flag"

	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/store/kernel"
)

// registerTimelines registers the depth of a dataset's home timelines,
// the flags gen and import share.
func registerTimelines(fs *flag.FlagSet, t *dataset.Timelines) {
	fs.IntVar(&t.HomeCap, "home-cap", kernel.DefaultHomeCap, "entries per home timeline list, as the server's --home-cap")
	fs.IntVar(&t.Archive, "archive", 0, "older `entries` per home timeline, kept below its list in its archive")
}

// checkTimelines refuses depths a server cannot use.
func checkTimelines(t dataset.Timelines) error {
	switch {
	case t.HomeCap < 10:
		return errors.New("--home-cap must be at least 10")
	case t.Archive < 0:
		return errors.New("--archive cannot be negative")
	}
	return nil
}
