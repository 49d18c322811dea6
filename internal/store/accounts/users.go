package accounts

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

var errNameTaken = retwis.Errorf(retwis.Conflict, "That username is already taken. Please choose another.")

// Register creates an account and returns it with the token of its
// first session (the auth cookie: see Authenticate), on the device ctx
// carries (WithDevice).
//
// The name is claimed last, as the commit point: until then the new user
// hash and its session are unreachable, so a crash leaves only an
// orphan. A name that is
// visibly taken is refused before anything is written; a sign-up that
// loses a race for the same name removes what it wrote.
func (s *Store) Register(ctx context.Context, username, pass string) (retwis.User, string, error) {
	return s.register(ctx, username, pass, true)
}

// SignUp creates an account as Register does, without a session: for
// an app, which is then given a token of its own.
func (s *Store) SignUp(ctx context.Context, username, pass string) (retwis.User, error) {
	u, _, err := s.register(ctx, username, pass, false)
	return u, err
}

// register creates an account (see Register), with the token of its
// first session if session is set.
func (s *Store) register(ctx context.Context, username, pass string, session bool) (retwis.User, string, error) {
	if err := retwis.ValidateUsername(username); err != nil {
		return retwis.User{}, "", err
	}
	if err := retwis.ValidatePassword(pass); err != nil {
		return retwis.User{}, "", err
	}
	if err := s.nameFree(ctx, username); err != nil {
		return retwis.User{}, "", err
	}
	hash, err := s.HashPassword(ctx, pass)
	if err != nil {
		return retwis.User{}, "", err
	}
	// From the first write on, the sign-up completes (or undoes itself)
	// even if the client goes away, so that it leaves no orphans.
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	uid, err := s.writeUser(ctx, username, hash)
	if err != nil {
		return retwis.User{}, "", err
	}
	var token string
	if session {
		if token, err = s.newSession(ctx, uid); err != nil {
			return retwis.User{}, "", err
		}
	}
	if err := s.claim(ctx, uid, username); err != nil {
		return retwis.User{}, "", err
	}
	return retwis.User{ID: uid, Username: username}, token, nil
}

// nameFree refuses a name that is visibly taken, or reserved after its
// account was deleted, before anything is hashed or written.
func (s *Store) nameFree(ctx context.Context, username string) error {
	if _, err := s.UserID(ctx, username); err == nil {
		return errNameTaken
	} else if retwis.ErrorKind(err) != retwis.NotFound {
		return err
	}
	ms, err := s.C.Do(ctx, s.C.B().Pttl().Key(schema.NameReserved(username)).Build()).AsInt64()
	if err != nil {
		return s.Wrap("register: reservation", err)
	}
	if ms == -2 { // no reservation
		return nil
	}
	return nameReserved(time.Now().Add(time.Duration(ms) * time.Millisecond))
}

// nameReserved is the error of a name reserved until until (zero: not
// known).
func nameReserved(until time.Time) error {
	if until.IsZero() {
		return retwis.Errorf(retwis.Conflict, "That username belonged to an account that was deleted recently, so it stays reserved for a while. Please choose another.")
	}
	return retwis.Errorf(retwis.Conflict, "That username belonged to an account that was deleted recently; it stays reserved until %s. Please choose another.",
		until.UTC().Format("2 January 2006, 15:04 UTC"))
}

// writeUser creates the user hash under a new id and returns the id. A
// hash given up that could not be taken back at once is left to the
// check, which takes back a sign-up that never claimed its name.
func (s *Store) writeUser(ctx context.Context, username, hash string) (int64, error) {
	uid, err := s.CreateHash(ctx, 0, schema.NextUserID, schema.User, nil,
		schema.FieldUsername, username, schema.FieldPasswordHash, hash,
		schema.FieldJoined, strconv.FormatInt(time.Now().Unix(), 10))
	if err != nil {
		return 0, err
	}
	return uid, nil
}

// claim records username as uid's in both name indexes, unless another
// user has it or it is reserved.
func (s *Store) claim(ctx context.Context, uid int64, username string) error {
	s.Written.Add(schema.Names(username), schema.NamesFolded(username), schema.UsersByTime) // pages follow at once
	res := s.Replicated(ctx, func() rueidis.Commands {
		return rueidis.Commands{kernel.ClaimName.Cmd(s.C, []string{schema.Names(username), schema.NamesFolded(username), schema.NameReserved(username)},
			username, retwis.FoldUsername(username), kernel.ID(uid))}
	}, schema.Names(username))
	won, err := res[0].AsInt64()
	b := s.C.B()
	if err != nil || won != 1 {
		// Lost the race, or the claim may stand on a master alone: undo,
		// so that the failed sign-up leaves nothing behind.
		undo := func() rueidis.Commands { // built anew if the pipeline is sent again
			cmds := rueidis.Commands{b.Del().Key(schema.User(uid)).Build(), b.Del().Key(schema.Sessions(uid)).Build()}
			if err != nil {
				cmds = append(cmds, kernel.UnclaimName.Cmd(s.C, []string{schema.Names(username), schema.NamesFolded(username)},
					username, retwis.FoldUsername(username), kernel.ID(uid)))
			}
			return cmds
		}
		if uerr := redisconn.FirstErr(s.Pipeline(ctx, undo)); uerr != nil {
			s.Log.Warn("a failed sign-up could not be taken back", "user", username, "err", uerr)
		}
		if err != nil {
			return s.Wrap("register: claim name", err)
		}
		if won < 0 {
			return nameReserved(time.Time{})
		}
		return errNameTaken
	}
	// The account exists from here on: failing now would tell the user to
	// try again, and the retry would find the name taken. Being missing
	// from the latest-users list, the people search and the directory
	// (and counted active only from the first page view) is the lesser
	// harm, which `retwis check --repair` mends.
	now := time.Now()
	newcomer := Facts{uid: uid, exists: true, joined: now}
	cmds := append(s.SeenCmds(uid, now.Unix(), false),
		b.Zadd().Key(schema.UsersByTime).ScoreMember().ScoreMember(float64(now.Unix()), username).Build())
	cmds = append(cmds, s.entryCmds(newcomer)...)
	cmds = append(cmds, index.Commands(s.C, index.PeopleWrites(uid, retwis.SearchTerms(username, ""), nil))...)
	cmds = append(cmds, index.ActivityCmds(s.C, uid, now, schema.FieldActivityRegistrations)...)
	if err := redisconn.FirstErr(s.C.DoMulti(ctx, cmds...)); err != nil {
		s.Log.Warn("new user not recorded in users_by_time, the people search, the directory, the activity and as seen", "user", username, "err", err)
	}
	return nil
}

// UserID resolves a username to a user id: exactly as typed first (the
// tutorial's users hash, which also holds names of the original Retwis
// outside today's alphabet), then ignoring case, for names within the
// alphabet only. It reads through the client-side cache: Redis
// invalidates the copy of a shard of the index when a sign-up changes it.
func (s *Store) UserID(ctx context.Context, username string) (int64, error) {
	if username == "" || len(username) > 256 {
		return 0, retwis.Errorf(retwis.NotFound, "No such user.")
	}
	b := s.C.B()
	cmds := []rueidis.CacheableTTL{rueidis.CT(b.Hget().Key(schema.Names(username)).Field(username).Cache(), s.Opts.CacheTTL)}
	if retwis.IsUsernameShaped(username) {
		cmds = append(cmds, rueidis.CT(b.Hget().Key(schema.NamesFolded(username)).Field(retwis.FoldUsername(username)).Cache(), s.Opts.CacheTTL))
	}
	res := s.CachedMulti(ctx, cmds...)
	for _, r := range res {
		v, err := r.ToString()
		if rueidis.IsRedisNil(err) {
			continue
		}
		if err != nil {
			return 0, s.Wrap("lookup user", err)
		}
		return strconv.ParseInt(v, 10, 64)
	}
	return 0, retwis.Errorf(retwis.NotFound, "There is no user called %q.", username)
}

// UserByName returns the user called username (matched ignoring case),
// with the name as it was registered.
func (s *Store) UserByName(ctx context.Context, username string) (retwis.User, error) {
	uid, err := s.UserID(ctx, username)
	if err != nil {
		return retwis.User{}, err
	}
	names, err := s.Usernames(ctx, []int64{uid})
	if err != nil {
		return retwis.User{}, err
	}
	if names[uid] == "" {
		return retwis.User{}, retwis.Errorf(retwis.NotFound, "There is no user called %q.", username)
	}
	return retwis.User{ID: uid, Username: names[uid]}, nil
}

// Usernames resolves user ids to Usernames in one round trip, from the
// client-side cache where possible. Unknown ids are missing from the map.
func (s *Store) Usernames(ctx context.Context, uids []int64) (map[int64]string, error) {
	var b kernel.Batch
	n := s.StartNames(uids, &b)
	s.ReadBatch(ctx, &b)
	return n.Usernames(ctx)
}

// ReadNames is usernames for a page: the ids whose user hash cannot be
// read right now (its node is failing over) are in unread rather than an
// error, so that the page can show the rest.
func (s *Store) ReadNames(ctx context.Context, uids []int64) (names map[int64]string, unread map[int64]bool, err error) {
	var b kernel.Batch
	n := s.StartNames(uids, &b)
	s.ReadBatch(ctx, &b)
	return n.Read(ctx)
}

// Names is the reading of usernames along with a page's other reads:
// StartNames adds them to a batch, and once it is read, Read or
// Usernames returns them.
type Names struct {
	s     *Store
	order []int64 // the ids read, each once
	slot  kernel.Slot
}

// StartNames adds the reads of the usernames of uids to b.
func (s *Store) StartNames(uids []int64, b *kernel.Batch) Names {
	n := Names{s: s}
	seen := make(map[int64]bool, len(uids))
	cmds := make([]rueidis.CacheableTTL, 0, len(uids))
	for _, uid := range uids {
		if seen[uid] {
			continue
		}
		seen[uid] = true
		n.order = append(n.order, uid)
		cmds = append(cmds, rueidis.CT(s.C.B().Hget().Key(schema.User(uid)).Field(schema.FieldUsername).Cache(), s.Opts.CacheTTL))
	}
	n.slot = b.Add(cmds...)
	return n
}

// Read returns the usernames read, as ReadNames does.
func (n Names) Read(ctx context.Context) (names map[int64]string, unread map[int64]bool, err error) {
	s := n.s
	res := n.slot.Replies()
	s.FromMaster(ctx, res, func(r rueidis.RedisResult) bool { return rueidis.IsRedisNil(r.Error()) },
		func(i int) rueidis.Completed {
			return s.C.B().Hmget().Key(schema.User(n.order[i])).Field(schema.FieldUsername).Build()
		})
	names = make(map[int64]string, len(n.order))
	for i, r := range res {
		v, err := nameOf(r)
		switch {
		case redisconn.IsOutage(err):
			if unread == nil {
				unread = map[int64]bool{}
			}
			unread[n.order[i]] = true
		case err != nil && !rueidis.IsRedisNil(err):
			return nil, nil, s.Wrap("usernames", err)
		}
		if v != "" {
			names[n.order[i]] = v
		}
	}
	return names, unread, nil
}

// Usernames returns the usernames read, as Usernames does: an error of
// kind Unavailable if some could not be read.
func (n Names) Usernames(ctx context.Context) (map[int64]string, error) {
	names, unread, err := n.Read(ctx)
	if err == nil && len(unread) > 0 {
		err = retwis.Errorf(retwis.Unavailable, "The database is unavailable right now. Please try again in a moment.")
	}
	return names, err
}

// nameOf reads a username from the reply to HGET user:{<id>} username,
// or to HMGET user:{<id>} username (a re-read from the master).
func nameOf(r rueidis.RedisResult) (string, error) {
	m, err := r.ToMessage()
	if err != nil {
		return "", err
	}
	if vals, err := m.ToArray(); m.IsArray() && err == nil && len(vals) == 1 {
		return vals[0].ToString()
	}
	return m.ToString()
}

// LatestUsers returns the n most recently registered usernames, newest
// first, but for suspended accounts, from the client-side cache when
// warm.
func (s *Store) LatestUsers(ctx context.Context, n int) ([]string, error) {
	var b kernel.Batch
	l := s.StartLatestUsers(n, &b)
	s.ReadBatch(ctx, &b)
	return l.Users(ctx)
}

// latestSlack is how many more of the newest usernames than asked for
// are read, for the suspended among them.
const latestSlack = 16

// Latest is the reading of the newest usernames (see LatestUsers) along
// with a page's other reads: StartLatestUsers adds it to a batch, and
// once the batch is read, Users returns them.
type Latest struct {
	s    *Store
	n    int
	slot kernel.Slot
}

// StartLatestUsers adds the read of the n newest usernames to b, and of
// the suspended accounts.
func (s *Store) StartLatestUsers(n int, b *kernel.Batch) Latest {
	cmd := s.C.B().Zrevrange().Key(schema.UsersByTime).Start(0).Stop(int64(n - 1 + latestSlack)).Cache()
	return Latest{s: s, n: n, slot: b.Add(rueidis.CT(cmd, s.Opts.CacheTTL), s.SuspendedCmd())}
}

// Users returns the usernames read, but for the suspended accounts'
// (their ids looked up through the client-side cache, when there are
// any suspended).
func (l Latest) Users(ctx context.Context) ([]string, error) {
	res := l.slot.Replies()
	names, err := res[0].AsStrSlice()
	if err != nil {
		return nil, l.s.Wrap("latest users", err)
	}
	suspended, err := l.s.ParseSuspended(res[1])
	if err == nil && len(suspended) > 0 {
		names, err = l.s.listedNames(ctx, names, suspended)
	}
	if err != nil {
		return nil, err
	}
	return names[:min(l.n, len(names))], nil
}

// listedNames returns, of names, those whose account is not among
// suspended, in their order.
func (s *Store) listedNames(ctx context.Context, names []string, suspended map[int64]bool) ([]string, error) {
	uids, err := s.namedIDs(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(names))
	for i, uid := range uids {
		if !suspended[uid] {
			out = append(out, names[i])
		}
	}
	return out, nil
}

// namedIDs returns the ids of the users called names, as registered, in
// their order (0 for a name nobody has): one cached read of the name
// index.
func (s *Store) namedIDs(ctx context.Context, names []string) ([]int64, error) {
	cmds := make([]rueidis.CacheableTTL, len(names))
	for i, name := range names {
		cmds[i] = rueidis.CT(s.C.B().Hget().Key(schema.Names(name)).Field(name).Cache(), s.Opts.CacheTTL)
	}
	uids := make([]int64, len(names))
	for i, r := range s.CachedMulti(ctx, cmds...) {
		uid, err := r.AsInt64()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.Wrap("user ids", err)
		}
		uids[i] = uid
	}
	return uids, nil
}

// Login checks a username and password and returns the user and the
// token of a new session, on the device ctx carries (WithDevice), to
// send as a cookie (see Authenticate): each login is a session of its
// own, which its logout ends alone. Unknown names and wrong passwords give the
// same error, after the same amount of work. An account whose logins
// keep failing is slowed down: past three failures in 15 minutes, an
// attempt before a growing delay after the last (1 s, doubling, at most
// 5 min) is refused with an error of kind TooMany, before any password
// is hashed; but not an attempt from a device that logged in to the
// account before (Device.Known, see RecognizeDevice), whose password is
// hashed in the known lane of the hashers (see CheckPassword).
// A login moves the failures since the last one to the owner's notice
// (LoginNotice).
func (s *Store) Login(ctx context.Context, username, pass string) (retwis.User, string, error) {
	wrong := retwis.Errorf(retwis.Unauthorized, "Wrong username or password.")
	if len(pass) > retwis.MaxPasswordBytes {
		return retwis.User{}, "", wrong // not a password we could have accepted: no hashing
	}
	uid, err := s.UserID(ctx, username)
	if retwis.ErrorKind(err) == retwis.NotFound {
		// Spend the time a real check takes, so timing tells nothing.
		if _, err := s.VerifyPassword(ctx, pass, ""); err != nil {
			return retwis.User{}, "", err
		}
		return retwis.User{}, "", wrong
	}
	if err != nil {
		return retwis.User{}, "", err
	}
	if _, known := knownDevice(ctx, uid); !known {
		if err := s.checkLoginDelay(ctx, uid); err != nil {
			return retwis.User{}, "", err
		}
	}
	acct, err := s.Account(ctx, uid, false)
	if err != nil {
		return retwis.User{}, "", err
	}
	ok, err := s.CheckPassword(ctx, uid, acct, pass)
	ctx, cancel := kernel.Detach(ctx) // the writes below complete even if the client goes away
	defer cancel()
	if err == nil && !ok {
		s.recordFailure(ctx, uid)
	}
	if err != nil || !ok {
		return retwis.User{}, "", orWrong(err, wrong)
	}
	if acct.suspended { // the right password: it may know
		return retwis.User{}, "", ErrSuspended
	}
	s.noteFailures(ctx, uid)
	token, err := s.newSession(ctx, uid)
	if err != nil {
		return retwis.User{}, "", err
	}
	return retwis.User{ID: uid, Username: acct.Username}, token, nil
}

func orWrong(err, wrong error) error {
	if err != nil {
		return err
	}
	return wrong
}

// UserCount returns how many users have signed up, through the
// client-side cache.
func (s *Store) UserCount(ctx context.Context) (int64, error) {
	n, err := s.Cached(ctx, s.C.B().Zcard().Key(schema.UsersByTime).Cache(), s.Opts.CacheTTL).AsInt64()
	return n, s.Wrap("user count", err)
}
