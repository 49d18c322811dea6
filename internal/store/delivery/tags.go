package delivery

import (
	"context"

	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/store/tagfollows"
)

// pushTagged pushes the public posts of jobs that bear tags onto the home
// timelines of their tags' followers whom their authors' followings do
// not reach already (tagfollows.Store.Audiences: blocks and mutes
// respected), each follower's posts in one push, batch followers per
// pipeline, announced on their streams as any other post of their home
// timeline; it returns which followers each post was pushed to. Posts
// without tags cost nothing; those with tags, together, a round trip
// per batch of each tag's followers and one to sift them (see
// tagfollows.Store.Audiences), then the pushes.
func (w *Worker) pushTagged(ctx context.Context, jobs []job, ps map[int64]index.Post, batch int) (map[int64][]int64, error) {
	var tagged []tagfollows.Tagged
	var pids []int64
	for _, j := range jobs {
		p := ps[j.post]
		if tags := p.ListedTags(); len(tags) > 0 && p.ReblogOf == 0 {
			tagged, pids = append(tagged, tagfollows.Tagged{Author: j.author, Tags: tags}), append(pids, j.post)
		}
	}
	if len(tagged) == 0 {
		return nil, nil
	}
	audiences, err := tagfollows.New(w.st).Audiences(ctx, tagged, batch)
	if err != nil {
		return nil, err
	}
	var in inboxes
	for i, users := range audiences {
		in.add(pids[i], users)
	}
	return w.pushInboxes(ctx, in, batch)
}

// deliverTagged does pushTagged for a deliver job carried out alone (an
// author with more followers than a batch, or one resumed), reading its
// post.
func (w *Worker) deliverTagged(ctx context.Context, j job, batch int) error {
	post, _, ok, err := index.ParseJobPost(j.post, w.st.C.Do(ctx, w.st.C.B().Hmget().Key(schema.Post(j.post)).Field(index.JobFields...).Build()))
	if err != nil || !ok {
		return w.st.Wrap("delivery: read post", err)
	}
	_, err = w.pushTagged(ctx, []job{j}, map[int64]index.Post{j.post: post}, batch)
	return err
}
