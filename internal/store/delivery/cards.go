package delivery

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/cards"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// cardJobs returns, if Options.LinkPreviews, the jobs of the queue of
// link previews (cards.JobCmd) of the posts of jobs that have a link in
// their body (not boosts, whatever their visibility, as Mastodon),
// reading their bodies in one round trip.
func (w *Worker) cardJobs(ctx context.Context, jobs []job, posts map[int64]index.Post) (rueidis.Commands, error) {
	if !w.opts.LinkPreviews {
		return nil, nil
	}
	b := w.st.C.B()
	var of []index.Post
	var reads rueidis.Commands
	for _, j := range jobs {
		if p := posts[j.post]; p.ReblogOf == 0 {
			of = append(of, p)
			reads = append(reads, b.Hget().Key(schema.Post(p.ID)).Field(schema.FieldBody).Build())
		}
	}
	var cmds rueidis.Commands
	for i, r := range w.st.C.DoMulti(ctx, reads...) {
		body, err := r.ToString()
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, w.st.Wrap("delivery: read bodies", err)
		}
		if link := firstLink(body); link != "" {
			cmds = append(cmds, cards.JobCmd(b, of[i].ID, of[i].Author, link))
		}
	}
	return cmds, nil
}

// editCard makes the card of edited post j.post follow its new text, if
// Options.LinkPreviews: a card job for a first link the card does not
// preview yet (the card worker reads it from its cache when another post
// previewed it), or the card taken off when the text has no link left.
func (w *Worker) editCard(ctx context.Context, j job) error {
	if !w.opts.LinkPreviews {
		return nil
	}
	b := w.st.C.B()
	vals, err := w.st.C.Do(ctx, b.Hmget().Key(schema.Post(j.post)).Field(schema.FieldBody, schema.FieldCard).Build()).ToArray()
	if err != nil {
		return w.st.Wrap("delivery: read an edited post", err)
	}
	body, _ := vals[0].ToString()
	card := retwis.DecodeCard(index.AsStrings(vals[1:])[0])
	switch link := firstLink(body); {
	case link == "" && card != nil:
		err = w.st.C.Do(ctx, b.Hdel().Key(schema.Post(j.post)).Field(schema.FieldCard).Build()).Error()
	case link != "" && (card == nil || card.URL != link):
		err = w.st.C.Do(ctx, cards.JobCmd(b, j.post, j.author, link)).Error()
	}
	return w.st.Wrap("delivery: an edited post's card", err)
}

// firstLink returns the first link of body ("" if none): what its card
// previews.
func firstLink(body string) string {
	for _, e := range retwis.Entities(body) {
		if e.Kind == retwis.EntityURL {
			return e.Name
		}
	}
	return ""
}
