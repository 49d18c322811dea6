package check

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// checker is the store a check reads and repairs: the verifications
// are its methods, reading through the store's client (kernel.DB) and
// its exported reads.
type checker struct{ *store.Store }

// checkWalk is one walk of a check: the keys of type keyType matching
// pattern, and what verifies a batch of them.
type checkWalk struct {
	pattern, keyType string
	verify           func(s checker, ctx context.Context, keys []string, run *checkRun) ([]finding, error)
}

// checkKind is a kind of derived index that Run verifies, by one walk
// or more.
type checkKind struct {
	name  string
	walks []checkWalk
}

// checkKinds are the kinds Run knows, each with its source of truth:
// a user's set of users followed is the truth of the follows (its set
// of tags followed, of the tags' followers), the user
// hashes of the names, people and directory, the post hashes of the
// posts' indexes, a user's favourites of who favourited a post and its
// count, a conversation's posts of the list of conversations, a list's
// members of the lists that hold a user, a user's API tokens of their
// push subscriptions, a user's scheduled posts of their due times.
var checkKinds = []checkKind{
	{"follows", []checkWalk{{schema.FollowingKeys, "zset", checker.checkFollowing}}},
	{"followers", []checkWalk{{schema.FollowersKeys, "zset", checker.checkFollowers}}},
	{"graph", []checkWalk{{schema.GraphKeys, "zset", checker.checkGraph}}},
	{"blocks", []checkWalk{
		{schema.BlocksKeys, "zset", checker.checkBlocks},
		{schema.BlockedByKeys, "zset", checker.checkBlockedBy},
	}},
	{"tag-follows", []checkWalk{
		{schema.TagsFollowedKeys, "zset", checker.checkTagsFollowed},
		{schema.TagFollowersKeys, "zset", checker.checkTagFollowers},
	}},
	{"posts", []checkWalk{{schema.PostKeys, "hash", checker.checkPosts}}},
	{"post-indexes", []checkWalk{
		{schema.UserPostsKeys, "zset", checker.checkPostRefs},
		{schema.MentionsKeys, "zset", checker.checkPostRefs},
		{schema.DirectKeys, "zset", checker.checkPostRefs},
		{schema.BookmarksKeys, "zset", checker.checkPostRefs},
		{schema.PinsKeys, "zset", checker.checkPostRefs},
		{schema.RepliesKeys, "zset", checker.checkPostRefs},
		{schema.TagKeys, "zset", checker.checkPostRefs},
		{schema.ListPostsKeys, "zset", checker.checkPostRefs},
	}},
	{"favourites", []checkWalk{
		{schema.FavouritesKeys, "zset", checker.checkFavourites},
		{schema.FavouritedByKeys, "zset", checker.checkFavouritedBy},
	}},
	// The posts first: a repair there may change a list's scores.
	{"conversations", []checkWalk{
		{schema.ConversationKeys, "zset", checker.checkConversationPosts},
		{schema.ConversationsKeys, "zset", checker.checkConversations},
	}},
	{"scheduled", []checkWalk{{schema.ScheduledKeys, "hash", checker.checkScheduled}}},
	{"timelines", []checkWalk{
		{schema.HomeKeys, "list", checker.checkTimelines},
		{schema.ChunkKeys, "list", checker.checkTimelines},
		{schema.Timeline, "list", checker.checkTimelines},
	}},
	{"boosts", []checkWalk{
		{schema.BoostsKeys, "hash", checker.checkBoostMarks},
		{schema.RebloggedByKeys, "zset", checker.checkRebloggedBy},
	}},
	{"names", []checkWalk{{schema.NameKeys, "hash", checker.checkNames}}},
	// After the follows and the posts, which are the facts of the
	// directory's entries: a repair of those comes first.
	{"users", []checkWalk{{schema.UserKeys, "hash", checker.checkUsers}}},
	{"people", []checkWalk{{schema.PeopleKeys, "zset", checker.checkPeople}}},
	{"directory", []checkWalk{{schema.Explore, "zset", checker.checkDirectory}}},
	{"lists", []checkWalk{
		{schema.ListMembersKeys, "set", checker.checkListMembers},
		{schema.ListedKeys, "set", checker.checkListed},
	}},
	{"leftovers", []checkWalk{{schema.SnapshotKeys, "zset", checker.checkSnapshots}}},
	{"push", []checkWalk{{schema.PushSubscriptionsKeys, "hash", checker.checkPushSubscriptions}}},
}

// checkRun is the state of one call of Run that its verifications
// share.
type checkRun struct {
	opts Options
	// posts holds ids of posts found to exist, up to knownPosts, so that
	// a post in many timelines is asked about once (one deleted after
	// is missed until the next check).
	posts map[int64]bool
}

// knownPosts bounds checkRun.posts.
const knownPosts = 1 << 20

// sawPost records whether post pid exists.
func (run *checkRun) sawPost(pid int64, exists bool) {
	if exists && len(run.posts) < knownPosts {
		run.posts[pid] = true
	}
}

// checkPage is how many members of a set the check reads at a time, and
// checkPipeline how many commands it sends in one pipeline.
const (
	checkPage     = 1000
	checkPipeline = 10000
)

// doMany runs cmds in pipelines of checkPipeline.
func (s checker) doMany(ctx context.Context, cmds rueidis.Commands) []rueidis.RedisResult {
	res := make([]rueidis.RedisResult, 0, len(cmds))
	for start := 0; start < len(cmds); start += checkPipeline {
		res = append(res, s.C.DoMulti(ctx, cmds[start:min(start+checkPipeline, len(cmds))]...)...)
	}
	return res
}

// zentry is a member of a sorted set that a check walks, with its key.
type zentry struct {
	key string
	rueidis.ZScore
}

// zentries reads every member of the sorted sets keys, with its score,
// a page at a time, the pages of all keys in one pipeline.
func (s checker) zentries(ctx context.Context, keys []string) ([]zentry, error) {
	var all []zentry
	read := make([]int64, len(keys)) // members read of each key
	pending := make([]int, len(keys))
	for i := range keys {
		pending[i] = i
	}
	for len(pending) > 0 {
		cmds := make(rueidis.Commands, len(pending))
		for j, i := range pending {
			cmds[j] = s.C.B().Zrange().Key(keys[i]).Min(strconv.FormatInt(read[i], 10)).Max(strconv.FormatInt(read[i]+checkPage-1, 10)).Withscores().Build()
		}
		var more []int
		for j, r := range s.doMany(ctx, cmds) {
			i := pending[j]
			page, err := r.AsZScores()
			if err != nil {
				return nil, s.Wrap("check: read "+keys[i], err)
			}
			for _, m := range page {
				all = append(all, zentry{keys[i], m})
			}
			if read[i] += int64(len(page)); len(page) == checkPage {
				more = append(more, i)
			}
		}
		pending = more
	}
	return all, nil
}

// expectation is an entry that ought to be in a sorted set: the command
// that adds it (ZADD key score member), what it is and where, should it
// be missing.
type expectation struct {
	add         []string
	what, where string
	key         string // the key walked that calls for it
}

// missing returns a finding for each of want whose entry is not there,
// with its ZADD as the fix; one pipeline of ZSCOREs.
func (s checker) missing(ctx context.Context, want []expectation) ([]finding, error) {
	cmds := make(rueidis.Commands, len(want))
	for i, w := range want {
		cmds[i] = s.C.B().Zscore().Key(w.add[1]).Member(w.add[len(w.add)-1]).Build()
	}
	var found []finding
	for i, r := range s.doMany(ctx, cmds) {
		err := r.Error()
		if rueidis.IsRedisNil(err) {
			found = append(found, finding{what: want[i].what, where: want[i].where, key: want[i].key, fix: [][]string{want[i].add}})
		} else if err != nil {
			return nil, s.Wrap("check: read", err)
		}
	}
	return found, nil
}

// checkFollowing verifies that each follow of the sets of users followed
// keys is in the followee's followers and in the graph, unless the
// followee is gone: then the follow is what is wrong (see
// followsOfGone).
func (s checker) checkFollowing(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	keys, err := s.notDeleting(ctx, keys, schema.FollowingOf)
	if err != nil {
		return nil, err
	}
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var want []expectation
	follows := map[string][2]int64{} // where -> follower, followee
	for _, e := range entries {
		u, ok := schema.FollowingOf(e.key)
		v, err := strconv.ParseInt(e.Member, 10, 64)
		if !ok || err != nil {
			continue
		}
		where := fmt.Sprintf("user %d follows %d", u, v)
		follows[where] = [2]int64{u, v}
		want = append(want, expectation{[]string{"ZADD", schema.Followers(v), score64(e.Score), kernel.ID(u)},
			"a follow missing from the followee's followers", where, e.key})
		for _, edge := range index.EdgeWrites("ZADD", u, schema.RelFollows, v) {
			want = append(want, expectation{edge, "a follow missing from the graph", where, e.key})
		}
	}
	found, err := s.missing(ctx, want)
	if err != nil || len(found) == 0 {
		return found, err
	}
	return s.followsOfGone(ctx, found, follows)
}

// followsOfGone looks at the followees of the follows found incomplete
// (follows maps a finding's where to the follower and the followee): a
// follow of an account that is gone (no user hash, no deletion under
// way), which a follow made while the account was being deleted can
// leave, is found as such, once, and its fix ends it; one of an account
// being deleted is left to the deletion. Two probes per followee, in one
// pipeline.
func (s checker) followsOfGone(ctx context.Context, found []finding, follows map[string][2]int64) ([]finding, error) {
	var followees []int64
	var probes rueidis.Commands
	for _, f := range found {
		if v := follows[f.where][1]; !slices.Contains(followees, v) {
			followees = append(followees, v)
			probes = append(probes, s.C.B().Hexists().Key(schema.User(v)).Field(schema.FieldUsername).Build(),
				s.C.B().Exists().Key(schema.Deleting(v)).Build())
		}
	}
	res := s.doMany(ctx, probes)
	exists, deleting := map[int64]bool{}, map[int64]bool{}
	for i, v := range followees {
		user, err1 := res[2*i].AsInt64()
		del, err2 := res[2*i+1].AsInt64()
		if err := cmp.Or(err1, err2); err != nil {
			return nil, s.Wrap("check: read users", err)
		}
		exists[v], deleting[v] = user == 1, del == 1
	}
	var out []finding
	ended := map[string]bool{}
	for _, f := range found {
		pair := follows[f.where]
		switch v := pair[1]; {
		case deleting[v]:
		case exists[v]:
			out = append(out, f)
		case !ended[f.where]:
			ended[f.where] = true
			out = append(out, finding{"a follow of an account that is gone", f.where, f.key, store.UnfollowWrites(pair[0], v)})
		}
	}
	return out, nil
}

// notDeleting returns the keys of keys that belong to a user (owner
// tells whose, and which do) whose account is not being deleted: the
// deletion ends the follows of such an account one side after the other,
// and a check must not take a follow half ended for one half made (one
// pipeline of EXISTS, in the users' slots).
func (s checker) notDeleting(ctx context.Context, keys []string, owner func(string) (int64, bool)) ([]string, error) {
	var owned []string
	var probes rueidis.Commands
	for _, k := range keys {
		if uid, ok := owner(k); ok {
			owned, probes = append(owned, k), append(probes, s.C.B().Exists().Key(schema.Deleting(uid)).Build())
		}
	}
	kept := owned[:0]
	for i, r := range s.doMany(ctx, probes) {
		n, err := r.AsInt64()
		if err != nil {
			return nil, s.Wrap("check: read deletions", err)
		}
		if n == 0 {
			kept = append(kept, owned[i])
		}
	}
	return kept, nil
}

// score64 writes a score.
func score64(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// gone is an entry of an index whose source may be gone: the command
// that reads whether it is there (EXISTS, HEXISTS: 0 for gone; ZSCORE,
// HGET: nil for gone), and the command that removes the entry.
type gone struct {
	probe       rueidis.Completed
	remove      []string
	what, where string
	key         string
}

// stale returns a finding for each of entries whose probe says its
// source is gone, with its removal as the fix; one pipeline.
func (s checker) stale(ctx context.Context, entries []gone) ([]finding, error) {
	cmds := make(rueidis.Commands, len(entries))
	for i, e := range entries {
		cmds[i] = e.probe
	}
	var found []finding
	for i, r := range s.doMany(ctx, cmds) {
		msg, err := r.ToMessage()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.Wrap("check: read", err)
		}
		if n, _ := msg.AsInt64(); rueidis.IsRedisNil(err) || (msg.IsInt64() && n == 0) {
			e := entries[i]
			found = append(found, finding{what: e.what, where: e.where, key: e.key, fix: [][]string{e.remove}})
		}
	}
	return found, nil
}

// checkFollowers verifies that each follower of the followers keys
// follows.
func (s checker) checkFollowers(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	keys, err := s.notDeleting(ctx, keys, schema.FollowersOf)
	if err != nil {
		return nil, err
	}
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var suspects []gone
	for _, e := range entries {
		v, _ := schema.FollowersOf(e.key)
		if u, err := strconv.ParseInt(e.Member, 10, 64); err == nil {
			suspects = append(suspects, gone{s.C.B().Zscore().Key(schema.Following(u)).Member(kernel.ID(v)).Build(),
				[]string{"ZREM", e.key, e.Member}, "a follower who does not follow", fmt.Sprintf("user %d in the followers of %d", u, v), e.key})
		}
	}
	return s.stale(ctx, suspects)
}

// checkBlocks verifies that each block of the blocks keys is among the
// blocked user's blockers, which filter what that user reads.
func (s checker) checkBlocks(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var want []expectation
	for _, e := range entries {
		u, ok := schema.BlocksOf(e.key)
		v, err := strconv.ParseInt(e.Member, 10, 64)
		if ok && err == nil {
			want = append(want, expectation{[]string{"ZADD", schema.BlockedBy(v), score64(e.Score), kernel.ID(u)},
				"a block missing from the blocked user's blockers", fmt.Sprintf("user %d blocks %d", u, v), e.key})
		}
	}
	return s.missing(ctx, want)
}

// checkBlockedBy verifies that each blocker of the blocked_by keys
// blocks.
func (s checker) checkBlockedBy(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var suspects []gone
	for _, e := range entries {
		v, ok := schema.BlockedByOf(e.key)
		u, err := strconv.ParseInt(e.Member, 10, 64)
		if ok && err == nil {
			suspects = append(suspects, gone{s.C.B().Zscore().Key(schema.Blocks(u)).Member(kernel.ID(v)).Build(),
				[]string{"ZREM", e.key, e.Member}, "a blocker who does not block", fmt.Sprintf("user %d among the blockers of %d", u, v), e.key})
		}
	}
	return s.stale(ctx, suspects)
}

// checkGraph verifies that each follow of the graph keys is one.
func (s checker) checkGraph(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	keys, err := s.notDeleting(ctx, keys, schema.GraphOf)
	if err != nil {
		return nil, err
	}
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var suspects []gone
	for _, e := range entries {
		parts := strings.Split(e.Member, ":")
		if len(parts) != 4 || parts[2] != schema.RelFollows {
			continue // the other relations are of posts, not checked
		}
		a, errA := strconv.ParseInt(parts[1], 10, 64)
		b, errB := strconv.ParseInt(parts[3], 10, 64)
		if errA != nil || errB != nil || (parts[0] != "spo" && parts[0] != "ops") {
			continue
		}
		subject, object := a, b
		if parts[0] == "ops" {
			subject, object = b, a
		}
		suspects = append(suspects, gone{s.C.B().Zscore().Key(schema.Following(subject)).Member(kernel.ID(object)).Build(),
			[]string{"ZREM", e.key, e.Member}, "a follow in the graph that is not one", e.Member + " in " + e.key, e.key})
	}
	return s.stale(ctx, suspects)
}

// checkNames verifies that each name of the name indexes keys leads to a
// user of that name.
func (s checker) checkNames(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		cmds[i] = s.C.B().Hgetall().Key(k).Build()
	}
	type claim struct {
		key, name string
		uid       int64
	}
	var claims []claim
	for i, r := range s.doMany(ctx, cmds) {
		m, err := r.AsStrMap()
		if err != nil {
			return nil, s.Wrap("check: read "+keys[i], err)
		}
		for name, v := range m {
			if uid, err := strconv.ParseInt(v, 10, 64); err == nil {
				claims = append(claims, claim{keys[i], name, uid})
			}
		}
	}
	reads := make(rueidis.Commands, len(claims))
	for i, c := range claims {
		reads[i] = s.C.B().Hget().Key(schema.User(c.uid)).Field(schema.FieldUsername).Build()
	}
	var found []finding
	for i, r := range s.doMany(ctx, reads) {
		name, err := r.ToString()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.Wrap("check: read users", err)
		}
		c := claims[i]
		owned := name == c.name || (strings.HasSuffix(c.key, ":folded") && retwis.FoldUsername(name) == c.name)
		what := "a name of a user who is gone"
		if name != "" {
			what = "a name of a user of another name"
		}
		if !owned {
			found = append(found, finding{what, fmt.Sprintf("%q -> user %d in %s", c.name, c.uid, c.key), c.key,
				[][]string{{"HDEL", c.key, c.name}}})
		}
	}
	return found, nil
}

// checkUsers verifies that each user of the user hashes keys has its
// name, its entries in the people search and its entry in the directory;
// a hash whose name is not its own, older than opts.Grace, is what a
// sign-up that crashed before claiming the name left, and goes, with
// the session the sign-up began.
func (s checker) checkUsers(ctx context.Context, keys []string, run *checkRun) ([]finding, error) {
	uids, res := s.ReadEach(ctx, keys, schema.UserOf, func(k string) rueidis.Completed {
		return s.C.B().Hmget().Key(k).Field(schema.FieldUsername, schema.FieldDisplayName, schema.FieldJoined).Build()
	})
	names := make([]string, len(uids))
	claims := make(rueidis.Commands, len(uids))
	var found []finding
	for i, r := range res {
		vals, err := r.ToArray()
		if err != nil || len(vals) != 3 {
			return nil, s.Wrap("check: read users", cmp.Or(err, kernel.ErrShape))
		}
		names[i], _ = vals[0].ToString()
		claims[i] = s.C.B().Hget().Key(schema.Names(names[i])).Field(names[i]).Build()
		if names[i] == "" { // reported, not repaired: an operator should look
			found = append(found, finding{what: "a user hash without a username", where: schema.User(uids[i]), key: schema.User(uids[i])})
		}
	}
	owners := s.doMany(ctx, claims)
	var want []expectation
	var live []int64
	for i, uid := range uids {
		if names[i] == "" {
			continue
		}
		owner, err := owners[i].AsInt64()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, s.Wrap("check: read names", err)
		}
		vals, _ := res[i].ToArray()
		if owner != uid {
			joined, _ := vals[2].AsInt64()
			if time.Since(time.Unix(joined, 0)) > run.opts.Grace {
				found = append(found, finding{"an account whose sign-up never finished", fmt.Sprintf("user %d (%q)", uid, names[i]),
					schema.User(uid), [][]string{{"DEL", schema.User(uid)}, {"DEL", schema.Sessions(uid)}}})
			}
			continue
		}
		live = append(live, uid)
		display, _ := vals[1].ToString()
		for _, add := range index.PeopleWrites(uid, retwis.SearchTerms(names[i], display), nil) {
			want = append(want, expectation{add, "a user missing from the people search", fmt.Sprintf("%s for user %d", add[3], uid), schema.User(uid)})
		}
	}
	more, err := s.missing(ctx, want)
	if err != nil {
		return nil, err
	}
	directory, err := s.checkEntriesOf(ctx, live)
	return append(append(found, more...), directory...), err
}

// checkEntriesOf verifies the directory's entries for uids against their
// facts.
func (s checker) checkEntriesOf(ctx context.Context, uids []int64) ([]finding, error) {
	all, err := s.ReadFacts(ctx, uids, time.Now(), false)
	if err != nil {
		return nil, err
	}
	cmds := make(rueidis.Commands, len(uids))
	for i, uid := range uids {
		cmds[i] = s.C.B().Zscore().Key(schema.Explore).Member(kernel.ID(uid)).Build()
	}
	var found []finding
	for i, r := range s.doMany(ctx, cmds) {
		f := all[i]
		code, err := r.AsFloat64()
		what := "a directory entry out of date"
		if rueidis.IsRedisNil(err) {
			what, err = "a user missing from the directory", nil
		} else if err == nil && uint64(code) == f.Code() {
			continue
		}
		if err != nil {
			return nil, s.Wrap("check: read the directory", err)
		}
		found = append(found, finding{what, fmt.Sprintf("user %d", uids[i]), schema.User(uids[i]),
			[][]string{{"ZADD", schema.Explore, strconv.FormatUint(f.Code(), 10), kernel.ID(uids[i])}}})
	}
	return found, nil
}

// checkPeople verifies that each entry of the people search keys is a
// term of its user's names.
func (s checker) checkPeople(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	terms := map[int64][]string{}
	var uids []int64
	for _, e := range entries {
		if _, uid, ok := schema.PeopleEntryOf(e.Member); ok && terms[uid] == nil {
			terms[uid], uids = []string{}, append(uids, uid)
		}
	}
	cmds := make(rueidis.Commands, len(uids))
	for i, uid := range uids {
		cmds[i] = s.C.B().Hmget().Key(schema.User(uid)).Field(schema.FieldUsername, schema.FieldDisplayName).Build()
	}
	exists := map[int64]bool{}
	for i, r := range s.doMany(ctx, cmds) {
		vals, err := r.ToArray()
		if err != nil || len(vals) != 2 {
			return nil, s.Wrap("check: read users", cmp.Or(err, kernel.ErrShape))
		}
		name, _ := vals[0].ToString()
		display, _ := vals[1].ToString()
		exists[uids[i]], terms[uids[i]] = name != "", retwis.SearchTerms(name, display)
	}
	var found []finding
	for _, e := range entries {
		term, uid, ok := schema.PeopleEntryOf(e.Member)
		what := "a search entry of a user who is gone"
		switch {
		case !ok:
			continue
		case !exists[uid]:
		case !slices.Contains(terms[uid], term):
			what = "a search entry of a name the user no longer has"
		default:
			continue
		}
		found = append(found, finding{what, e.Member + " in " + e.key, e.key, [][]string{{"ZREM", e.key, e.Member}}})
	}
	return found, nil
}

// checkDirectory verifies that each entry of the directory is of a user
// (users' entries are verified against their facts by checkUsers).
func (s checker) checkDirectory(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var suspects []gone
	for _, e := range entries {
		if uid, err := strconv.ParseInt(e.Member, 10, 64); err == nil {
			suspects = append(suspects, gone{s.C.B().Hexists().Key(schema.User(uid)).Field(schema.FieldUsername).Build(),
				[]string{"ZREM", e.key, e.Member}, "a directory entry of a user who is gone", "user " + e.Member, e.key})
		}
	}
	return s.stale(ctx, suspects)
}

// checkPosts verifies that each post of the post hashes keys is in its
// author's posts and, once delivered, in the indexes of its tags,
// mentions and reply, and that an edited one's indexes follow its text
// (editFollowed).
func (s checker) checkPosts(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	fields := append(slices.Clone(index.JobFields), schema.FieldBody, schema.FieldEdited, schema.FieldDelivered)
	pids, res := s.ReadEach(ctx, keys, schema.PostOf, func(k string) rueidis.Completed {
		return s.C.B().Hmget().Key(k).Field(fields...).Build()
	})
	var want []expectation
	var found []finding
	subjects := map[string]rueidis.Completed{}
	for i, r := range res {
		p, _, ok, err := index.ParseJobPost(pids[i], r)
		if err != nil {
			return nil, s.Wrap("check: read posts", err)
		}
		key := schema.Post(pids[i])
		if !ok {
			found = append(found, finding{what: "a post hash without an author", where: key, key: key})
			continue
		}
		pid := kernel.ID(p.ID)
		want = append(want, expectation{[]string{"ZADD", schema.UserPosts(p.Author), pid, pid}, "a post missing from its author's posts", key, key})
		vals, _ := r.ToArray()
		if vals[len(vals)-1].IsNil() {
			continue // its delivery job indexes it
		}
		if body, _ := vals[len(vals)-3].ToString(); !vals[len(vals)-2].IsNil() && !editFollowed(p, body) {
			q := schema.QueueOf(p.Author)
			found = append(found, finding{"an edited post whose indexes do not follow its text", key, key, [][]string{{"XADD", q.Stream, "*",
				schema.JobKind, schema.JobEdit, schema.JobPost, pid, schema.JobAuthor, kernel.ID(p.Author)}}})
		}
		for _, c := range index.Writes(p) { // p.noted is 0: no notifications
			if _, isGraph := schema.GraphOf(c[1]); c[0] == "ZADD" && !isGraph {
				want = append(want, expectation{c, "a post missing from the index of a tag, mention, reply or Direct page", key + " in " + c[1], key})
			}
		}
		s.subjectsOf(p, subjects)
	}
	want, err := s.ofSubjects(ctx, want, subjects)
	if err != nil {
		return nil, err
	}
	more, err := s.missing(ctx, want)
	return append(found, more...), err
}

// editFollowed reports whether what p's hash records of its tags and
// mentions (what the indexes hold) may be what its body says: the same
// tags, and no mention the body no longer makes (whether a new @name is
// a user takes a lookup, left to the edit job). Its fix is an edit job.
func editFollowed(p index.Post, body string) bool {
	tags, names := retwis.TagsAndMentions(body)
	if !slices.Equal(foldedSet(tags, retwis.FoldTag), foldedSet(p.Conv.Tags, retwis.FoldTag)) {
		return false
	}
	said := foldedSet(names, retwis.FoldUsername)
	for _, u := range p.Conv.Mentions {
		if _, ok := slices.BinarySearch(said, retwis.FoldUsername(u.Username)); !ok {
			return false
		}
	}
	return true
}

// foldedSet returns the folded forms of words, sorted, without repeats.
func foldedSet(words []string, fold func(string) string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = fold(w)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// subjectsOf adds to subjects, for the indexes of p's mentions and
// reply, the probe of what each indexes (EXISTS or HEXISTS, 0 for gone):
// the user mentioned (for their mentions and Direct index), the post
// answered.
func (s checker) subjectsOf(p index.Post, subjects map[string]rueidis.Completed) {
	b := s.C.B()
	for _, u := range p.Conv.Mentions {
		for _, k := range []string{schema.Mentions(u.ID), schema.Direct(u.ID)} {
			if !known(subjects, k) {
				subjects[k] = b.Hexists().Key(schema.User(u.ID)).Field(schema.FieldUsername).Build()
			}
		}
	}
	if k := schema.Replies(p.Conv.ReplyTo); p.Conv.ReplyTo > 0 && !known(subjects, k) {
		subjects[k] = b.Exists().Key(schema.Post(p.Conv.ReplyTo)).Build()
	}
}

// known reports whether subjects has a probe for k.
func known(subjects map[string]rueidis.Completed, k string) bool { _, ok := subjects[k]; return ok }

// ofSubjects returns want without the expectations of an index whose
// subject is gone (subjects maps an index to the probe of its subject):
// the mentions of a deleted account, the replies of a deleted post are
// no index to expect. One pipeline.
func (s checker) ofSubjects(ctx context.Context, want []expectation, subjects map[string]rueidis.Completed) ([]expectation, error) {
	keys := make([]string, 0, len(subjects))
	cmds := make(rueidis.Commands, 0, len(subjects))
	for k, probe := range subjects {
		keys, cmds = append(keys, k), append(cmds, probe)
	}
	gone := map[string]bool{}
	for i, r := range s.doMany(ctx, cmds) {
		n, err := r.AsInt64()
		if err != nil {
			return nil, s.Wrap("check: read", err)
		}
		gone[keys[i]] = n == 0
	}
	return slices.DeleteFunc(want, func(w expectation) bool { return gone[w.add[1]] }), nil
}

// checkPostRefs verifies that each post of the post indexes keys (a
// user's posts, mentions, Direct page, bookmarks and pins, a post's
// replies, a tag's posts by id or by day) exists.
func (s checker) checkPostRefs(ctx context.Context, keys []string, run *checkRun) ([]finding, error) {
	entries, err := s.zentries(ctx, keys)
	if err != nil {
		return nil, err
	}
	var refs []postRef
	for _, e := range entries {
		_, post, _ := strings.Cut(e.Member, ":") // a day's entry is "<day>:<post id>"
		if post == "" {
			post = e.Member
		}
		if pid, err := strconv.ParseInt(post, 10, 64); err == nil {
			refs = append(refs, postRef{pid, e.key, []string{"ZREM", e.key, e.Member}})
		}
	}
	return s.refsToGone(ctx, run, refs, "an index entry of a post that is gone")
}

// postRef is an entry of an index (key) that names a post, with the
// command that removes it.
type postRef struct {
	pid    int64
	key    string
	remove []string
}

// refsToGone returns a finding, what, for each of refs whose post is
// gone; it asks once about each post, in one pipeline, but for the posts
// the run saw already.
func (s checker) refsToGone(ctx context.Context, run *checkRun, refs []postRef, what string) ([]finding, error) {
	var pids []int64
	asked := map[int64]bool{}
	for _, r := range refs {
		if !asked[r.pid] && !run.posts[r.pid] {
			asked[r.pid], pids = true, append(pids, r.pid)
		}
	}
	cmds := make(rueidis.Commands, len(pids))
	for i, pid := range pids {
		cmds[i] = s.C.B().Exists().Key(schema.Post(pid)).Build()
	}
	exists := make(map[int64]bool, len(pids))
	for i, r := range s.doMany(ctx, cmds) {
		n, err := r.AsInt64()
		if err != nil {
			return nil, s.Wrap("check: read posts", err)
		}
		exists[pids[i]] = n == 1
		run.sawPost(pids[i], n == 1)
	}
	var found []finding
	for _, r := range refs {
		if !exists[r.pid] && !run.posts[r.pid] {
			found = append(found, finding{what, fmt.Sprintf("post %d in %s", r.pid, r.key), r.key, [][]string{r.remove}})
		}
	}
	return found, nil
}

// checkTimelines verifies that each post of the timelines keys (home
// timelines, their archives' chunks, the global timeline) exists.
func (s checker) checkTimelines(ctx context.Context, keys []string, run *checkRun) ([]finding, error) {
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		cmds[i] = s.C.B().Lrange().Key(k).Start(0).Stop(-1).Build()
	}
	var refs []postRef
	for i, r := range s.doMany(ctx, cmds) {
		pids, err := r.AsIntSlice()
		if err != nil {
			return nil, s.Wrap("check: read "+keys[i], err)
		}
		for _, pid := range pids {
			refs = append(refs, postRef{pid, keys[i], []string{"LREM", keys[i], "0", kernel.ID(pid)}})
		}
	}
	return s.refsToGone(ctx, run, refs, "a timeline entry of a post that is gone")
}

// checkSnapshots verifies that each delivery snapshot of keys belongs to
// a job registered in a shard of the queue (maintenance removes those of
// registered jobs that vanished).
func (s checker) checkSnapshots(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	var cmds rueidis.Commands
	var owned []string
	for _, k := range keys {
		if _, job, ok := schema.SnapshotOf(k); ok {
			owned = append(owned, k)
			for n := range schema.QueueShards {
				cmds = append(cmds, s.C.B().Hexists().Key(schema.QueueN(n).Snapshots).Field(job).Build())
			}
		}
	}
	res := s.doMany(ctx, cmds)
	var found []finding
	for i, k := range owned {
		registered := false
		for _, r := range res[i*schema.QueueShards : (i+1)*schema.QueueShards] {
			n, err := r.AsInt64()
			if err != nil {
				return nil, s.Wrap("check: read the queue", err)
			}
			registered = registered || n == 1
		}
		if !registered {
			found = append(found, finding{"a delivery snapshot of no job", k, k, [][]string{{"DEL", k}}})
		}
	}
	return found, nil
}

// checkPushSubscriptions verifies that each push subscription of keys
// belongs to a token its user still has: a token's revocation removes
// its subscription in the same pipeline, which a failure can cut.
func (s checker) checkPushSubscriptions(ctx context.Context, keys []string, _ *checkRun) ([]finding, error) {
	var cmds rueidis.Commands
	var owned []string
	for _, k := range keys {
		if uid, ok := schema.PushSubscriptionsOf(k); ok {
			owned = append(owned, k)
			cmds = append(cmds, s.C.B().Hkeys().Key(k).Build(), s.C.B().Hkeys().Key(schema.Tokens(uid)).Build())
		}
	}
	res := s.doMany(ctx, cmds)
	var found []finding
	for i, k := range owned {
		subs, err1 := res[2*i].AsStrSlice()
		tokens, err2 := res[2*i+1].AsStrSlice()
		if err := cmp.Or(err1, err2); err != nil {
			return nil, s.Wrap("check: read push subscriptions", err)
		}
		for _, token := range subs {
			if !slices.Contains(tokens, token) {
				found = append(found, finding{"a push subscription of a token that is gone", k, k, [][]string{{"HDEL", k, token}}})
			}
		}
	}
	return found, nil
}
