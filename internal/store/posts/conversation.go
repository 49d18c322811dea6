package posts

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// ErrParentHidden is the error of a reply to a post its author does not
// see (a block either way, a suspension), refused as Mastodon does: as
// if it did not exist, which tells nobody of the block.
var ErrParentHidden = retwis.Errorf(retwis.NotFound, "The post you reply to does not exist.")

// mayReply refuses author's reply of conversation c to a post author
// does not see (ErrParentHidden): a block either way, a suspension, or
// a visibility that leaves author out. It reads through the client-side
// cache: no round trip when warm. Every interface's replies come through
// Publish, which asks.
func (s *Store) mayReply(ctx context.Context, author int64, c index.Conversation) error {
	if c.ReplyTo == 0 {
		return nil
	}
	_, err := s.Post(ctx, author, c.ReplyTo)
	if retwis.ErrorKind(err) == retwis.NotFound {
		return ErrParentHidden
	}
	return err
}

// ErrParentGone is the error of a reply to a post that does not exist
// (any more).
var ErrParentGone = retwis.Errorf(retwis.Invalid, "The post you reply to has been deleted.")

// Converse works out what a post with body records of its
// conversations: the tags and mentions of the body (mentions resolved to
// existing users) and, for a reply, the post it answers, which must
// exist. It reads the name index and the post answered in one call
// through the client-side cache, then the hashes of the users found in
// another. A reply's body is made to begin with the @name of the author
// it answers, so the body it returns may be longer.
func (s *Store) Converse(ctx context.Context, body string, replyTo int64) (string, index.Conversation, error) {
	var c index.Conversation
	var names []string
	c.Tags, names = retwis.TagsAndMentions(body)
	b := s.C.B()
	cmds := make([]rueidis.CacheableTTL, 0, len(names)+1)
	for _, n := range names {
		cmds = append(cmds, rueidis.CT(b.Hget().Key(schema.NamesFolded(n)).Field(retwis.FoldUsername(n)).Cache(), s.Opts.CacheTTL))
	}
	if replyTo > 0 {
		cmds = append(cmds, rueidis.CT(b.Hmget().Key(schema.Post(replyTo)).
			Field(schema.FieldUserID, schema.FieldAuthor, schema.FieldAncestors).Cache(), s.Opts.CacheTTL))
	}
	if len(cmds) == 0 {
		return body, c, nil
	}
	res := s.CachedMulti(ctx, cmds...)
	var addressee []retwis.User // the author answered, when the reply now begins with their @name
	if replyTo > 0 {
		var err error
		if c, err = s.replyContext(ctx, replyTo, res[len(names)], c); err != nil {
			return "", c, err
		}
		addressedBody, err := addressed(body, c.ReplyUser.Username, s.Opts.MaxPostChars)
		if err != nil {
			return "", c, err
		}
		if addressedBody != body {
			body, addressee = addressedBody, []retwis.User{c.ReplyUser}
		}
	}
	mentioned, err := s.usersNamed(ctx, res[:len(names)])
	if err != nil {
		return "", c, err
	}
	for _, u := range mentioned {
		if !slices.ContainsFunc(addressee, func(a retwis.User) bool { return a.ID == u.ID }) {
			addressee = append(addressee, u)
		}
	}
	c.Mentions = addressee[:min(len(addressee), retwis.MaxMentions)]
	return body, c, nil
}

// addressed returns body beginning with @name, as a reply to name's post
// does: prepended if the body does not already.
func addressed(body, name string, maxLen int) (string, error) {
	for _, e := range retwis.Entities(body) {
		if e.Start == 0 && e.Kind == retwis.EntityMention && retwis.FoldUsername(e.Name) == retwis.FoldUsername(name) {
			return body, nil
		}
		break
	}
	return retwis.NormalizeStatus("@"+name+" "+body, maxLen)
}

// replyContext adds to c, for a reply to post replyTo, what r (a read
// of that post's author and ancestors) says: its author, and the thread
// above it.
func (s *Store) replyContext(ctx context.Context, replyTo int64, r rueidis.RedisResult, c index.Conversation) (index.Conversation, error) {
	vals, err := r.ToArray()
	if err != nil {
		return c, s.Wrap("reply: read the post", err)
	}
	str := make([]string, len(vals))
	for i, v := range vals {
		str[i], _ = v.ToString()
	}
	author, err := strconv.ParseInt(str[0], 10, 64)
	if err != nil {
		return c, ErrParentGone
	}
	if str[1] == "" { // a post from before posts kept their author's name
		names, err := s.Usernames(ctx, []int64{author})
		if err != nil {
			return c, err
		}
		str[1] = names[author]
	}
	c.ReplyTo, c.ReplyUser, c.Ancestors = replyTo, retwis.User{ID: author, Username: str[1]}, []int64{replyTo}
	for a := range strings.SplitSeq(str[2], ",") {
		if n, err := strconv.ParseInt(a, 10, 64); err == nil && len(c.Ancestors) < retwis.MaxAncestors {
			c.Ancestors = append(c.Ancestors, n)
		}
	}
	return c, nil
}

// usersNamed returns the users that reads of the folded name index
// found, as registered (one cached read of their hashes), leaving out
// the names nobody has.
func (s *Store) usersNamed(ctx context.Context, found []rueidis.RedisResult) ([]retwis.User, error) {
	if len(found) == 0 {
		return nil, nil
	}
	var uids []int64
	for _, r := range found {
		n, err := r.AsInt64()
		if rueidis.IsRedisNil(err) {
			continue
		}
		if err != nil {
			return nil, s.Wrap("mentions", err)
		}
		if !slices.Contains(uids, n) {
			uids = append(uids, n)
		}
	}
	names, err := s.Usernames(ctx, uids)
	if err != nil {
		return nil, err
	}
	users := make([]retwis.User, 0, len(uids))
	for _, uid := range uids {
		if name := names[uid]; name != "" {
			users = append(users, retwis.User{ID: uid, Username: name})
		}
	}
	return users, nil
}
