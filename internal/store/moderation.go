package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
)

// Suspend suspends uid's account on the word of by, for reason
// (optional): its posts vanish from every page and the API at once, for
// everyone (the suspended set is read with every page's posts, and
// Redis invalidates every server's cached copy), and so does the
// account (from every listing of accounts; its profile and the API's
// account but for moderators: Shown), its posts' weight
// leaves the trends, it can no longer log in or post, and its sessions
// and API tokens end, with the live streams they opened. The action is
// recorded in the audit log. Suspending again changes nothing but adds
// to the log.
func (s *Store) Suspend(ctx context.Context, by retwis.Actor, uid int64, reason string) error {
	return s.setSuspended(ctx, by, uid, reason, true)
}

// Unsuspend lifts the suspension of uid's account: it and its posts show
// again, their weight back in the trends, and its owner may log in (their old sessions and tokens stay ended).
// Recorded in the audit log.
func (s *Store) Unsuspend(ctx context.Context, by retwis.Actor, uid int64, reason string) error {
	return s.setSuspended(ctx, by, uid, reason, false)
}

// setSuspended suspends uid (on) or lifts its suspension: the suspended
// set first, which hides or shows the posts and the account, then the
// user hash, which refuses or lets through logins and posts; if the set
// changed, the weight of the account's recent posts is taken out of the
// trends or put back (retrend); a suspension then ends the account's
// access.
func (s *Store) setSuspended(ctx context.Context, by retwis.Actor, uid int64, reason string, on bool) error {
	u, reason, err := s.moderated(ctx, uid, reason)
	if err != nil {
		return err
	}
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	b := s.C.B()
	cmds, action := []rueidis.Completed{
		b.Srem().Key(schema.Suspended).Member(kernel.ID(uid)).Build(),
		b.Hdel().Key(schema.User(uid)).Field(schema.FieldSuspended).Build(),
	}, retwis.Unsuspend
	if on {
		cmds, action = []rueidis.Completed{
			b.Sadd().Key(schema.Suspended).Member(kernel.ID(uid)).Build(),
			b.Hset().Key(schema.User(uid)).FieldValue().FieldValue(schema.FieldSuspended, strconv.FormatInt(time.Now().Unix(), 10)).Build(),
		}, retwis.Suspend
	}
	s.Written.Add(schema.Suspended, schema.User(uid))
	changed, err := s.C.Do(ctx, cmds[0]).AsInt64()
	if err == nil {
		err = s.C.Do(ctx, cmds[1]).Error()
	}
	if err != nil {
		return s.Wrap(string(action), err)
	}
	if changed == 1 && on {
		s.retrend(ctx, uid, -1)
	} else if changed == 1 {
		s.retrend(ctx, uid, 1)
	}
	if on {
		if err := s.EndAccess(ctx, uid); err != nil {
			return err
		}
	}
	return s.audit(ctx, by, action, "@"+u.Username, reason)
}

// Suspending an account takes the weight of its posts of the last
// TrendWindow (at most trendPosts of them) out of the trends, and lifting
// the suspension puts it back.
const trendPosts = 1000

// retrend adds sign (-1, 1) times the weight of uid's recent posts to
// their tags' trends. The trends are a courtesy: a failure is logged.
func (s *Store) retrend(ctx context.Context, uid int64, sign int) {
	pids, err := s.C.Do(ctx, s.C.B().Zrevrange().Key(schema.UserPosts(uid)).Start(0).Stop(trendPosts-1).Build()).AsIntSlice()
	if err != nil || len(pids) == 0 {
		s.logRetrend(uid, err)
		return
	}
	reads := make(rueidis.Commands, len(pids))
	for i, pid := range pids {
		reads[i] = s.C.B().Hmget().Key(schema.Post(pid)).Field(index.JobFields...).Build()
	}
	since := time.Now().Add(-posts.TrendWindow).Unix()
	var recent []index.Post
	for i, r := range s.C.DoMulti(ctx, reads...) {
		if p, _, ok, err := index.ParseJobPost(pids[i], r); err == nil && ok && p.Time >= since {
			recent = append(recent, p)
		}
	}
	s.logRetrend(uid, redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		var cmds rueidis.Commands
		for _, p := range recent {
			cmds = append(cmds, s.TrendCmds(p, sign)...)
		}
		return cmds
	})))
}

// logRetrend logs a failure of retrend.
func (s *Store) logRetrend(uid int64, err error) {
	if err != nil {
		s.Log.Warn("the trends keep (or miss) the tags of a suspended account's posts", "user", uid, "err", err)
	}
}

// SetModerator grants uid the moderator role (on) or takes it back, on
// the word of by. Moderators use the admin page. Recorded in the audit
// log.
func (s *Store) SetModerator(ctx context.Context, by retwis.Actor, uid int64, on bool) error {
	u, _, err := s.moderated(ctx, uid, "")
	if err != nil {
		return err
	}
	b := s.C.B()
	cmd, action := b.Hdel().Key(schema.User(uid)).Field(schema.FieldRole).Build(), retwis.RevokeModerator
	if on {
		cmd, action = b.Hset().Key(schema.User(uid)).FieldValue().FieldValue(schema.FieldRole, schema.RoleModerator).Build(), retwis.GrantModerator
	}
	s.Written.Add(schema.User(uid))
	if err := s.C.Do(ctx, cmd).Error(); err != nil {
		return s.Wrap(string(action), err)
	}
	return s.audit(ctx, by, action, "@"+u.Username, "")
}

// IsModerator reports whether uid has the moderator role, through the
// client-side cache.
func (s *Store) IsModerator(ctx context.Context, uid int64) (bool, error) {
	role, err := s.Cached(ctx, s.C.B().Hget().Key(schema.User(uid)).Field(schema.FieldRole).Cache(), accounts.AuthCacheTTL).ToString()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	return role == schema.RoleModerator, s.Wrap("role", err)
}

// SuspendedUsers returns the suspended accounts, at most n, in no
// particular order, and how many there are.
func (s *Store) SuspendedUsers(ctx context.Context, n int) ([]retwis.User, int64, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Srandmember().Key(schema.Suspended).Count(int64(n)).Build(), b.Scard().Key(schema.Suspended).Build())
	members, err := res[0].AsStrSlice()
	if err != nil {
		return nil, 0, s.Wrap("suspended", err)
	}
	total, err := res[1].AsInt64()
	if err != nil {
		return nil, 0, s.Wrap("suspended", err)
	}
	users, err := s.namedUsers(ctx, kernel.ParseIDs(members))
	return users, total, err
}

// RemovePost deletes post pid, whoever wrote it, on the word of by, for
// reason (optional), as DeletePost deletes one's own. Recorded in the
// audit log.
func (s *Store) RemovePost(ctx context.Context, by retwis.Actor, pid int64, reason string) error {
	reason, err := retwis.NormalizeReason(reason, false)
	if err != nil {
		return err
	}
	p, err := s.ModeratedPost(ctx, pid)
	if err != nil {
		return err
	}
	if err := s.DeletePost(ctx, p.AuthorID, pid); err != nil {
		return err
	}
	return s.audit(ctx, by, retwis.DeletePost, fmt.Sprintf("post %d by @%s", pid, p.Author), reason)
}

// moderated returns the user uid, to be moderated, and reason as
// stored; a user that does not exist is an error of kind NotFound.
func (s *Store) moderated(ctx context.Context, uid int64, reason string) (retwis.User, string, error) {
	reason, err := retwis.NormalizeReason(reason, false)
	if err != nil {
		return retwis.User{}, "", err
	}
	names, err := s.Usernames(ctx, []int64{uid})
	if err != nil {
		return retwis.User{}, "", err
	}
	if names[uid] == "" {
		return retwis.User{}, "", retwis.Errorf(retwis.NotFound, "There is no user %d.", uid)
	}
	return retwis.User{ID: uid, Username: names[uid]}, reason, nil
}

// namedUsers returns the users of uids that exist, with their names, in
// the order of uids.
func (s *Store) namedUsers(ctx context.Context, uids []int64) ([]retwis.User, error) {
	names, err := s.Usernames(ctx, uids)
	if err != nil {
		return nil, err
	}
	users := make([]retwis.User, 0, len(uids))
	for _, uid := range uids {
		if names[uid] != "" {
			users = append(users, retwis.User{ID: uid, Username: names[uid]})
		}
	}
	return users, nil
}

// audit records a moderation action in the audit log, which keeps about
// schema.AuditKept of them.
func (s *Store) audit(ctx context.Context, by retwis.Actor, action retwis.Action, target, reason string) error {
	cmd := s.C.B().Xadd().Key(schema.Audit).Maxlen().Almost().Threshold(strconv.Itoa(schema.AuditKept)).Id("*").
		FieldValue().FieldValue(schema.FieldAuditActor, string(by)).FieldValue(schema.FieldAuditAction, string(action)).
		FieldValue(schema.FieldAuditTarget, target).FieldValue(schema.FieldAuditReason, reason).Build()
	if err := s.C.Do(ctx, cmd).Error(); err != nil {
		return fmt.Errorf("%w (done, but not in the audit log)", s.Wrap("audit", err))
	}
	return nil
}

// AuditLog returns the newest n entries of the audit log, newest first.
func (s *Store) AuditLog(ctx context.Context, n int) ([]retwis.AuditEntry, error) {
	entries, err := s.C.Do(ctx, s.C.B().Xrevrange().Key(schema.Audit).End("+").Start("-").Count(int64(n)).Build()).AsXRange()
	if err != nil {
		return nil, s.Wrap("audit log", err)
	}
	out := make([]retwis.AuditEntry, len(entries))
	for i, e := range entries {
		out[i] = retwis.AuditEntry{ID: e.ID, At: streamTime(e.ID), Actor: retwis.Actor(e.FieldValues[schema.FieldAuditActor]),
			Action: retwis.Action(e.FieldValues[schema.FieldAuditAction]), Target: e.FieldValues[schema.FieldAuditTarget],
			Reason: e.FieldValues[schema.FieldAuditReason]}
	}
	return out, nil
}

// streamTime is the time of a stream entry's id ("<unix ms>-<seq>").
func streamTime(entry string) time.Time {
	ms, _, _ := strings.Cut(entry, "-")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return time.UnixMilli(n)
}
