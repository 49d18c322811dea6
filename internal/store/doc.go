// Package store is the top layer of retwis's online store, and the one
// the pages (internal/web), the client API (internal/api) and the live
// streams (internal/streaming) hold: a *Store has the methods of every
// layer below it, by embedding, so they call one value.
//
// The online store is four layers, each embedding the one below:
//
//   - package accounts: sign-up, logins and sessions, API apps and
//     tokens, rate limits, display names and bios, and the directory of
//     accounts;
//   - package posts: posts and their publication, timelines,
//     conversations, notifications, live events and what a reader does
//     not see;
//   - package interact: what readers do to posts besides writing them:
//     favourites, bookmarks, pins, boosts and edits;
//   - this package: what relates accounts to each other and is found
//     through them: follows and follow lists (follow.go,
//     follow_lists.go), the graph of relations (graph.go), blocks and
//     mutes (blocks.go), the people search (people.go), trends
//     (trends.go) and discovery (discovery.go); moderation: suspensions,
//     moderators, removed posts and the audit log (moderation.go,
//     suspended.go), and reports (reports.go); what a tag is used for
//     (tags.go); the pages read in one call (pages.go); and Migrate
//     (migrate.go), which brings the whole database to the current
//     layout before a server serves.
//
// Below them, package kernel is the handle on Redis they share, package
// schema spells every key, and package index builds what each fact
// writes to the secondary indexes. Beside them, the background
// packages import this one, never the other way round: delivery (the
// workers that fan posts out), deletion (accounts), check (the
// consistency checker), upkeep (the maintenance round) and bulk (the
// offline writer).
//
// Domain rules are checked in the store (with the root package's
// functions), so every interface (HTML, API, CLI) gets the same.
//
// Every command, script and transaction touches keys of one hash slot
// only, so the same code runs on a single server and on Redis Cluster.
// Operations that change keys in several slots are ordered so that a
// crash half-way leaves the data usable: a new user becomes visible only
// once the name is claimed (a crash before leaves an unreachable user
// hash); a post id is pushed on timelines only after the post hash exists;
// a session lives in the user's slot alone (a logout removes it there),
// so a user can always log in; user and post hashes
// are created only if absent, so an id handed out twice (a counter
// rolled back by a failover) never overwrites what exists; follows are written to
// both sets idempotently, so repeating one repairs it. A post is
// published completely or taken back. Fanout is a durable job on the
// deliveries stream: a crash mid-delivery leaves the job to another
// worker (package delivery), which resumes it. An account's deletion
// begins with one script in the user's slot, after which every step is
// safe to repeat, and maintenance resumes it should its runner stop.
package store
