package push

import (
	"cmp"
	"net/http"
	"net/url"
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	pushstore "github.com/retwis/retwis/internal/store/push"
)

// WebPushSubscription is Mastodon's WebPushSubscription entity.
type WebPushSubscription struct {
	ID        string          `json:"id"`
	Endpoint  string          `json:"endpoint"`
	Standard  bool            `json:"standard"`
	Alerts    map[string]bool `json:"alerts"`
	Policy    string          `json:"policy"`
	ServerKey string          `json:"server_key"`
}

// write answers sub as the entity.
func (s *Server) write(w http.ResponseWriter, r *http.Request, sub pushstore.Subscription) {
	apiwire.WriteJSON(w, http.StatusOK, WebPushSubscription{ID: strconv.FormatInt(sub.ID, 10), Endpoint: sub.Endpoint,
		Standard: true, Alerts: sub.Alerts, Policy: sub.Policy, ServerKey: s.VapidKey(r.Context())})
}

// token returns the request's access token: whose subscription it is.
func token(r *http.Request) retwis.Token {
	t, _ := apiwire.TokenFrom(r.Context())
	return t
}

// data reads data[alerts][…] (nil if none is given) and data[policy]
// (or policy, where masto.js sends it).
func data(v url.Values) (alerts map[string]bool, policy string) {
	for _, a := range pushstore.Alerts {
		if name := "data[alerts][" + a + "]"; v.Has(name) {
			if alerts == nil {
				alerts = map[string]bool{}
			}
			alerts[a] = apiwire.Flag(v, name)
		}
	}
	return alerts, cmp.Or(v.Get("data[policy]"), v.Get("policy"))
}

// subscribe answers POST /api/v1/push/subscription: the token's
// subscription, made or replaced, from subscription[endpoint],
// subscription[keys][p256dh] and [auth], data[alerts][…] and
// data[policy].
func (s *Server) subscribe(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	alerts, policy := data(v)
	sub, err := s.Push.Subscribe(r.Context(), token(r), apiwire.Bearer(r), pushstore.Subscription{
		Endpoint: v.Get("subscription[endpoint]"), P256dh: v.Get("subscription[keys][p256dh]"),
		Auth: v.Get("subscription[keys][auth]"), Alerts: alerts, Policy: policy})
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.write(w, r, sub)
}

// subscription answers GET /api/v1/push/subscription: the token's
// subscription, or 404.
func (s *Server) subscription(w http.ResponseWriter, r *http.Request) {
	t := token(r)
	sub, err := s.Push.Subscription(r.Context(), t.User.ID, t.ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.write(w, r, sub)
}

// update answers PUT /api/v1/push/subscription: the token's
// subscription with the alerts (those given replace them all) and the
// policy given, or 404.
func (s *Server) update(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	t := token(r)
	alerts, policy := data(v)
	sub, err := s.Push.Update(r.Context(), t.User.ID, t.ID, alerts, policy)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.write(w, r, sub)
}

// unsubscribe answers DELETE /api/v1/push/subscription: the token's
// subscription removed, if it had one; {}.
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) {
	t := token(r)
	if err := s.Push.Unsubscribe(r.Context(), t.User.ID, t.ID); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}
