// Package deletion deletes accounts: DeleteAccount checks the password,
// marks the account as being deleted and ends every way into it at
// once, then removes everything that refers to it, within the request
// for a small account and a batch at a time in the background for a
// larger one, the runner holding a lease on the deletion; maintenance
// resumes a deletion whose runner stopped (ResumeDeletions), and
// Deletion tells how far one has got.
//
// It is its own package because a deletion is a long-running job over
// the whole data set, not an operation of the online API: it walks an
// account's follows, posts and graph in batches and undoes what they
// wrote, through the online store's exported operations (package
// store) and the index builders. The arrows point one way: deletion
// imports store, never the reverse. Its callers hold a *Deleter: the
// pages' settings and profile (given one by internal/mux), cmd/retwis,
// and the maintenance round (upkeep.Round), which resumes deletions
// every round. What stays in the online store is what it needs itself:
// the reservation of a deleted account's name checked at sign-up, and
// EndAccess (package accounts), which suspending an account uses too.
package deletion

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Bounds of the deletion of an account.
const (
	// An account with at most inlinePosts posts and inlineFollows
	// follows (both ways) is deleted within the request that asks; a
	// larger one in the background.
	inlinePosts   = 200
	inlineFollows = 1000
	// Each batch of a deletion removes at most deletionPosts posts,
	// deletionFollows follows or deletionGraph relations of the graph,
	// in a few pipelines.
	deletionPosts   = 200
	deletionFollows = 200
	deletionGraph   = 1000
	// deletionLease is how long a runner holds a deletion without
	// renewing its lease, which it does before every batch: a runner that
	// stops leaves the deletion to maintenance after that long.
	deletionLease = 30 * time.Second
	// deletionRound bounds the batches one round of maintenance does,
	// deletionsRead the deletions it looks at.
	deletionRound = 50
	deletionsRead = 100
	// deletionGrace is how long an entry of schema.Deletions may go
	// without its state before maintenance drops it: a request may be
	// between writing the one and the other.
	deletionGrace = time.Minute
)

// Deleter deletes accounts of the online store it embeds, whose
// operations and kernel its steps use. It keeps no state of its own:
// a deletion's state and lease live in Redis, so any number of servers
// may each have one.
type Deleter struct {
	*store.Store
}

// New returns a Deleter of st's accounts.
func New(st *store.Store) *Deleter { return &Deleter{Store: st} }

// errLeaseHeld says that another runner holds a deletion.
var errLeaseHeld = errors.New("store: another runner holds the deletion")

// deletion is what the state of an account's deletion (schema.Deleting)
// records of the account when the deletion begins.
type deletion struct {
	uid               int64
	username, display string
	celebrity         bool  // its posts were not fanned out
	posts, follows    int64 // how many it had
	begun             time.Time
}

// fields returns the state's field-value pairs.
func (d deletion) fields() []string {
	celebrity := ""
	if d.celebrity {
		celebrity = "1"
	}
	return []string{schema.FieldDelUsername, d.username, schema.FieldDelDisplay, d.display,
		schema.FieldDelCelebrity, celebrity, schema.FieldDelPosts, kernel.ID(d.posts), schema.FieldDelFollows, kernel.ID(d.follows),
		schema.FieldDelBegun, kernel.ID(d.begun.Unix())}
}

// inline reports whether d's account is small enough to be deleted
// within the request that asks.
func (d deletion) inline() bool { return d.posts <= inlinePosts && d.follows <= inlineFollows }

// parseDeletion reads the state of uid's deletion from its fields; ok
// is false if there is none.
func parseDeletion(uid int64, m map[string]string) (d deletion, ok bool) {
	if m[schema.FieldDelUsername] == "" {
		return d, false
	}
	d = deletion{uid: uid, username: m[schema.FieldDelUsername], display: m[schema.FieldDelDisplay],
		celebrity: m[schema.FieldDelCelebrity] == "1"}
	d.posts, _ = strconv.ParseInt(m[schema.FieldDelPosts], 10, 64)
	d.follows, _ = strconv.ParseInt(m[schema.FieldDelFollows], 10, 64)
	begun, _ := strconv.ParseInt(m[schema.FieldDelBegun], 10, 64)
	d.begun = time.Unix(begun, 0)
	return d, true
}

// DeleteAccount deletes uid's account, if password is its password: a
// wrong one is an error of kind Invalid, and nothing is written. It
// marks the account as being deleted and ends its access at once (see
// store.EndAccess), then removes everything that refers to it: its follows
// both ways (with its posts off its followers' home timelines), its
// posts with every index entry that refers to them (as store.DeletePost
// does), its relations in the graph, its name, search and directory
// entries, and its own keys. Its name stays reserved for
// store.Options.NameReserve, so that nobody can pose as its owner.
//
// An account of at most inlinePosts posts and inlineFollows follows is
// gone when DeleteAccount returns; a larger one goes on in the
// background, a batch at a time, its progress in the log and in
// Deletion. Once begun, a deletion is carried through: should its server
// stop, maintenance resumes it (ResumeDeletions).
func (s *Deleter) DeleteAccount(ctx context.Context, uid int64, password string) error {
	d, secret, err := s.confirmDeletion(ctx, uid, password)
	if err != nil {
		return err
	}
	wctx, cancel := kernel.Detach(ctx) // once begun, it goes on even if the client goes away
	defer cancel()
	token := accounts.RandomString(20)
	if begun, err := s.startDeletion(wctx, d, secret, token); err != nil || !begun {
		return err
	}
	if d.inline() {
		s.carryOn(wctx, uid, token)
		return nil
	}
	go s.carryOn(context.WithoutCancel(ctx), uid, token)
	return nil
}

// confirmDeletion checks password against uid's account, and reads
// what the deletion's state records of it; it returns the account's
// auth secret too.
func (s *Deleter) confirmDeletion(ctx context.Context, uid int64, password string) (deletion, string, error) {
	wrong := retwis.Errorf(retwis.Invalid, "The password is wrong.")
	if len(password) > retwis.MaxPasswordBytes {
		return deletion{}, "", wrong
	}
	acct, err := s.Account(ctx, uid, false)
	if err != nil {
		return deletion{}, "", err
	}
	if acct.Username == "" {
		return deletion{}, "", retwis.Errorf(retwis.NotFound, "There is no such user.")
	}
	ok, err := s.CheckPassword(ctx, uid, acct, password)
	if err != nil {
		return deletion{}, "", err
	}
	if !ok {
		return deletion{}, "", wrong
	}
	d, err := s.accountFacts(ctx, uid)
	d.username = acct.Username
	return d, acct.Auth, err
}

// accountFacts reads, in one round trip, what the state of uid's
// deletion records: the display name, whether the account is a
// celebrity, and how many posts and follows it has.
func (s *Deleter) accountFacts(ctx context.Context, uid int64) (deletion, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx,
		b.Hmget().Key(schema.User(uid)).Field(schema.FieldDisplayName, schema.FieldCelebrity).Build(),
		b.Zcard().Key(schema.UserPosts(uid)).Build(),
		b.Zcard().Key(schema.Followers(uid)).Build(),
		b.Zcard().Key(schema.Following(uid)).Build())
	if err := redisconn.FirstErr(res); err != nil {
		return deletion{}, s.Wrap("delete account: read", err)
	}
	vals, _ := res[0].ToArray()
	user := index.AsStrings(vals)
	if len(user) != 2 {
		return deletion{}, s.Wrap("delete account: read", kernel.ErrShape)
	}
	posts, _ := res[1].AsInt64()
	followers, _ := res[2].AsInt64()
	following, _ := res[3].AsInt64()
	return deletion{uid: uid, display: user[0], celebrity: user[1] == "1", posts: posts,
		follows: followers + following, begun: time.Now()}, nil
}

// startDeletion records the deletion among those maintenance resumes,
// then marks the account (markDeleted): the commit point, after which the
// deletion is carried through. It reports false if a deletion of the
// account was under way already.
func (s *Deleter) startDeletion(ctx context.Context, d deletion, secret, token string) (bool, error) {
	err := s.C.Do(ctx, s.C.B().Zadd().Key(schema.Deletions).Nx().ScoreMember().
		ScoreMember(float64(d.begun.Unix()), kernel.ID(d.uid)).Build()).Error()
	if err != nil {
		return false, s.Wrap("delete account: record", err)
	}
	begun, err := s.markDeleted(ctx, d, secret, token)
	if begun {
		s.Log.Info("account deletion begun", "user", d.uid, "name", d.username, "posts", d.posts, "follows", d.follows,
			"background", !d.inline())
	}
	return begun, err
}

// markDeleted marks d's account as being deleted and ends every way
// into it, at once: one script in the user's slot writes the deletion's
// state (with the lease of token's runner) and deletes the user hash,
// whose password hash every login checks and without which no session
// authenticates, and the API tokens with the record of their use. From
// then on Authenticate, Login and AuthenticateToken fail for the
// account, on every server (Redis invalidates their cached copies).
// Then its sessions end (store.EndAccess: the records go), and secret, if of
// the tutorial's kind, is forgot in its auths shard (tidying: it matches
// nothing any more). It reports false, and changes nothing, if the
// account's deletion was under way already.
func (s *Deleter) markDeleted(ctx context.Context, d deletion, secret, token string) (bool, error) {
	uid := d.uid
	keys := []string{schema.User(uid), schema.Deleting(uid), schema.DeletingLease(uid), schema.Tokens(uid), schema.TokensUsed(uid)}
	s.Written.Add(keys...)
	res := s.Replicated(ctx, func() rueidis.Commands {
		return rueidis.Commands{kernel.BeginDeletion.Cmd(s.C, keys, append([]string{token, ms(deletionLease)}, d.fields()...)...)}
	}, schema.User(uid))
	n, err := res[0].AsInt64()
	if err != nil {
		return false, s.Wrap("delete account: end access", err)
	}
	if n == 0 {
		return false, nil
	}
	s.ForgetSecret(ctx, uid, secret)
	return true, s.EndAccess(ctx, uid)
}

// ms writes d in milliseconds.
func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// carryOn carries uid's deletion through, holding its lease (token). If
// it cannot (Redis fails, the request's time runs out), it frees the
// lease, and maintenance resumes the deletion.
func (s *Deleter) carryOn(ctx context.Context, uid int64, token string) {
	done, _, err := s.runDeletion(ctx, uid, token, 0)
	if done {
		return
	}
	s.Log.Warn("an account's deletion stopped on this server; maintenance carries it on", "user", uid, "err", err)
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	if err := kernel.DropLease.Exec(ctx, s.C, []string{schema.DeletingLease(uid)}, token).Error(); err != nil {
		s.Log.Warn("an account's deletion waits for its lease to lapse", "user", uid, "err", err)
	}
}

// runDeletion carries uid's deletion on while token's runner holds its
// lease: it releases the account (releaseAccount), then removes what is
// left a batch at a time, the first kind of what is left each time (see
// doWork), and last the remaining keys (finishDeletion). It stops after
// budget batches (0: no bound), and reports whether the deletion is done
// (or was already: no state) and how many batches it did. Every step is
// safe to repeat, so that another runner resumes where one stopped.
func (s *Deleter) runDeletion(ctx context.Context, uid int64, token string, budget int) (done bool, batches int, err error) {
	d, ok, err := s.deletionState(ctx, uid)
	if err != nil || !ok {
		return err == nil, 0, err
	}
	if err := s.releaseAccount(ctx, d); err != nil {
		return false, 0, err
	}
	for budget <= 0 || batches < budget {
		if err := s.holdLease(ctx, uid, token); err != nil {
			return false, batches, err
		}
		w, err := s.nextWork(ctx, uid)
		if err != nil {
			return false, batches, err
		}
		if w.none() {
			err := s.finishDeletion(ctx, d)
			return err == nil, batches, err
		}
		s.Log.Info("deleting an account", progressAttrs(d, w.progress(d))...)
		if err := s.doWork(ctx, d, w); err != nil {
			return false, batches, err
		}
		batches++
	}
	return false, batches, nil
}

// progressAttrs are the attributes of a log line about d's progress.
func progressAttrs(d deletion, p retwis.Deletion) []any {
	return []any{"user", d.uid, "name", d.username, "posts_removed", p.PostsRemoved, "posts", p.Posts,
		"follows_removed", p.FollowsRemoved, "follows", p.Follows}
}

// deletionState reads the state of uid's deletion; ok is false if there
// is none (it is done, or never began).
func (s *Deleter) deletionState(ctx context.Context, uid int64) (d deletion, ok bool, err error) {
	m, err := s.C.Do(ctx, s.C.B().Hgetall().Key(schema.Deleting(uid)).Build()).AsStrMap()
	if err != nil {
		return d, false, s.Wrap("deletion: state", err)
	}
	d, ok = parseDeletion(uid, m)
	return d, ok, nil
}

// holdLease takes uid's deletion for token's runner, or extends its
// lease, for deletionLease; errLeaseHeld if another runner holds it.
func (s *Deleter) holdLease(ctx context.Context, uid int64, token string) error {
	n, err := kernel.HoldLease.Exec(ctx, s.C, []string{schema.DeletingLease(uid)}, token, ms(deletionLease)).AsInt64()
	if err != nil {
		return s.Wrap("deletion: lease", err)
	}
	if n == 0 {
		return errLeaseHeld
	}
	return nil
}

// ResumeDeletions carries on the deletions of accounts that no runner
// holds (their server stopped, or gave up), the oldest first, up to
// deletionRound batches in all, and returns how many deletions it
// carried on; upkeep.Round calls it every round. A deletion whose
// runner is alive is left to it.
func (s *Deleter) ResumeDeletions(ctx context.Context) (int, error) {
	b := s.C.B()
	entries, err := s.C.Do(ctx, b.Zrange().Key(schema.Deletions).Min("0").Max(strconv.Itoa(deletionsRead-1)).Withscores().Build()).AsZScores()
	if err != nil {
		return 0, s.Wrap("maintenance: deletions", err)
	}
	resumed, budget := 0, deletionRound
	for _, e := range entries {
		if budget <= 0 {
			break
		}
		uid, err := strconv.ParseInt(e.Member, 10, 64)
		if err != nil {
			continue
		}
		n, err := s.resumeDeletion(ctx, uid, time.Unix(int64(e.Score), 0), budget)
		if n > 0 {
			resumed++
		}
		if budget -= n; err != nil {
			return resumed, err
		}
	}
	return resumed, nil
}

// resumeDeletion carries uid's deletion, begun at begun, on for up to
// budget batches, unless another runner holds it, and returns how many
// it did (1 at least for a deletion it carried on). An entry without a
// state older than deletionGrace is dropped: its deletion is done, or
// never began.
func (s *Deleter) resumeDeletion(ctx context.Context, uid int64, begun time.Time, budget int) (int, error) {
	_, ok, err := s.deletionState(ctx, uid)
	if err != nil {
		return 0, err
	}
	if !ok {
		if time.Since(begun) < deletionGrace {
			return 0, nil
		}
		return 0, s.Wrap("maintenance: deletions", s.C.Do(ctx, s.C.B().Zrem().Key(schema.Deletions).Member(kernel.ID(uid)).Build()).Error())
	}
	token := accounts.RandomString(20)
	if err := s.holdLease(ctx, uid, token); errors.Is(err, errLeaseHeld) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	done, n, err := s.runDeletion(ctx, uid, token, budget)
	if !done {
		if derr := kernel.DropLease.Exec(ctx, s.C, []string{schema.DeletingLease(uid)}, token).Error(); err == nil {
			err = s.Wrap("maintenance: deletion lease", derr)
		}
	}
	return max(n, 1), err
}

// Deletion tells how far the deletion of the account that was called
// username has got, for as long as its name stays reserved; an error of
// kind NotFound if no account of that name was deleted lately.
func (s *Deleter) Deletion(ctx context.Context, username string) (retwis.Deletion, error) {
	none := retwis.Errorf(retwis.NotFound, "There is no user called %q.", username)
	if !retwis.IsUsernameShaped(username) {
		return retwis.Deletion{}, none
	}
	key := schema.NameReserved(username)
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Get().Key(key).Build(), b.Pttl().Key(key).Build())
	uid, err := res[0].AsInt64()
	if rueidis.IsRedisNil(err) {
		return retwis.Deletion{}, none
	}
	if err != nil {
		return retwis.Deletion{}, s.Wrap("deletion", err)
	}
	p, err := s.progress(ctx, uid)
	if left, err := res[1].AsInt64(); err == nil && left > 0 {
		p.Reserved = time.Now().Add(time.Duration(left) * time.Millisecond)
	}
	return p, err
}

// progress reads how far uid's deletion has got, in one round trip:
// Done once its state is gone.
func (s *Deleter) progress(ctx context.Context, uid int64) (retwis.Deletion, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Hgetall().Key(schema.Deleting(uid)).Build(), b.Zcard().Key(schema.UserPosts(uid)).Build(),
		b.Zcard().Key(schema.Followers(uid)).Build(), b.Zcard().Key(schema.Following(uid)).Build())
	if err := redisconn.FirstErr(res); err != nil {
		return retwis.Deletion{}, s.Wrap("deletion: progress", err)
	}
	m, _ := res[0].AsStrMap()
	d, ok := parseDeletion(uid, m)
	if !ok {
		return retwis.Deletion{Done: true}, nil
	}
	var w work
	w.postsLeft, _ = res[1].AsInt64()
	followers, _ := res[2].AsInt64()
	following, _ := res[3].AsInt64()
	w.followsLeft = followers + following
	return w.progress(d), nil
}
