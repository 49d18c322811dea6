package posts

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// CreatePost stores a status update and records its delivery, in three
// round trips whatever the number of followers: the id, the follower
// count and whether the author is known as a celebrity; the post hash;
// then, at once, the author's own-post index and home timeline, the
// global timeline, and a delivery job on a shard of the deliveries
// queue, which workers (package delivery) carry out after the request has
// been answered. The job fans the post out to the followers (unless the
// author is above the celebrity threshold: then followers' home
// timelines merge the author's posts when read) and makes sure the post
// is on the global timeline.
//
// Only the post hash, the author's own slot and one shard of the queue
// must be written: a new id is taken if the post hash's node cannot be
// reached, the job goes to another shard if its shard's node cannot, and
// a failed push on the global timeline is left to the job. So a master
// failing over stops only the posts of the authors it holds.
//
// Publishing is complete or invisible: if a write fails, what was
// written is taken back before the error is returned, so that neither a
// half-published post nor, when the user tries again, a duplicate
// remains. Once begun it completes even if the client goes away.
func (s *Store) CreatePost(ctx context.Context, author int64, text string) (retwis.Post, error) {
	p, err := s.Publish(ctx, Draft{Author: author, Text: text})
	return p.Post, err
}

// Draft is a post to publish.
type Draft struct {
	Author int64
	Text   string
	// Warning is its content warning ("": none), counted with the text
	// against the length limit (retwis.NormalizeCaption).
	Warning string
	// InReplyTo is the post it answers (0: none), which must exist: the
	// reply records it, and begins with its author's @name.
	InReplyTo int64
	// Key is an idempotency key ("": none), see CreatePostOnce.
	Key string
	// Visibility is who sees it (the zero value: everyone).
	Visibility retwis.Visibility
	// Media are its pictures, ready, and Sensitive hides them behind the
	// warning; Attach returns the writes that record them as attached to
	// post pid, sent with the post's own (safe to repeat).
	Media     []retwis.Attachment
	Sensitive bool
	Attach    func(pid int64) rueidis.Commands
}

// Published is a post as Publish stored it, with what an answer about it
// shows besides: its author's summary and how many replies it has.
type Published struct {
	Post    retwis.Post
	Author  retwis.Summary
	Replies int64
}

// Publish publishes d as CreatePost does, and with a Key as
// CreatePostOnce does. Besides, it records the post's conversations:
// its tags, the users it mentions (those that exist) and the post it
// answers, read through the client-side cache (a constant number of
// reads, none once warm); the delivery job indexes them (tag pages,
// mentions, replies, notifications, trends), durably. The idempotency
// key (in the author's slot) is claimed in the round trip that reads the
// author's state, and recorded with the post's id in the one that
// publishes it, so that it costs no round trip of its own.
//
// It returns the post with its author's summary as they are once it is
// published, read in the round trips it makes anyway (the author's
// state before, the count of their posts with the writes): an answer
// about the post needs no read after. A post already published with the
// key is read back, with its author's summary and its replies, in one
// call.
func (s *Store) Publish(ctx context.Context, d Draft) (Published, error) {
	body, warning, err := retwis.NormalizeCaption(d.Text, d.Warning, s.Opts.MaxPostChars, len(d.Media))
	if err != nil {
		return Published{}, err
	}
	author, key := d.Author, ""
	if d.Key != "" {
		if err := CheckIdempotencyKey(d.Key); err != nil {
			return Published{}, err
		}
		key = schema.Idempotency(author, d.Key)
	}
	if _, err := s.Take(ctx, accounts.Subject(schema.PostLimit(author)), s.Opts.Limits.Posts); err != nil {
		return Published{}, err
	}
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	body, conv, err := s.Converse(ctx, body, d.InReplyTo)
	if err == nil {
		err = s.mayReply(ctx, author, conv)
	}
	if err != nil {
		return Published{}, err
	}
	st, err := s.postingState(ctx, author, key)
	if errors.Is(err, errKeyUsed) {
		return s.earlierPost(ctx, author, key)
	}
	if err != nil {
		return Published{}, err
	}
	var published bool
	defer func() {
		if key != "" && !published { // the retry may publish it
			s.C.Do(ctx, s.C.B().Del().Key(key).Build())
		}
	}()
	celebrity := st.author.Counts.Followers > s.Opts.CelebrityThreshold
	newCelebrity := celebrity && !st.celebrity
	now := time.Now()
	// The hash goes first, on its own, so that no timeline ever holds the
	// id of a post that cannot be read (pipelines to different cluster
	// nodes are not ordered).
	fields := append([]string{schema.FieldUserID, kernel.ID(author), schema.FieldAuthor, st.author.User.Username,
		schema.FieldTime, strconv.FormatInt(now.Unix(), 10), schema.FieldBody, body}, conv.Fields()...)
	if warning != "" {
		fields = append(fields, schema.FieldWarning, warning)
	}
	if d.Visibility != retwis.Public {
		fields = append(fields, schema.FieldVisibility, d.Visibility.String())
	}
	if len(d.Media) > 0 {
		fields = append(fields, schema.FieldMedia, retwis.EncodeAttachments(d.Media))
	}
	if d.Sensitive {
		fields = append(fields, schema.FieldSensitive, "1")
	}
	if celebrity && d.Visibility.ToFollowers() { // a direct post goes to the few it mentions
		fields = append(fields, schema.FieldFanout, "0")
	}
	// A hash given up (its node failing) may stand without its answer:
	// maintenance takes it back when it cannot be at once.
	pid, err := s.CreateHash(ctx, st.pid, schema.NextPostID, schema.Post, func(ctx context.Context, pid int64) error {
		return s.TakeBackLater(ctx, pid, author)
	}, fields...)
	if err != nil {
		return Published{}, err
	}
	s.Written.Add(schema.Home(author), schema.UserPosts(author)) // the next page shows the post
	var jobErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		jobErr = s.Enqueue(ctx, author, func(q schema.Queue) rueidis.Commands {
			cmds := rueidis.Commands{s.JobCmd(q, schema.JobDeliver, pid, author)}
			if newCelebrity {
				cmds = append(cmds, s.JobCmd(q, schema.JobCelebrate, 0, author))
			}
			return cmds
		})
	})
	res := s.ReplicatedCounting(ctx, author, schema.FieldActivityStatuses,
		func() rueidis.Commands { return s.publishCmds(pid, author, newCelebrity, key, d) },
		schema.UserPosts(author), schema.Home(author))
	wg.Wait()
	if d.Visibility.Listed() {
		res = res[:len(res)-1] // the global timeline's push, which the job makes up for
	}
	if err := errors.Join(redisconn.FirstErr(res), jobErr); err != nil {
		s.unpublish(ctx, pid, author)
		return Published{}, s.Wrap("create post: publish", err)
	}
	published = true
	p := retwis.Post{ID: pid, AuthorID: author, Author: st.author.User.Username, Time: now.Truncate(time.Second), Body: body, Warning: warning,
		Visibility: d.Visibility, InReplyTo: conv.ReplyTo, ReplyTo: conv.ReplyUser.Username, ReplyToID: conv.ReplyUser.ID, Media: d.Media, Sensitive: d.Sensitive}
	for _, u := range conv.Mentions {
		p.Mentions, p.MentionIDs = append(p.Mentions, u.Username), append(p.MentionIDs, u.ID)
	}
	st.author.Posts, _ = res[postsCounted].AsInt64() // written with the post: no error
	st.author.LastPost = postTime(pid)
	return Published{Post: p, Author: st.author}, nil
}

// errKeyUsed is postingState's answer when the idempotency key was used
// already.
var errKeyUsed = errors.New("store: idempotency key used")

// postingState is what publishing reads of its author first.
type postingState struct {
	// author is the author's summary but for their posts: name, about,
	// joined, counts. The post keeps the name, so that readers need not
	// look it up.
	author    retwis.Summary
	celebrity bool  // the author is known as a celebrity
	pid       int64 // the post's id, if taken with the tutorial's counter
}

// postingState reads, in one round trip, the author's summary but for
// their posts (how many followers they have tells whether they are a
// celebrity) and whether they are known as one; with the tutorial's
// counter (no id generator) it takes the post's id in the same round
// trip, and with an idempotency key (not "") it claims the key there
// too, or fails with errKeyUsed.
func (s *Store) postingState(ctx context.Context, author int64, key string) (postingState, error) {
	b := s.C.B()
	cmds := rueidis.Commands{
		b.Zcard().Key(schema.Followers(author)).Build(),
		b.Zcard().Key(schema.Following(author)).Build(),
		b.Hmget().Key(schema.User(author)).Field(append([]string{schema.FieldCelebrity, schema.FieldSuspended}, summaryFields...)...).Build(),
	}
	if key != "" {
		cmds = append(cmds, b.Set().Key(key).Value(inFlight).Nx().Ex(idempotencyTTL).Build())
	}
	if s.Opts.IDs == nil {
		cmds = append(cmds, b.Incr().Key(schema.NextPostID).Build())
	}
	res := s.C.DoMulti(ctx, cmds...)
	if key != "" {
		claimed, err := res[3].AsBool()
		if err != nil && !rueidis.IsRedisNil(err) {
			return postingState{}, s.Wrap("idempotency key", err)
		}
		if !claimed {
			return postingState{}, errKeyUsed
		}
	}
	st, err := s.parsePostingState(author, res)
	if err != nil {
		if key != "" { // claimed above, for nothing
			s.C.Do(ctx, b.Del().Key(key).Build())
		}
		return postingState{}, err
	}
	if s.Opts.IDs == nil {
		st.pid, err = res[len(res)-1].AsInt64()
		return st, s.Wrap("create post: next id", err)
	}
	return st, nil
}

// parsePostingState reads the first three replies to postingState's
// reads: an error of kind NotFound for an author who does not exist,
// accounts.ErrSuspended for one suspended.
func (s *Store) parsePostingState(author int64, res []rueidis.RedisResult) (postingState, error) {
	var counts [2]int64
	for i := range counts {
		var err error
		if counts[i], err = res[i].AsInt64(); err != nil {
			return postingState{}, s.Wrap("create post: counts", err)
		}
	}
	user, err := res[2].ToArray()
	if err != nil {
		return postingState{}, s.Wrap("create post: author", err)
	}
	sum, ok := summaryOf(author, user[2:])
	switch {
	case !ok:
		return postingState{}, retwis.Errorf(retwis.NotFound, "There is no such user.")
	case !user[1].IsNil():
		return postingState{}, accounts.ErrSuspended
	}
	sum.Counts = retwis.Counts{Followers: counts[0], Following: counts[1]}
	flag, _ := user[0].ToString()
	return postingState{author: sum, celebrity: flag == "1"}, nil
}

// postsCounted is where, in publishCmds, the author's posts are counted.
const postsCounted = 1

// publishCmds are the writes that make post pid visible, besides its
// delivery job, with the count of the author's posts once it is among
// them (at postsCounted); all are safe to repeat (pipeline may resend
// them). The push on the global timeline, for a listed post, comes last:
// it is the one whose failure the delivery job makes up for. An author
// who has just become a celebrity is recorded as one, an idempotency key
// (not "") records the post, and d.Attach its media.
func (s *Store) publishCmds(pid, author int64, newCelebrity bool, key string, d Draft) rueidis.Commands {
	b := s.C.B()
	p := kernel.ID(pid)
	cmds := rueidis.Commands{
		b.Zadd().Key(schema.UserPosts(author)).ScoreMember().ScoreMember(float64(pid), p).Build(),
		b.Zcard().Key(schema.UserPosts(author)).Build(),
		s.PushHomeCmd(author, pid),
	}
	if newCelebrity {
		cmds = append(cmds, b.Hset().Key(schema.User(author)).FieldValue().FieldValue(schema.FieldCelebrity, "1").Build())
	}
	if key != "" {
		cmds = append(cmds, b.Set().Key(key).Value(p).Ex(idempotencyTTL).Build())
	}
	if d.Attach != nil {
		cmds = append(cmds, d.Attach(pid)...)
	}
	if !d.Visibility.Listed() {
		return cmds
	}
	return append(cmds, s.globalPushCmd(pid))
}

// globalPushCmd puts posts pids on the global timeline.
func (s *Store) globalPushCmd(pids ...int64) rueidis.Completed {
	return kernel.PushGlobalCmd(s.C, pids...)
}

// posts loads the posts with the given ids, in order, with their authors'
// names and their interaction state (counts, the reader's marks: see
// marks), in one round trip, served from the client-side cache when
// possible (Redis invalidates what an edit changes). A post keeps its author's name;
// for posts from before they did, the names are read in a second round
// trip, unless their authors are among known (a profile's posts are all
// its user's). Ids whose post is gone are skipped; so are those whose post or
// author cannot be read right now (its node is failing over), which
// missing counts, so that a page shows what the rest of the cluster
// holds.
//
// Unless rd reads all, hidden is what rd's reader does not see, read in
// the same call unless rd knows it; posts holds the hidden posts too (the
// caller tells them from deleted ones), for rd.visible to leave out. The
// reads rd has along go in the same call, even without posts to read.
func (s *Store) posts(ctx context.Context, rd reader, pids []int64, known ...retwis.User) (posts []retwis.Post, hidden retwis.Hidden, missing int, err error) {
	b := rd.along
	if b == nil {
		b = new(kernel.Batch)
	}
	cmds := make([]rueidis.CacheableTTL, len(pids))
	for i, pid := range pids {
		cmds[i] = rueidis.CT(s.C.B().Hmget().Key(schema.Post(pid)).Field(kernel.PostFields...).Cache(), s.Opts.CacheTTL)
	}
	read := b.Add(cmds...)
	m := s.startMarks(rd, pids, b)
	var hiddenRead kernel.Slot
	if !rd.all && rd.hidden == nil && len(pids) > 0 {
		hiddenRead = b.Add(s.HiddenCmds(rd.id)...)
	}
	s.ReadBatch(ctx, b)
	m.settle()
	if len(pids) == 0 {
		return nil, hidden, 0, nil
	}
	switch {
	case rd.all:
	case rd.hidden != nil:
		hidden = *rd.hidden
	default:
		if hidden, err = s.ParseHidden(hiddenRead.Replies()); err != nil {
			return nil, hidden, 0, err
		}
	}
	res := read.Replies()
	s.FromMaster(ctx, res, func(r rueidis.RedisResult) bool {
		_, ok, err := parsePost(0, r)
		return err == nil && !ok
	}, func(i int) rueidis.Completed {
		return s.C.B().Hmget().Key(schema.Post(pids[i])).Field(append(kernel.PostFields, schema.FieldFanout)...).Build()
	})
	posts = make([]retwis.Post, 0, len(pids))
	authors := make([]int64, 0, len(pids))
	for i, r := range res {
		if redisconn.IsOutage(r.Error()) {
			missing++
			continue
		}
		p, ok, err := parsePost(pids[i], r)
		if redisconn.IsDamage(err) { // not a hash: shown as missing
			s.Log.Error("skipping a damaged post", "post", pids[i], "err", err)
			continue
		}
		if err != nil {
			return nil, hidden, 0, s.Wrap("read posts", err)
		}
		if !ok {
			continue
		}
		m.apply(&p, i)
		if i := slices.IndexFunc(known, func(u retwis.User) bool { return u.ID == p.AuthorID }); i >= 0 {
			p.Author = known[i].Username
		}
		if p.Author == "" { // a post from before posts kept their author's name
			authors = append(authors, p.AuthorID)
		}
		posts = append(posts, p)
	}
	if posts, missing, err = s.boosted(ctx, rd, hidden, posts, missing); err != nil || len(authors) == 0 {
		return posts, hidden, missing, err
	}
	names, unread, err := s.ReadNames(ctx, authors)
	if err != nil {
		return nil, hidden, 0, err
	}
	named := posts[:0]
	for _, p := range posts {
		if p.Author == "" {
			if unread[p.AuthorID] {
				missing++
				continue
			}
			p.Author = names[p.AuthorID]
		}
		named = append(named, p)
	}
	return named, hidden, missing, nil
}

// parsePost decodes the reply to HMGET post:<id> and kernel.PostFields (any
// further fields are ignored); the username may be missing (a post from
// before posts kept it), and so may the mentions and the reply. ok is
// false for a post that does not exist or is damaged.
func parsePost(pid int64, r rueidis.RedisResult) (p retwis.Post, ok bool, err error) {
	vals, err := r.ToArray()
	if err != nil {
		return p, false, err
	}
	var f [3]string
	for i := range f {
		if f[i], err = vals[i].ToString(); err != nil && i < 2 {
			return p, false, nil // no author or time: no such post (one of pictures may have no body)
		}
	}
	uid, err1 := strconv.ParseInt(f[0], 10, 64)
	ts, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return p, false, nil
	}
	p = retwis.Post{ID: pid, AuthorID: uid, Time: time.Unix(ts, 0), Body: f[2]}
	var more [12]string
	for i := range more {
		if 3+i < len(vals) {
			more[i], _ = vals[3+i].ToString()
		}
	}
	p.Author = more[0]
	for _, u := range index.SplitUsers(more[1]) {
		p.Mentions, p.MentionIDs = append(p.Mentions, u.Username), append(p.MentionIDs, u.ID)
	}
	if more[2] != "" { // most posts answer none: no parse, and no error made to be dropped
		p.InReplyTo, _ = strconv.ParseInt(more[2], 10, 64)
	}
	if p.InReplyTo > 0 {
		if u := index.SplitUsers(more[3]); len(u) == 1 {
			p.ReplyTo, p.ReplyToID = u[0].Username, u[0].ID
		}
	}
	p.Warning = more[4]
	if more[5] != "" { // most posts were never edited: no parse, no error made to be dropped
		if ms, err := strconv.ParseInt(more[5], 10, 64); err == nil {
			p.Edited = time.UnixMilli(ms)
		}
	}
	p.Visibility = index.VisibilityOf(more[6])
	if more[7] != "" { // a boost: the post it boosts, read by boosted
		of, _ := strconv.ParseInt(more[7], 10, 64)
		p.Reblog = &retwis.Post{ID: of}
		if u := index.SplitUsers(more[8]); len(u) == 1 {
			p.Reblog.AuthorID, p.Reblog.Author = u[0].ID, u[0].Username
		}
	}
	p.Media, p.Sensitive, p.Card = retwis.DecodeAttachments(more[9]), more[10] == "1", retwis.DecodeCard(more[11])
	return p, true, nil
}

// Post returns one post with its author's name, if viewer (0: logged
// out) sees it.
func (s *Store) Post(ctx context.Context, viewer, pid int64) (retwis.Post, error) {
	return s.post(ctx, reader{id: viewer, where: retwis.InConversation}, pid)
}

// PostsSeen returns the posts pids, in their order, as viewer (0: logged
// out) sees them in a conversation, read in one call, if viewer sees
// each. At the first one viewer does not see, it returns the posts before
// it and the error Post returns for that one: of kind NotFound, or
// Unavailable if some of them could not be read right now.
func (s *Store) PostsSeen(ctx context.Context, viewer int64, pids []int64) ([]retwis.Post, error) {
	rd := reader{id: viewer, where: retwis.InConversation}
	posts, hidden, missing, err := s.posts(ctx, rd, pids)
	if err != nil {
		return nil, err
	}
	if posts, err = s.visible(ctx, rd, posts, hidden); err != nil {
		return nil, err
	}
	seen := make([]retwis.Post, 0, len(pids))
	for _, pid := range pids {
		i := slices.IndexFunc(posts, func(p retwis.Post) bool { return p.ID == pid })
		if i < 0 {
			return seen, noPost(pid, missing)
		}
		seen = append(seen, posts[i])
	}
	return seen, nil
}

// ModeratedPost returns post pid with its author's name for a moderator
// to act on: whoever reads it, nothing is hidden (not even a suspended
// author's post). A post not found is an error as for Post.
func (s *Store) ModeratedPost(ctx context.Context, pid int64) (retwis.Post, error) {
	return s.post(ctx, reader{all: true}, pid)
}

// post returns post pid if rd sees it.
func (s *Store) post(ctx context.Context, rd reader, pid int64) (retwis.Post, error) {
	posts, hidden, missing, err := s.posts(ctx, rd, []int64{pid})
	if err != nil {
		return retwis.Post{}, err
	}
	if posts, err = s.visible(ctx, rd, posts, hidden); err != nil {
		return retwis.Post{}, err
	}
	if len(posts) == 0 {
		return retwis.Post{}, noPost(pid, missing)
	}
	return posts[0], nil
}

// noPost is the error of a post pid that was not found: unavailable
// when some of the posts read with it (missing) could not be read.
func noPost(pid int64, missing int) error {
	if missing > 0 {
		return retwis.Errorf(retwis.Unavailable, "This post cannot be read right now. Please try again in a moment.")
	}
	return retwis.Errorf(retwis.NotFound, "There is no post %d; it may have been deleted.", pid)
}

// DeletedCmds return the commands that take post p, whose hash is gone,
// off the global timeline and out of the indexes that list it
// (unlistCmds), and announce its deletion; all are safe to repeat. The
// author's own index and the counts of its tags (uncountCmds) are the
// caller's.
func (s *Store) DeletedCmds(p index.Post) rueidis.Commands {
	cmds := append(rueidis.Commands{s.C.B().Lrem().Key(schema.Timeline).Count(0).Element(kernel.ID(p.ID)).Build()}, index.UnlistCmds(s.C, p)...)
	return append(cmds, index.PostEventCmds(s.C, schema.EventDelete, p)...)
}

// DeletePost deletes post pid, which must be by user uid. Deleting the
// hash makes it vanish from every page at once: readers skip ids whose
// post is gone, and the client-side caches of every server are
// invalidated by Redis. Then it is taken out of every index it entered
// (own posts, tags, mentions, replies, notifications, trend and
// completion counts), and out of the favourites of those who favourited
// it (DropMarks); its replies stay, in reply to a deleted post. The
// ids left in followers' timelines are removed by a delivery worker
// afterwards, unless the post was never fanned out (a celebrity's), and
// so are its boosts, or, for a boost, its count (see UndoJobs). Once begun it completes even if the client goes away;
// it has succeeded once the hash is gone.
func (s *Store) DeletePost(ctx context.Context, uid, pid int64) error {
	p, err := s.post(ctx, reader{all: true}, pid)
	if err != nil {
		return err
	}
	if p.AuthorID != uid {
		return retwis.Errorf(retwis.Forbidden, "You can only delete your own posts.")
	}
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Hmget().Key(schema.Post(pid)).Field(index.JobFields...).Build(), b.Exists().Key(schema.RebloggedBy(pid)).Build())
	post, fanout, ok, err := index.ParseJobPost(pid, res[0])
	if err != nil {
		return s.Wrap("delete post", err)
	}
	n, err := res[1].AsInt64()
	boosted := err != nil || n > 0 // when unsure, its job looks
	if !ok {
		return nil // deleted meanwhile
	}
	s.Written.Add(schema.Post(pid), schema.Home(uid), schema.UserPosts(uid))
	if err := s.C.Do(ctx, b.Del().Key(schema.Post(pid)).Build()).Error(); err != nil {
		return s.Wrap("delete post", err)
	}
	// The post is gone from here on: readers skip ids whose hash is
	// missing, so what follows only reclaims space, and a failure is
	// logged rather than reported.
	uncount := s.Uncounter(ctx)
	err = s.DropMarks(ctx, uid, []int64{pid})
	err = errors.Join(err, redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		return append(rueidis.Commands{
			b.Zrem().Key(schema.UserPosts(uid)).Member(kernel.ID(pid)).Build(),
			b.Lrem().Key(schema.Home(uid)).Count(0).Element(kernel.ID(pid)).Build(),
		}, append(s.DeletedCmds(post), uncount(post)...)...)
	})))
	if post.ReblogOf > 0 || fanout != "0" || boosted {
		err = errors.Join(err, s.Enqueue(ctx, uid, func(q schema.Queue) rueidis.Commands { return s.UndoJobs(q, post, fanout, boosted) }))
	}
	if err != nil {
		s.Log.Warn("a deleted post's id stays in some timelines (readers skip it)", "post", pid, "err", err)
	}
	s.RefreshQuietly(ctx, uid)
	return nil
}

// undeliver records the job that takes post pid of author, whose hash is
// gone, off its followers' home timelines; what it cannot record is
// logged (readers skip the id, and the check takes it off).
func (s *Store) undeliver(ctx context.Context, pid, author int64) {
	err := s.Enqueue(ctx, author, func(q schema.Queue) rueidis.Commands {
		return rueidis.Commands{s.JobCmd(q, schema.JobUndeliver, pid, author)}
	})
	if err != nil {
		s.Log.Warn("a deleted post's id stays in some timelines (readers skip it)", "post", pid, "err", err)
	}
}
