package push

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/SherClockHolmes/webpush-go"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/safehttp"
	"github.com/retwis/retwis/internal/store/posts"
	pushstore "github.com/retwis/retwis/internal/store/push"
)

// message is what a push says of one notification, but for the access
// token of the subscription it goes to.
type message struct {
	user, actor int64
	ID          int64  `json:"-"`
	Type        string `json:"notification_type"`
	Title       string `json:"title"`
	Body        string `json:"body"`
	Icon        string `json:"icon"`
}

// payload is Mastodon's push payload, which apps decode.
type payload struct {
	AccessToken     string `json:"access_token"`
	PreferredLocale string `json:"preferred_locale"`
	NotificationID  string `json:"notification_id"`
	message
}

// maxBody bounds the body of a push, in characters, as Mastodon's.
const maxBody = 140

// titles are the titles of the pushes by notification type, as Mastodon's
// English ones.
var titles = map[string]string{
	"mention":   "You were mentioned by %s",
	"follow":    "%s is now following you",
	"favourite": "%s favorited your post",
	"reblog":    "%s boosted your post",
	"update":    "%s edited a post",
}

// message reads what the push of uid's notification note, made at unix
// ms at, says; ok is false for a notification that says nothing any more
// (its post or actor is gone) or that is not one.
func (w *Worker) message(ctx context.Context, uid int64, note string, at int64) (message, bool, error) {
	n, ok := posts.ParseNote(note)
	if !ok {
		return message{}, false, nil
	}
	m := message{user: uid, actor: n.Actor.ID, ID: posts.NoteID(at, note), Type: notificationType(n.Kind),
		Icon: w.opts.Origin + retwis.AvatarPath(n.Actor.ID)}
	acct, err := w.st.Account(ctx, n.Actor.ID, true)
	if err != nil || acct.Username == "" {
		return m, false, err
	}
	name := "@" + acct.Username
	m.Body = name
	if n.Post > 0 {
		p, err := w.st.Post(ctx, uid, n.Post)
		if retwis.ErrorKind(err) == retwis.NotFound {
			return m, false, nil
		}
		if err != nil {
			return m, false, err
		}
		m.Body = cmp.Or(p.Warning, p.Body)
		if p.AuthorDisplayName != "" && p.AuthorID == n.Actor.ID {
			name = p.AuthorDisplayName
		}
	}
	m.Title, m.Body = fmt.Sprintf(titles[m.Type], name), truncate(m.Body, maxBody)
	return m, true, nil
}

// notificationType is Mastodon's name of a kind of notification: a
// reply is a mention.
func notificationType(k retwis.NotificationKind) string {
	if k == retwis.NotificationReply {
		return "mention"
	}
	return k.String()
}

// truncate cuts s to at most n characters, with an ellipsis when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// wanted reports whether sub asks for the push of m: its alert for m's
// type, and its policy on who m's actor is to the user.
func (w *Worker) wanted(ctx context.Context, sub pushstore.Subscription, m message) (bool, error) {
	if !sub.Alerts[m.Type] {
		return false, nil
	}
	switch sub.Policy {
	case "all":
		return true, nil
	case "followed", "follower":
		ties, err := w.st.Relations(ctx, m.user, []int64{m.actor})
		if err != nil {
			return false, err
		}
		return (sub.Policy == "followed" && ties[0].Following) || (sub.Policy == "follower" && ties[0].FollowedBy), nil
	}
	return false, nil
}

// errRetry is the error of a push the push service may take later.
var errRetry = errors.New("push: the push service asks to try again later")

// send sends m to sub. A push service that answers 404 or 410 has lost
// the subscription, which is removed; 429 and 5xx, and the network
// failing, are tried again (the error); other answers, and an endpoint
// at an address that is not allowed, are logged.
func (w *Worker) send(ctx context.Context, sub pushstore.Subscription, m message) error {
	keys, err := w.subs.Keys(ctx)
	if err != nil {
		return err
	}
	body, err := json.Marshal(payload{AccessToken: sub.Token, PreferredLocale: "en", NotificationID: strconv.FormatInt(m.ID, 10), message: m})
	if err != nil {
		return err
	}
	resp, err := webpush.SendNotificationWithContext(ctx, body, &webpush.Subscription{Endpoint: sub.Endpoint,
		Keys: webpush.Keys{Auth: sub.Auth, P256dh: sub.P256dh}}, &webpush.Options{HTTPClient: w.opts.Client,
		Subscriber: w.opts.Subject, VAPIDPublicKey: keys.Public, VAPIDPrivateKey: keys.Private,
		TTL: int(w.opts.TTL / time.Second), Urgency: webpush.UrgencyNormal})
	if errors.Is(err, safehttp.ErrRefused) {
		w.opts.Log.Warn("push: endpoint refused", "user", sub.User, "err", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("push to %s: %w", host(sub.Endpoint), err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusNotFound || code == http.StatusGone:
		return w.subs.Gone(ctx, sub)
	case code == http.StatusTooManyRequests || code >= 500:
		return fmt.Errorf("%w: %s answered %d", errRetry, host(sub.Endpoint), code)
	default:
		w.opts.Log.Warn("push: refused by the push service", "user", sub.User, "endpoint", host(sub.Endpoint), "status", code)
		return nil
	}
}

// host is the host of an endpoint, for the log (its path is a secret).
func host(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "?"
	}
	return u.Host
}
