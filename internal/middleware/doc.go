// Package middleware is the HTTP foundation shared by retwis's interfaces:
// the HTML pages (internal/web) and, later, the JSON API. It holds what
// every interface needs and none should write twice:
//
//   - the viewer of a request, resolved from a credential that each
//     interface extracts its own way (a cookie, a bearer token) by an
//     [Authenticator] such as *store.Store, and kept in the request
//     context ([WithViewer], [ViewerFrom]);
//   - the one map from a domain error's kind to an HTTP status
//     ([StatusOf]), and the rule for logging failed requests: a client
//     that went away is no error, a server-side fault is;
//   - one log line per request (method, path, status, duration), panic
//     recovery, a cap on request bodies and a deadline for each request.
//
// What differs between interfaces is how an error looks: the HTML
// interface renders a page, the API a JSON object. Each passes an
// [ErrorRenderer] to [New], and every error the foundation answers goes
// through it.
package middleware
