// Package middleware is the HTTP foundation shared by retwis's interfaces:
// the HTML pages (internal/web), the client API (internal/api) and its
// streams (internal/streaming), each with a [Stack] of its own. It holds
// what every interface needs and none should write twice:
//
//   - the viewer of a request, resolved from a credential that each
//     interface extracts its own way (a cookie, a bearer token) by an
//     [Authenticator] such as *store.Store, and kept in the request
//     context ([WithViewer], [ViewerFrom]);
//   - the one map from a domain error's kind to an HTTP status
//     ([StatusOf]), and the rule for logging failed requests: a client
//     that went away is no error, a server-side fault is;
//   - one log line per request (method, path, status, duration) and the
//     request metrics, security headers, panic recovery, a cap on
//     request bodies and a deadline for each request ([Stack.Wrap]), or
//     for files served from memory only the metrics, the security
//     headers, panic recovery and the lines of failed or slow answers
//     ([Stack.WrapStatic]);
//   - the client's address and whether it came over HTTPS, read at most
//     once per request, believing forwarded headers from the trusted proxies only
//     ([Proxies], [ClientAddr], [Secure]), and given to the password
//     hashers on the routes that hash ([Stack.Hashing]);
//   - the write slots: posts, follows and deletions wait their turn for
//     one of a bounded number, pages never ([Stack.Throttle]).
//
// What differs between interfaces is how an error looks: the HTML
// interface renders a page, the API a JSON object. Each passes an
// [ErrorRenderer] to [New], and every error the foundation answers goes
// through it.
package middleware
