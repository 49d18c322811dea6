package interact

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
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

// Edit is an edit of a post by its author: its new text and content
// warning, and the alt text of its pictures.
type Edit struct {
	Author, Post  int64
	Text, Warning string
	// Key is an idempotency key ("": none): an edit sent again with the
	// same key within a day is applied once.
	Key string
	// MediaIDs, if not nil, are the ids of the post's pictures as asked,
	// in their order, at most retwis.MaxAttachments: each one it has or
	// one of Added (an error of kind Invalid otherwise). Those it leaves
	// out go to upkeep, which removes them.
	MediaIDs []int64
	// Added are the pictures MediaIDs adds (media.Service.ForEdit: the
	// author's, ready, attached to nothing), and Attach the writes that
	// record them attached to the post, made after the edit.
	Added  []retwis.Attachment
	Attach func(pid int64) rueidis.Commands
	// Describe sets the alt text and focus of the post's pictures, by
	// id: each must be one of them.
	Describe map[int64]MediaText
}

// MediaText is what an edit sets of one picture of the post: its alt
// text (checked: retwis.NormalizeDescription) and its focal point, each
// if not nil.
type MediaText struct {
	Description *string
	Focus       *[2]float64
}

// editIdempotencyTTL is how long an edit's idempotency key is
// remembered.
const editIdempotencyTTL = 24 * time.Hour

// EditPost changes the body and warning of e.Post, which must be
// e.Author's, to e.Text and e.Warning (under the rules of a new post,
// retwis.NormalizeCaption), and the alt text of its pictures
// (e.Describe), keeping the earlier version in the post's
// history, up to retwis.MaxEdits edits. The post hash changes at once,
// in one atomic write that two edits at once cannot both make (the
// later is refused), so every page shows the new text; the indexes the
// text entered (tags, mentions, trends) follow through a delivery job
// (ReconcileEdit), durably. It costs a round trip to read the post (and
// claim the key), one to write it, one for the job and one to read the
// post back (its mentions, as the indexes hold them, follow with the
// job). An edit that changes nothing writes nothing.
func (s *Store) EditPost(ctx context.Context, e Edit) (retwis.Post, error) {
	// The text may be empty if the post has pictures, which only its read tells.
	if _, _, err := retwis.NormalizeCaption(e.Text, e.Warning, s.Opts.MaxPostChars, 1); err != nil {
		return retwis.Post{}, err
	}
	key := ""
	if e.Key != "" {
		if err := posts.CheckIdempotencyKey(e.Key); err != nil {
			return retwis.Post{}, err
		}
		key = schema.EditIdempotency(e.Author, e.Post, e.Key)
	}
	if _, err := s.Take(ctx, accounts.Subject(schema.PostLimit(e.Author)), s.Opts.Limits.Posts); err != nil {
		return retwis.Post{}, err
	}
	ctx, cancel := kernel.Detach(ctx)
	defer cancel()
	old, claimed, err := s.editState(ctx, e, key)
	if err != nil {
		return retwis.Post{}, err
	}
	next, err := edited(e, old, s.Opts.MaxPostChars)
	if err == nil && claimed && next != old.text {
		err = s.applyEdit(ctx, e, old, next)
	}
	if err != nil {
		if key != "" && claimed { // the retry may apply it
			s.C.Do(ctx, s.C.B().Del().Key(key).Build())
		}
		return retwis.Post{}, err
	}
	return s.Post(ctx, e.Author, e.Post)
}

// editedPost is what an edit reads of the post it edits.
type editedPost struct {
	text
	edited   string // the raw field: "" for never
	history  string // likewise
	versions []version
	at       int64 // when the current version was written, unix ms
}

// text is what an edit changes of a post: its body, its warning and
// its pictures (the raw field, "" for none).
type text struct{ body, warning, media string }

// edited returns the text of post old as e edits it, within maxLen:
// its pictures as e.MediaIDs asks (picked), and each of e.Describe one
// of them.
func edited(e Edit, old editedPost, maxLen int) (text, error) {
	had := retwis.DecodeAttachments(old.media)
	as, err := picked(had, e)
	if err != nil {
		return text{}, err
	}
	body, warning, err := retwis.NormalizeCaption(e.Text, e.Warning, maxLen, len(as))
	if err != nil {
		return text{}, err
	}
	next := text{body: body, warning: warning, media: old.media}
	same := slices.EqualFunc(had, as, func(a, b retwis.Attachment) bool { return a.ID == b.ID })
	if len(e.Describe) > 0 || !same {
		if err := describe(as, e.Describe); err != nil {
			return text{}, err
		}
		next.media = retwis.EncodeAttachments(as)
	}
	return next, nil
}

// picked returns the pictures of a post that has as once e edits them:
// as if e.MediaIDs is nil, else those, in their order, each one of as
// or of e.Added, at most retwis.MaxAttachments.
func picked(as []retwis.Attachment, e Edit) ([]retwis.Attachment, error) {
	if e.MediaIDs == nil {
		return as, nil
	}
	if len(e.MediaIDs) > retwis.MaxAttachments {
		return nil, retwis.Errorf(retwis.Invalid, "A post may have at most %d pictures.", retwis.MaxAttachments)
	}
	out := make([]retwis.Attachment, len(e.MediaIDs))
	for i, id := range e.MediaIDs {
		is := func(a retwis.Attachment) bool { return a.ID == id }
		if slices.ContainsFunc(e.MediaIDs[:i], func(o int64) bool { return o == id }) {
			return nil, retwis.Errorf(retwis.Invalid, "The picture %d is attached twice.", id)
		}
		if k := slices.IndexFunc(as, is); k >= 0 {
			out[i] = as[k]
		} else if k := slices.IndexFunc(e.Added, is); k >= 0 {
			out[i] = e.Added[k]
		} else {
			return nil, retwis.Errorf(retwis.Invalid, "The picture %d is not one of yours ready to attach.", id)
		}
	}
	return out, nil
}

// removed returns the ids of the pictures of media (a post's field) that
// next (the field as edited) no longer has.
func removed(media, next string) []int64 {
	var ids []int64
	kept := retwis.DecodeAttachments(next)
	for _, a := range retwis.DecodeAttachments(media) {
		if !slices.ContainsFunc(kept, func(k retwis.Attachment) bool { return k.ID == a.ID }) {
			ids = append(ids, a.ID)
		}
	}
	return ids
}

// describe sets the alt text and focus of the pictures as that texts
// gives, by id: each must be one of them.
func describe(as []retwis.Attachment, texts map[int64]MediaText) error {
	for id, t := range texts {
		i := slices.IndexFunc(as, func(a retwis.Attachment) bool { return a.ID == id })
		if i < 0 {
			return retwis.Errorf(retwis.Invalid, "The picture %d is not one of this post's.", id)
		}
		if t.Description != nil {
			as[i].Description = *t.Description
		}
		if t.Focus != nil {
			as[i].FocusX, as[i].FocusY = t.Focus[0], t.Focus[1]
		}
	}
	return nil
}

// version is an earlier version of a post, as its history field keeps
// it. Media is its pictures' field if the next version changed them
// (nil: the same as the next version's).
type version struct {
	Body    string  `json:"body"`
	Warning string  `json:"warning,omitempty"`
	Media   *string `json:"media,omitempty"`
	Time    int64   `json:"time"` // unix ms
}

// editState reads, in one round trip, the post e edits and whether its
// author is suspended, and claims the idempotency key (not "") there
// too: claimed is false if it was used already (the edit is then not to
// be applied). It refuses a post that is not there or not e.Author's,
// a suspended author, and a post edited retwis.MaxEdits times.
func (s *Store) editState(ctx context.Context, e Edit, key string) (editedPost, bool, error) {
	b := s.C.B()
	cmds := rueidis.Commands{
		b.Hmget().Key(schema.Post(e.Post)).Field(schema.FieldUserID, schema.FieldTime, schema.FieldBody, schema.FieldWarning,
			schema.FieldEdited, schema.FieldHistory, schema.FieldMedia).Build(),
		b.Hexists().Key(schema.User(e.Author)).Field(schema.FieldSuspended).Build(),
	}
	if key != "" {
		cmds = append(cmds, b.Set().Key(key).Value(kernel.ID(e.Post)).Nx().Ex(editIdempotencyTTL).Build())
	}
	res := s.C.DoMulti(ctx, cmds...)
	claimed := true
	if key != "" {
		var err error
		if claimed, err = res[2].AsBool(); err != nil && !rueidis.IsRedisNil(err) {
			return editedPost{}, false, s.Wrap("edit: idempotency key", err)
		}
	}
	old, err := s.parseEdited(e, res)
	if err != nil && claimed && key != "" {
		s.C.Do(ctx, b.Del().Key(key).Build())
	}
	return old, claimed, err
}

// parseEdited reads the replies to editState's first two reads.
func (s *Store) parseEdited(e Edit, res []rueidis.RedisResult) (editedPost, error) {
	vals, err := res[0].ToArray()
	if err != nil {
		return editedPost{}, s.Wrap("edit: read post", err)
	}
	suspended, err := res[1].AsBool()
	if err != nil {
		return editedPost{}, s.Wrap("edit: read author", err)
	}
	f := index.AsStrings(vals)
	author, err := strconv.ParseInt(f[0], 10, 64)
	switch {
	case err != nil:
		return editedPost{}, retwis.Errorf(retwis.NotFound, "There is no post %d; it may have been deleted.", e.Post)
	case author != e.Author:
		return editedPost{}, retwis.Errorf(retwis.Forbidden, "You can only edit your own posts.")
	case suspended:
		return editedPost{}, accounts.ErrSuspended
	}
	old := editedPost{text: text{body: f[2], warning: f[3], media: f[6]}, edited: f[4], history: f[5]}
	if old.versions, err = parseHistory(old.history); err != nil {
		return editedPost{}, s.Wrap("edit: read history", err)
	}
	if len(old.versions) >= retwis.MaxEdits {
		return editedPost{}, retwis.Errorf(retwis.Invalid, "A post can be edited %d times at most; this one has been.", retwis.MaxEdits)
	}
	ts, _ := strconv.ParseInt(f[1], 10, 64)
	old.at = ts * 1000
	if ms, err := strconv.ParseInt(old.edited, 10, 64); err == nil {
		old.at = ms
	}
	return old, nil
}

// parseHistory reads the history field ("": none).
func parseHistory(raw string) ([]version, error) {
	var vs []version
	if raw == "" {
		return nil, nil
	}
	return vs, json.Unmarshal([]byte(raw), &vs)
}

// ErrEditedMeanwhile is the error of an edit of a post that another edit
// changed since it was read.
var ErrEditedMeanwhile = retwis.Errorf(retwis.Conflict, "This post was edited meanwhile; reload it and edit it again.")

// applyEdit writes the edit of e.Post from old to next, then queues its
// job; if the job cannot be queued, the post is put back as it was. The
// pictures it removes go to upkeep first (handOver), those it adds are
// recorded attached after (attach).
func (s *Store) applyEdit(ctx context.Context, e Edit, old editedPost, next text) error {
	v := version{Body: old.body, Warning: old.warning, Time: old.at}
	if next.media != old.media {
		v.Media = &old.media
	}
	hist, err := json.Marshal(append(old.versions, v))
	if err != nil {
		return s.Wrap("edit: history", err)
	}
	if err := s.handOver(ctx, e.Author, removed(old.media, next.media)); err != nil {
		return err
	}
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	if err := s.writeEdit(ctx, e.Post, old.edited, next, now, string(hist)); err != nil {
		return err
	}
	err = s.Enqueue(ctx, e.Author, func(q schema.Queue) rueidis.Commands {
		return rueidis.Commands{s.JobCmd(q, schema.JobEdit, e.Post, e.Author)}
	})
	if err != nil {
		if undo := s.writeEdit(ctx, e.Post, now, old.text, old.edited, old.history); undo != nil {
			s.Log.Error("an edit whose job was not queued stays (maintenance's check finds it)", "post", e.Post, "err", undo)
		}
		return err
	}
	s.attach(ctx, e)
	return nil
}

// handOverGrace is how long after an edit the pictures it removes are
// due to upkeep: past its write, so that upkeep finds the post no longer
// holds them (an edit refused leaves them held: upkeep lets them be).
const handOverGrace = time.Minute

// handOver hands author's pictures mids, which an edit removes from
// their post, to upkeep (schema.MediaPending), in one round trip.
func (s *Store) handOver(ctx context.Context, author int64, mids []int64) error {
	if len(mids) == 0 {
		return nil
	}
	cmd := index.MediaDueCmd(s.C, time.Now().Add(handOverGrace), author, mids...)
	return s.Wrap("edit: hand pictures over", s.C.Do(ctx, cmd).Error())
}

// attach records the pictures e added as attached to its post: best
// effort, a failure logged (the media check finds them).
func (s *Store) attach(ctx context.Context, e Edit) {
	if e.Attach == nil {
		return
	}
	if err := redisconn.FirstErr(s.C.DoMulti(ctx, e.Attach(e.Post)...)); err != nil {
		s.Log.Warn("pictures added by an edit are not recorded as attached", "post", e.Post, "err", err)
	}
}

// writeEdit sets the text of post pid to t, and its edit time and
// history, unless its edit time is no longer was: one atomic write,
// waiting for the replicas. The pictures' field is written too ("":
// none).
func (s *Store) writeEdit(ctx context.Context, pid int64, was string, t text, edited, history string) error {
	key := schema.Post(pid)
	s.Written.Add(key)
	args := []string{schema.FieldEdited, was, schema.FieldBody, t.body, schema.FieldWarning, t.warning, schema.FieldEdited, edited,
		schema.FieldHistory, history, schema.FieldMedia, t.media}
	res := s.Replicated(ctx, func() rueidis.Commands {
		return rueidis.Commands{kernel.EditPost.Cmd(s.C, []string{key}, args...)}
	}, key)
	n, err := res[0].AsInt64()
	switch {
	case err != nil:
		return s.Wrap("edit: write", err)
	case n == 0:
		return retwis.Errorf(retwis.NotFound, "There is no post %d; it may have been deleted.", pid)
	case n < 0:
		return ErrEditedMeanwhile
	}
	return nil
}

// OwnPost returns post pid for its author uid to edit: an error of kind
// Forbidden if it is another's.
func (s *Store) OwnPost(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	p, err := s.Post(ctx, uid, pid)
	if err == nil && p.AuthorID != uid {
		err = retwis.Errorf(retwis.Forbidden, "You can only edit your own posts.")
	}
	return p, err
}

// History returns post pid and its versions, if viewer (0: logged out)
// sees it, newest first: the current one, then the earlier ones, each
// with the time it was written. A post never edited has one.
func (s *Store) History(ctx context.Context, viewer, pid int64) (retwis.Post, []retwis.Version, error) {
	p, err := s.Post(ctx, viewer, pid)
	if err != nil {
		return p, nil, err
	}
	raw, err := s.C.Do(ctx, s.C.B().Hget().Key(schema.Post(pid)).Field(schema.FieldHistory).Build()).ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return p, nil, s.Wrap("history", err)
	}
	vs, err := parseHistory(raw)
	if err != nil {
		return p, nil, s.Wrap("history", err)
	}
	cur := retwis.Version{Body: p.Body, Warning: p.Warning, Media: p.Media, Time: p.Edited}
	if p.Edited.IsZero() {
		cur.Time = p.Time
	}
	out, media := []retwis.Version{cur}, p.Media
	for _, v := range slices.Backward(vs) {
		if v.Media != nil {
			media = retwis.DecodeAttachments(*v.Media)
		}
		out = append(out, retwis.Version{Body: v.Body, Warning: v.Warning, Media: media, Time: time.UnixMilli(v.Time)})
	}
	return p, out, nil
}

// errNotDelivered is ReconcileEdit's error for a post whose delivery job
// has not indexed it yet: the edit job is tried again later, as a
// failed job is.
var errNotDelivered = errors.New("interact: an edited post not delivered yet")

// ReconcileEdit is the edit job's work on post pid (package delivery runs
// it): it makes the indexes the post's text entered follow the text it
// has now, from what its hash records they hold (its tags and mentions
// fields), which it then rewrites, and announces the edit on the live
// streams of the public, the author and the tags (the followers' are
// the delivery worker's). Run again, it finds nothing to change but
// notifies and announces again (the same notification at the same
// time). It reports whether the post is fanned out to the followers'
// timelines (not a celebrity's), nothing to do for a post gone, and
// returns the post as edited.
func (s *Store) ReconcileEdit(ctx context.Context, pid int64) (post index.Post, fanout bool, err error) {
	more := []string{schema.FieldBody, schema.FieldEdited, schema.FieldDelivered}
	b := s.C.B()
	res := s.C.DoMulti(ctx, b.Hmget().Key(schema.Post(pid)).Field(append(slices.Clone(index.JobFields), more...)...).Build(),
		b.Zrevrange().Key(schema.FavouritedBy(pid)).Start(0).Stop(maxUpdateNotes-1).Build(),
		b.Zrevrange().Key(schema.RebloggedBy(pid)).Start(0).Stop(maxUpdateNotes-1).Build())
	vals, err := res[0].ToArray()
	if err != nil {
		return post, false, s.Wrap("edit job: read post", err)
	}
	var interacted []int64
	for _, r := range res[1:] {
		uids, err := r.AsIntSlice()
		if err != nil {
			return post, false, s.Wrap("edit job: who favourited or boosted", err)
		}
		interacted = append(interacted, uids...)
	}
	str := index.AsStrings(vals)
	n := len(index.JobFields)
	before, flag, ok := index.ParseJobFields(pid, str[:n])
	if !ok {
		return post, false, nil
	}
	if str[n+2] == "" {
		return post, false, errNotDelivered
	}
	_, conv, err := s.Converse(ctx, str[n], 0)
	if err != nil {
		return post, false, err
	}
	after := before
	after.Conv.Tags, after.Conv.Mentions = conv.Tags, conv.Mentions
	after.Noted, _ = strconv.ParseInt(str[n+1], 10, 64)
	recipients := updateRecipients(before, after, interacted)
	if err := redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		return index.EditCmds(s.C, before, after, recipients)
	})); err != nil {
		return post, false, s.Wrap("edit job: indexes", err)
	}
	s.Push(ctx, index.EditNotified(before, after, recipients)...)
	// The fields last: a job that stops before is done again in full.
	err = redisconn.FirstErr(s.Pipeline(ctx, func() rueidis.Commands {
		return append(rueidis.Commands{kernel.UpdateFields.Cmd(s.C, []string{schema.Post(pid)}, index.ConvFields(after.Conv)...)},
			index.StreamCmds(s.C, schema.EditEvent(pid, after.Noted), after)...)
	}))
	return after, flag != "0", s.Wrap("edit job: fields", err)
}

// AnnounceEdit tells the live streams of users (the followers of post
// pid's author, whose home timelines have it) of its last edit: the
// time of the edit read, then one pipeline. Live events are a courtesy,
// so a failure is logged, not returned.
func (s *Store) AnnounceEdit(ctx context.Context, pid int64, users []int64) {
	at, err := s.C.Do(ctx, s.C.B().Hget().Key(schema.Post(pid)).Field(schema.FieldEdited).Build()).AsInt64()
	if err == nil && len(users) > 0 {
		cmds := make(rueidis.Commands, len(users))
		for i, u := range users {
			cmds[i] = index.PublishCmd(s.C, schema.UserStream(u), schema.EditEvent(pid, at))
		}
		err = redisconn.FirstErr(s.C.DoMulti(ctx, cmds...))
	}
	if err != nil && !rueidis.IsRedisNil(err) {
		s.Log.Warn("sending live events", "event", schema.EventEdit, "users", len(users), "err", err)
	}
}

// maxUpdateNotes bounds how many of those who favourited a post, and
// of those who boosted it, are told of an edit: the latest of each.
const maxUpdateNotes = 1000

// updateRecipients are the users told that post after (before, as it
// was) was edited: those it mentioned before and still mentions, and
// those who favourited or boosted it (interacted), each once, but its
// author and those it newly mentions (told of the mention instead).
func updateRecipients(before, after index.Post, interacted []int64) []int64 {
	mentions := func(p index.Post, uid int64) bool {
		return slices.ContainsFunc(p.Conv.Mentions, func(u retwis.User) bool { return u.ID == uid })
	}
	var uids []int64
	for _, u := range before.Conv.Mentions {
		if u.ID != after.Author && mentions(after, u.ID) {
			uids = append(uids, u.ID)
		}
	}
	for _, uid := range interacted {
		newly := mentions(after, uid) && !mentions(before, uid)
		if uid != after.Author && !newly && !slices.Contains(uids, uid) {
			uids = append(uids, uid)
		}
	}
	return uids
}
