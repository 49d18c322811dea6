package deletion

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/lists"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/tagfollows"
)

// work is what is left of a deletion, read at once from the user's
// slot: the batch of posts under way, if any, and the next batch of
// each kind; and how many posts and follows are left.
type work struct {
	batch                  string // the posts under way (JSON of stashedPost), or ""
	counted                bool   // their tags' counts were taken back
	followers, following   []int64
	posts                  []int64
	favourites             []int64
	graph                  []string
	postsLeft, followsLeft int64
}

// none reports whether nothing is left.
func (w work) none() bool {
	return w.batch == "" && len(w.followers)+len(w.following)+len(w.posts)+len(w.favourites)+len(w.graph) == 0
}

// progress returns how far d has got, given what is left.
func (w work) progress(d deletion) retwis.Deletion {
	return retwis.Deletion{Posts: d.posts, PostsRemoved: max(d.posts-w.postsLeft, 0),
		Follows: d.follows, FollowsRemoved: max(d.follows-w.followsLeft, 0)}
}

// nextWork reads what is left of uid's deletion, in one round trip.
func (s *Deleter) nextWork(ctx context.Context, uid int64) (work, error) {
	b := s.C.B()
	page := func(key string, n int) rueidis.Completed {
		return b.Zrange().Key(key).Min("0").Max(strconv.Itoa(n - 1)).Build()
	}
	res := s.C.DoMulti(ctx,
		b.Hmget().Key(schema.Deleting(uid)).Field(schema.FieldDelBatch, schema.FieldDelCounted).Build(),
		page(schema.Followers(uid), deletionFollows), page(schema.Following(uid), deletionFollows),
		b.Zrange().Key(schema.UserPosts(uid)).Min("0").Max(strconv.Itoa(deletionPosts-1)).Rev().Build(), // the newest first
		page(schema.Graph(uid), deletionGraph),
		b.Zcard().Key(schema.UserPosts(uid)).Build(), b.Zcard().Key(schema.Followers(uid)).Build(),
		b.Zcard().Key(schema.Following(uid)).Build(), page(schema.Favourites(uid), deletionFollows))
	var w work
	vals, err := res[0].ToArray()
	if err == nil && len(vals) == 2 {
		state := index.AsStrings(vals)
		w.batch, w.counted = state[0], state[1] == "1"
	}
	var errs [8]error
	w.followers, errs[0] = res[1].AsIntSlice()
	w.following, errs[1] = res[2].AsIntSlice()
	w.posts, errs[2] = res[3].AsIntSlice()
	w.graph, errs[3] = res[4].AsStrSlice()
	w.postsLeft, errs[4] = res[5].AsInt64()
	followers, following := int64(0), int64(0)
	followers, errs[5] = res[6].AsInt64()
	following, errs[6] = res[7].AsInt64()
	w.favourites, errs[7] = res[8].AsIntSlice()
	w.followsLeft = followers + following
	for _, e := range append(errs[:], err) {
		if e != nil {
			return w, s.Wrap("deletion: what is left", e)
		}
	}
	return w, nil
}

// doWork removes a batch of what w says is left of d: the posts under
// way first, then the follows of its followers, its own follows, its
// posts, its favourites, and last its relations in the graph. The posts come after the
// followers, whose home timelines are cleaned of them as their follows
// end (the author's own index tells which are the author's).
func (s *Deleter) doWork(ctx context.Context, d deletion, w work) error {
	switch {
	case w.batch != "":
		return s.deletePosts(ctx, d.uid, w.batch, w.counted)
	case len(w.followers) > 0:
		return s.deleteFollowers(ctx, d, w.followers)
	case len(w.following) > 0:
		return s.deleteFollowing(ctx, d.uid, w.following)
	case len(w.posts) > 0:
		batch, err := s.stashPosts(ctx, d.uid, w.posts)
		if err != nil {
			return err
		}
		return s.deletePosts(ctx, d.uid, batch, false)
	case len(w.favourites) > 0:
		return s.deleteFavourites(ctx, d.uid, w.favourites)
	}
	return s.deleteGraph(ctx, d.uid, w.graph)
}

// deleteFavourites takes uid's favourites of pids, a batch, back from
// the posts (who favourited them, their counts: index.FavouriteSyncCmd
// as with no mark) and their authors' notifications of them (the
// authors read first), then out of uid's favourites.
func (s *Deleter) deleteFavourites(ctx context.Context, uid int64, pids []int64) error {
	reads := make(rueidis.Commands, len(pids))
	for i, pid := range pids {
		reads[i] = s.C.B().Hget().Key(schema.Post(pid)).Field(schema.FieldUserID).Build()
	}
	authors := s.C.DoMulti(ctx, reads...)
	for _, r := range authors {
		if err := r.Error(); err != nil && !rueidis.IsRedisNil(err) { // nil: the post is gone
			return s.Wrap("deletion: favourites", err)
		}
	}
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		var cmds rueidis.Commands
		for i, pid := range pids {
			s.Written.Add(schema.Counts(pid), schema.FavouritedBy(pid))
			cmds = append(cmds, index.FavouriteSyncCmd(s.C, pid, uid, 0))
			if author, err := authors[i].AsInt64(); err == nil {
				note := schema.Note(schema.NoteFavourite, uid, pid)
				cmds = append(cmds, s.C.B().Zrem().Key(schema.Notifications(author)).Member(note).Build())
			}
		}
		return cmds
	}))
	if err == nil {
		s.Written.Add(schema.Favourites(uid))
		err = s.C.Do(ctx, s.C.B().Zrem().Key(schema.Favourites(uid)).Member(kernel.IDs(pids)...).Build()).Error()
	}
	return s.Wrap("deletion: favourites", err)
}

// releaseAccount takes d's account out of what finds it, and deletes its
// own keys that no batch walks: its name goes, reserved for
// store.Options.NameReserve (one script in the name's slot), and so do its
// entries in the latest users, the directory and the people search, its
// rate limits, its follows of tags, and its keys of ownKeys; then its
// reactions to announcements are taken back. All of it is safe to repeat, and
// is repeated whenever the deletion is resumed.
func (s *Deleter) releaseAccount(ctx context.Context, d deletion) error {
	keys, err := s.ownKeys(ctx, d.uid)
	if err != nil {
		return err
	}
	name, uid := d.username, d.uid
	unblock, err := s.unblockAll(ctx, uid)
	if err != nil {
		return err
	}
	untag, err := tagfollows.New(s.Store).ForgetCmds(ctx, uid)
	if err != nil {
		return err
	}
	s.Written.Add(append(keys, schema.Names(name), schema.NamesFolded(name), schema.UsersByTime, schema.Explore, schema.UsersByActivity)...)
	err = redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		b := s.C.B()
		cmds := rueidis.Commands{
			kernel.UnclaimName.Cmd(s.C, []string{schema.Names(name), schema.NamesFolded(name), schema.NameReserved(name)},
				name, retwis.FoldUsername(name), kernel.ID(uid), ms(s.Opts.NameReserve)),
			b.Zrem().Key(schema.UsersByTime).Member(name).Build(),
			b.Zrem().Key(schema.Explore).Member(kernel.ID(uid)).Build(),
			b.Zrem().Key(schema.UsersByActivity).Member(kernel.ID(uid)).Build(),
			b.Srem().Key(schema.ExploreStale).Member(kernel.ID(uid)).Build(),
			b.Srem().Key(schema.Suspended).Member(kernel.ID(uid)).Build(),
			b.Del().Key(keys...).Build(),
		}
		cmds = append(append(cmds, unblock...), untag...)
		for _, subject := range []string{schema.PostLimit(uid), schema.FollowLimit(uid), schema.ActionLimit(uid), schema.LoginAccountLimit(retwis.FoldUsername(name))} {
			cmds = append(cmds, b.Del().Key(schema.RateLimit(subject)).Build())
		}
		return append(cmds, index.Commands(s.C, index.PeopleWrites(uid, nil, retwis.SearchTerms(name, d.display)))...)
	}))
	if err != nil {
		return s.Wrap("deletion: release the account", err)
	}
	return announcements.New(s.Store).Forget(ctx, uid)
}

// ownKeys returns the keys of uid's own that no batch of its deletion
// walks, all in the user's slot: the user hash (a page view in flight
// may write it again), the home timeline with its archive's index and
// chunks, the mentions, notifications, followed celebrities,
// suggestions, failed logins and their notice, the API tokens with the
// record of their use, the sessions, the blocks and mutes both ways, and
// the bookmarks and pins, the direct conversations with their posts and
// how far they were read, the tags followed, the suggestions dismissed,
// the notes about accounts, the featured tags, the filters, the
// scheduled posts (their due times are dropped when due) and the
// announcements dismissed.
func (s *Deleter) ownKeys(ctx context.Context, uid int64) ([]string, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Zrange().Key(schema.Archive(uid)).Min("0").Max("-1").Build(),
		b.Zrange().Key(schema.Conversations(uid)).Min("0").Max("-1").Build())
	chunks, err := res[0].AsIntSlice()
	if err != nil {
		return nil, s.Wrap("deletion: archive", err)
	}
	convs, err := res[1].AsIntSlice()
	if err != nil {
		return nil, s.Wrap("deletion: conversations", err)
	}
	keys := []string{schema.User(uid), schema.Home(uid), schema.Archive(uid), schema.Mentions(uid), schema.Direct(uid), schema.Notifications(uid),
		schema.FollowedCelebrities(uid), schema.Suggestions(uid), schema.LoginFailures(uid), schema.LoginNotice(uid),
		schema.Tokens(uid), schema.TokensUsed(uid), schema.Sessions(uid), schema.Blocks(uid), schema.Mutes(uid), schema.BlockedBy(uid),
		schema.Bookmarks(uid), schema.Pins(uid), schema.Boosts(uid), schema.HomeBoosts(uid),
		schema.Conversations(uid), schema.ConversationsRead(uid), schema.Markers(uid), schema.NotificationPolicy(uid), schema.DomainBlocks(uid),
		schema.PushSubscriptions(uid), schema.TagsFollowed(uid), schema.SuggestionsDismissed(uid), schema.Notes(uid),
		schema.FeaturedTags(uid), schema.Filters(uid), schema.Scheduled(uid), schema.AnnouncementsRead(uid)}
	for _, n := range chunks {
		keys = append(keys, schema.ArchiveChunk(uid, n))
	}
	for _, c := range convs {
		keys = append(keys, schema.Conversation(uid, c))
	}
	return keys, nil
}

// finishDeletion deletes d's lists and takes d out of those that hold
// it (lists.Store.DeleteAccount), then deletes the last of d's keys, its state and lease with
// them (one command in the user's slot; the own keys again, for the
// writes that were in flight when the deletion began, such as a delivery
// to its home timeline), then drops its media records and hands all its
// media's files to upkeep (mediastore.AccountGoneCmds: once the user
// hash is gone, so that upkeep never finds the account still there),
// and takes the deletion off those maintenance resumes: the account is
// gone.
func (s *Deleter) finishDeletion(ctx context.Context, d deletion) error {
	if err := lists.New(s.Store).DeleteAccount(ctx, d.uid); err != nil {
		return err
	}
	keys, err := s.ownKeys(ctx, d.uid)
	if err != nil {
		return err
	}
	keys = append(keys, schema.UserPosts(d.uid), schema.Followers(d.uid), schema.Following(d.uid), schema.Graph(d.uid),
		schema.Favourites(d.uid), schema.AnnouncementsReacted(d.uid), schema.Deleting(d.uid), schema.DeletingLease(d.uid))
	s.Written.Add(keys...)
	b := s.C.B()
	if err := s.C.Do(ctx, b.Del().Key(keys...).Build()).Error(); err != nil {
		return s.Wrap("deletion: finish", err)
	}
	if err := redisconn.FirstErr(s.C.DoMulti(ctx, mediastore.AccountGoneCmds(s.C, d.uid)...)); err != nil {
		return s.Wrap("deletion: its media", err)
	}
	if err := s.C.Do(ctx, b.Zrem().Key(schema.Deletions).Member(kernel.ID(d.uid)).Build()).Error(); err != nil {
		return s.Wrap("deletion: finish", err)
	}
	s.Log.Info("account deleted", "user", d.uid, "name", d.username, "posts", d.posts, "follows", d.follows,
		"took", time.Since(d.begun).Round(time.Second))
	return nil
}

// walkedLast sends writes (plain commands), but those on the key
// walked, which go once the others have succeeded:
// the next batch is read from the walked key, so that a batch that
// fails is found there again and done again whole.
func (s *Deleter) walkedLast(ctx context.Context, walked string, writes [][]string) error {
	var first, last [][]string
	keys := make([]string, len(writes))
	for i, w := range writes {
		if keys[i] = w[1]; w[1] == walked {
			last = append(last, w)
		} else {
			first = append(first, w)
		}
	}
	s.Written.Add(keys...)
	if err := redisconn.FirstErr(s.C.DoMulti(ctx, index.Commands(s.C, first)...)); err != nil {
		return s.Wrap("deletion", err)
	}
	return s.Wrap("deletion", redisconn.FirstErr(s.C.DoMulti(ctx, index.Commands(s.C, last)...)))
}

// deleteFollowers ends the follows of followers, a batch of d's: the
// followers' side of each (their sets of users followed, the graph,
// their followed celebrities), with d's posts taken off their home
// timeline lists (unless d's posts were merged when read, a
// celebrity's), then d's set of followers.
func (s *Deleter) deleteFollowers(ctx context.Context, d deletion, followers []int64) error {
	var writes [][]string
	for _, f := range followers {
		writes = append(append(writes, store.UnfollowWrites(f, d.uid)...), []string{"SREM", schema.FollowedCelebrities(f), kernel.ID(d.uid)})
	}
	if !d.celebrity {
		drops, err := s.AuthorOff(ctx, followers, d.uid)
		if err == nil {
			err = s.DropPosts(ctx, drops)
		}
		if err != nil {
			return s.Wrap("deletion", err)
		}
	}
	return s.walkedLast(ctx, schema.Followers(d.uid), writes)
}

// deleteFollowing ends uid's follows of followees, a batch: the
// followees' side of each (their followers, the graph, the notification
// of the follow), then uid's set of users followed; the followees'
// entries in the directory follow their new follower counts.
func (s *Deleter) deleteFollowing(ctx context.Context, uid int64, followees []int64) error {
	var writes [][]string
	for _, g := range followees {
		writes = append(append(writes, store.UnfollowWrites(uid, g)...),
			[]string{"ZREM", schema.Notifications(g), schema.Note(schema.NoteFollow, uid, 0)})
	}
	if err := s.walkedLast(ctx, schema.Following(uid), writes); err != nil {
		return err
	}
	s.RefreshQuietly(ctx, followees...)
	return nil
}

// deleteGraph takes a batch of uid's relations (members of its part of
// the graph: its mentions and replies of others, theirs of it) out of
// the graph: the other user's record of each, then uid's.
func (s *Deleter) deleteGraph(ctx context.Context, uid int64, members []string) error {
	var writes [][]string
	for _, m := range members {
		if key, twin, ok := schema.GraphTwin(m); ok {
			writes = append(writes, []string{"ZREM", key, twin})
		}
	}
	return s.walkedLast(ctx, schema.Graph(uid), append(writes, append([]string{"ZREM", schema.Graph(uid)}, members...)))
}

// stashedPost is a post of a batch being deleted, as the deletion's
// state keeps it: its values of index.JobFields, none for a post gone already.
type stashedPost struct {
	ID     int64    `json:"id"`
	Fields []string `json:"fields,omitempty"`
}

// stashPosts reads the posts pids (one pipeline) and keeps them in
// uid's deletion state before anything of them is deleted: a runner
// that stops half-way through the batch leaves it to the next, which
// could not read the posts from their hashes any more.
func (s *Deleter) stashPosts(ctx context.Context, uid int64, pids []int64) (string, error) {
	cmds := make(rueidis.Commands, len(pids))
	for i, pid := range pids {
		cmds[i] = s.C.B().Hmget().Key(schema.Post(pid)).Field(index.JobFields...).Build()
	}
	batch := make([]stashedPost, len(pids))
	for i, r := range s.C.DoMulti(ctx, cmds...) {
		vals, err := r.ToArray()
		if err != nil {
			return "", s.Wrap("deletion: read posts", err)
		}
		batch[i].ID = pids[i]
		if fields := index.AsStrings(vals); len(fields) > 0 && fields[0] != "" {
			batch[i].Fields = fields
		}
	}
	v, err := json.Marshal(batch)
	if err != nil {
		return "", s.Wrap("deletion: stash posts", err)
	}
	err = s.C.Do(ctx, s.C.B().Hset().Key(schema.Deleting(uid)).FieldValue().FieldValue(schema.FieldDelBatch, string(v)).Build()).Error()
	return string(v), s.Wrap("deletion: stash posts", err)
}

// deletePosts deletes uid's batch of posts stashed in batch, as
// store.DeletePost deletes one: the hashes first (the posts vanish from every
// page), then the marks of them (store.DropMarks) and what lists them
// (store.DeletedCmds), then, once only, the counts
// of their tags (uncount), and last the author's index of them and the
// stash. They need no undelivery: the home timelines of the followers
// were cleaned of them as their follows ended.
func (s *Deleter) deletePosts(ctx context.Context, uid int64, batch string, counted bool) error {
	stashed, err := s.unstash(ctx, uid, batch)
	if err != nil || len(stashed) == 0 {
		return err
	}
	posts, err := s.dropHashes(ctx, stashed)
	if err != nil {
		return err
	}
	if err := s.unlistBatch(ctx, uid, stashed, posts); err != nil {
		return err
	}
	if err := s.undoBoosts(ctx, uid, posts); err != nil {
		return err
	}
	if !counted {
		if err := s.uncount(ctx, uid, posts); err != nil {
			return err
		}
	}
	return s.batchDone(ctx, uid, stashed)
}

// unlistBatch drops the marks of the stashed posts of uid, deleted
// (store.DropMarks), then unlists posts, those of them that existed
// (unlistPosts).
func (s *Deleter) unlistBatch(ctx context.Context, uid int64, stashed []stashedPost, posts []index.Post) error {
	pids := make([]int64, len(stashed))
	for i, sp := range stashed {
		pids[i] = sp.ID
	}
	if err := s.DropMarks(ctx, uid, pids); err != nil {
		return err
	}
	return s.unlistPosts(ctx, posts)
}

// undoBoosts records the jobs that finish the deletion of uid's posts
// as far as boosts go (posts.Store.UndoJobs): a boost is taken out of
// its post's count and off the timelines it reached, and the boosts of a
// post that has some are deleted. Recorded again if the batch is done
// again, they are harmless.
func (s *Deleter) undoBoosts(ctx context.Context, uid int64, deleted []index.Post) error {
	cmds := make(rueidis.Commands, len(deleted))
	for i, p := range deleted {
		cmds[i] = s.C.B().Exists().Key(schema.RebloggedBy(p.ID)).Build()
	}
	boosted := make([]bool, len(deleted))
	for i, r := range s.C.DoMulti(ctx, cmds...) {
		n, err := r.AsInt64()
		if err != nil {
			return s.Wrap("deletion: boosts", err)
		}
		boosted[i] = n > 0
	}
	if !slices.Contains(boosted, true) && !slices.ContainsFunc(deleted, func(p index.Post) bool { return p.ReblogOf > 0 }) {
		return nil
	}
	return s.Enqueue(ctx, uid, func(q schema.Queue) rueidis.Commands {
		var jobs rueidis.Commands
		for i, p := range deleted {
			jobs = append(jobs, s.UndoJobs(q, p, "0", boosted[i])...)
		}
		return jobs
	})
}

// unlistPosts takes deleted posts off the global timeline and out of the
// indexes that list them (store.DeletedCmds), in one pipeline.
func (s *Deleter) unlistPosts(ctx context.Context, posts []index.Post) error {
	err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		var cmds rueidis.Commands
		for _, p := range posts {
			cmds = append(cmds, s.DeletedCmds(p)...)
		}
		return cmds
	}))
	return s.Wrap("deletion: unindex posts", err)
}

// batchDone takes the stashed posts, all gone, off uid's index of its
// posts, and drops the stash.
func (s *Deleter) batchDone(ctx context.Context, uid int64, stashed []stashedPost) error {
	pids := make([]string, len(stashed))
	for i, sp := range stashed {
		pids[i] = kernel.ID(sp.ID)
	}
	s.Written.Add(schema.UserPosts(uid))
	b := s.C.B()
	return s.Wrap("deletion: posts done", redisconn.FirstErr(s.C.DoMulti(ctx,
		b.Zrem().Key(schema.UserPosts(uid)).Member(pids...).Build(),
		b.Hdel().Key(schema.Deleting(uid)).Field(schema.FieldDelBatch, schema.FieldDelCounted).Build())))
}

// unstash reads a batch of uid's deletion stashed by stashPosts. A batch
// that does not parse, or holds nothing (damaged data: never written
// so), is dropped, and logged: `retwis check --repair` removes what its
// posts leave behind.
func (s *Deleter) unstash(ctx context.Context, uid int64, batch string) ([]stashedPost, error) {
	var stashed []stashedPost
	err := json.Unmarshal([]byte(batch), &stashed)
	if err == nil && len(stashed) > 0 {
		return stashed, nil
	}
	s.Log.Error("a damaged batch of an account's deletion is dropped", "user", uid, "batch", batch, "err", err)
	err = s.C.Do(ctx, s.C.B().Hdel().Key(schema.Deleting(uid)).Field(schema.FieldDelBatch).Build()).Error()
	return nil, s.Wrap("deletion: drop a damaged batch", err)
}

// dropHashes deletes the hashes of the stashed posts (one pipeline), and
// returns what their indexes need of those that existed.
func (s *Deleter) dropHashes(ctx context.Context, stashed []stashedPost) ([]index.Post, error) {
	var found []index.Post
	dels := make(rueidis.Commands, len(stashed))
	for i, sp := range stashed {
		if p, _, ok := index.ParseJobFields(sp.ID, sp.Fields); ok {
			found = append(found, p)
		}
		s.Written.Add(schema.Post(sp.ID))
		dels[i] = s.C.B().Del().Key(schema.Post(sp.ID)).Build()
	}
	return found, s.Wrap("deletion: delete posts", redisconn.FirstErr(s.C.DoMulti(ctx, dels...)))
}

// uncount takes posts back from the counts of their tags, once: uid's
// deletion state records that it did before it does, so that a runner
// resuming the batch does not take them back twice. A failure leaves
// them counted (a tag's count a little high, as a deleted post's whose
// unindexing failed), and is logged.
func (s *Deleter) uncount(ctx context.Context, uid int64, posts []index.Post) error {
	err := s.C.Do(ctx, s.C.B().Hset().Key(schema.Deleting(uid)).FieldValue().FieldValue(schema.FieldDelCounted, "1").Build()).Error()
	if err != nil {
		return s.Wrap("deletion: uncount", err)
	}
	uncount := s.Uncounter(ctx)
	err = redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		var cmds rueidis.Commands
		for _, p := range posts {
			cmds = append(cmds, uncount(p)...)
		}
		return cmds
	}))
	if err != nil {
		s.Log.Warn("the tags of deleted posts stay counted in the trends and the completion", "user", uid, "err", err)
	}
	return nil
}

// unblockAll returns the commands that take uid out of the other side of
// its blocks: the blockers of those it blocked, and the blocks of those
// who blocked it (its own keys of them go with ownKeys).
func (s *Deleter) unblockAll(ctx context.Context, uid int64) (rueidis.Commands, error) {
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Zrange().Key(schema.Blocks(uid)).Min("0").Max("-1").Build(),
		b.Zrange().Key(schema.BlockedBy(uid)).Min("0").Max("-1").Build())
	var cmds rueidis.Commands
	for i, other := range []func(int64) string{schema.BlockedBy, schema.Blocks} {
		members, err := res[i].AsIntSlice()
		if err != nil {
			return nil, s.Wrap("deletion: blocks", err)
		}
		for _, v := range members {
			s.Written.Add(other(v))
			cmds = append(cmds, b.Zrem().Key(other(v)).Member(kernel.ID(uid)).Build())
		}
	}
	return cmds, nil
}
