package lists

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Add puts accounts in owner's list lid, as Mastodon does: each must be
// an account owner follows (else an error of kind NotFound) and not in
// the list yet (else Invalid), and the list may not grow past
// MaxMembers. Their newest posts go onto the list's timeline.
func (s *Store) Add(ctx context.Context, owner, lid int64, accounts []int64) error {
	if _, err := s.List(ctx, owner, lid); err != nil {
		return err
	}
	if err := s.mayAdd(ctx, owner, lid, accounts); err != nil {
		return err
	}
	var cmds rueidis.Commands
	for _, a := range accounts {
		cmds = append(cmds, index.ListJoinCmds(s.st.C, owner, lid, a)...)
	}
	s.st.Written.Add(schema.ListMembers(owner, lid))
	if err := redisconn.FirstErr(s.st.C.DoMulti(ctx, cmds...)); err != nil {
		return s.st.Wrap("add to a list", err)
	}
	return s.backfill(ctx, owner, lid, accounts)
}

// mayAdd refuses accounts that Add may not add to owner's list lid, in
// one round trip.
func (s *Store) mayAdd(ctx context.Context, owner, lid int64, accounts []int64) error {
	if len(accounts) == 0 {
		return nil
	}
	b := s.st.C.B()
	res := s.st.C.DoMulti(ctx,
		b.Zmscore().Key(schema.Following(owner)).Member(kernel.IDs(accounts)...).Build(),
		b.Smismember().Key(schema.ListMembers(owner, lid)).Member(kernel.IDs(accounts)...).Build(),
		b.Scard().Key(schema.ListMembers(owner, lid)).Build())
	followed, err := res[0].ToArray()
	if err != nil {
		return s.st.Wrap("add to a list: follows", err)
	}
	in, err := res[1].AsIntSlice()
	if err != nil {
		return s.st.Wrap("add to a list: members", err)
	}
	n, err := res[2].AsInt64()
	if err != nil {
		return s.st.Wrap("add to a list: members", err)
	}
	for i := range accounts {
		if followed[i].IsNil() {
			return notFound() // not followed: Mastodon says the same
		}
		if in[i] == 1 {
			return retwis.Errorf(retwis.Invalid, "Validation failed: Account has already been taken")
		}
	}
	if int(n)+len(accounts) > MaxMembers {
		return retwis.Errorf(retwis.Invalid, "A list holds at most %d accounts.", MaxMembers)
	}
	return nil
}

// backfill pushes the newest posts of accounts onto the timeline of
// owner's list lid, in two round trips.
func (s *Store) backfill(ctx context.Context, owner, lid int64, accounts []int64) error {
	cmds := make(rueidis.Commands, len(accounts))
	for i, a := range accounts {
		cmds[i] = s.st.C.B().Zrevrange().Key(schema.UserPosts(a)).Start(0).Stop(backfillPosts - 1).Build()
	}
	var pids []int64
	for _, r := range s.st.C.DoMulti(ctx, cmds...) {
		ids, err := r.AsIntSlice()
		if err != nil {
			return s.st.Wrap("add to a list: posts", err)
		}
		pids = append(pids, ids...)
	}
	if len(pids) == 0 {
		return nil
	}
	return s.st.Wrap("add to a list: posts", redisconn.FirstErr(s.st.C.DoMulti(ctx, index.ListPushCmds(s.st.C, owner, lid, pids...)...)))
}

// Remove takes accounts out of owner's list lid (those not in it are
// ignored); an error of kind NotFound if there is no such list.
func (s *Store) Remove(ctx context.Context, owner, lid int64, accounts []int64) error {
	if _, err := s.List(ctx, owner, lid); err != nil {
		return err
	}
	return s.leave(ctx, owner, lid, accounts)
}

// leave takes accounts out of owner's list lid, in one round trip.
func (s *Store) leave(ctx context.Context, owner, lid int64, accounts []int64) error {
	if len(accounts) == 0 {
		return nil
	}
	var cmds rueidis.Commands
	for _, a := range accounts {
		cmds = append(cmds, index.ListLeaveCmds(s.st.C, owner, lid, a)...)
	}
	s.st.Written.Add(schema.ListMembers(owner, lid))
	return s.st.Wrap("remove from a list", redisconn.FirstErr(s.st.C.DoMulti(ctx, cmds...)))
}

// ListsOf returns those of owner's lists that hold account, in two
// round trips.
func (s *Store) ListsOf(ctx context.Context, owner, account int64) ([]List, error) {
	all, err := s.Lists(ctx, owner)
	if err != nil || len(all) == 0 {
		return all, err
	}
	cmds := make(rueidis.Commands, len(all))
	for i, l := range all {
		cmds[i] = s.st.C.B().Sismember().Key(schema.ListMembers(owner, l.ID)).Member(kernel.ID(account)).Build()
	}
	held := []List{}
	for i, r := range s.st.C.DoMulti(ctx, cmds...) {
		in, err := r.AsBool()
		if err != nil {
			return nil, s.st.Wrap("lists of an account", err)
		}
		if in {
			held = append(held, all[i])
		}
	}
	return held, nil
}

// DeleteAccount removes what the lists keep of uid, an account being
// deleted: uid's lists (Delete), and uid out of the lists that hold it.
func (s *Store) DeleteAccount(ctx context.Context, uid int64) error {
	own, err := s.Lists(ctx, uid)
	if err != nil {
		return err
	}
	for _, l := range own {
		if err := s.Delete(ctx, uid, l.ID); err != nil {
			return err
		}
	}
	held, err := s.st.C.Do(ctx, s.st.C.B().Smembers().Key(schema.Listed(uid)).Build()).AsStrSlice()
	if err != nil {
		return s.st.Wrap("deletion: lists", err)
	}
	for _, m := range held {
		if owner, lid, ok := schema.ParseListedMember(m); ok {
			if err := s.leave(ctx, owner, lid, []int64{uid}); err != nil {
				return err
			}
		}
	}
	return s.st.Wrap("deletion: lists", s.st.C.Do(ctx, s.st.C.B().Del().Key(schema.Listed(uid)).Build()).Error())
}

// MemberUsers returns owner's list lid and its members with their
// usernames, newest account first, or an error of kind NotFound if there
// is no such list.
func (s *Store) MemberUsers(ctx context.Context, owner, lid int64) (List, []retwis.User, error) {
	l, err := s.List(ctx, owner, lid)
	if err != nil {
		return l, nil, err
	}
	ids, err := s.Members(ctx, owner, lid)
	if err != nil {
		return l, nil, err
	}
	names, err := s.st.Usernames(ctx, ids)
	if err != nil {
		return l, nil, err
	}
	users := make([]retwis.User, 0, len(ids))
	for _, id := range ids {
		if names[id] != "" {
			users = append(users, retwis.User{ID: id, Username: names[id]})
		}
	}
	return l, users, nil
}
