// Package password hashes and verifies passwords with argon2id, storing
// them in the PHC string format
// ($argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>) so that the parameters
// can be raised later without invalidating existing hashes.
//
// A [Hasher] runs these costly computations on a fixed number of
// hashers (one per core), fairly between the clients that wait for one,
// so that a login flood does not hold up other people's logins:
//
//   - Each hash is for a client, named by the context ([WithClient]: the
//     client's address as the web and API middleware compute it, an IPv6
//     /64 counting as one); hashes without one (the command line, the
//     bulk writer, tests) share one anonymous client.
//   - While a hasher is free, a request takes it at once. Otherwise it
//     waits in its client's queue, and the clients waiting take turns:
//     a hasher that comes free goes to the oldest request of the client
//     whose turn it is, and that client goes to the end of the turns (a
//     client that begins to wait joins the end). So a client with one
//     request waiting gets a hasher after at most one hash for each
//     client waiting before it, however many requests the others sent.
//   - A client may have 3 requests waiting; a 4th is refused with
//     [ErrBusy] at once, costing nothing. At most 128 clients per hasher
//     may wait (at about 20 ms a hash, those further back would hardly
//     be served within [MaxWait]); a new client beyond is refused alike.
//     The anonymous client, the server's own tools, is bound by neither.
//   - Known clients ([WithKnownClient]: a browser that logged in to the
//     account before, by its device cookie) wait in a lane of their own,
//     with its own turns and bounds; while both lanes have clients
//     waiting, they take the hashers that come free in turn. So a flood
//     of unknown clients from any number of addresses holds a known
//     client up by about one hash, and the unknown ones still get at
//     least every other hash.
//   - A request that waited [MaxWait], or whose context ended, gets
//     ErrBusy and leaves its queue; a hasher given to it meanwhile goes
//     to the next in turn.
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id cost parameters.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
}

// Default follows OWASP's minimum recommendation for argon2id (19 MiB,
// two passes, one lane): about 20 ms per hash on a 2-core machine, so a
// login is cheap for us and costly for an attacker with a stolen database.
var Default = Params{Memory: 19 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
	prefix  = "$argon2id$"
)

var b64 = base64.RawStdEncoding

// ErrMalformed reports a stored hash that is not an argon2id PHC string.
var ErrMalformed = errors.New("password: malformed hash")

// Hash returns the PHC-encoded argon2id hash of password under p, with a
// random salt.
func Hash(password string, p Params) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password: salt: %w", err)
	}
	return HashSalt(password, salt, p), nil
}

// HashSalt is Hash with a given salt. A fixed salt gives a reproducible
// hash, which generated test data wants; real accounts use Hash.
func HashSalt(password string, salt []byte, p Params) string {
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyLen)
	return fmt.Sprintf("%sv=%d$m=%d,t=%d,p=%d$%s$%s", prefix, argon2.Version,
		p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// Verify reports whether password matches the PHC-encoded hash. The
// comparison of the derived keys takes constant time.
func Verify(password, encoded string) (bool, error) {
	p, salt, key, err := decode(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

func decode(encoded string) (p Params, salt, key []byte, err error) {
	rest, ok := strings.CutPrefix(encoded, prefix)
	if !ok {
		return p, nil, nil, ErrMalformed
	}
	parts := strings.Split(rest, "$")
	if len(parts) != 4 {
		return p, nil, nil, ErrMalformed
	}
	var version int
	if _, err := fmt.Sscanf(parts[0], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, ErrMalformed
	}
	if _, err := fmt.Sscanf(parts[1], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Time == 0 || p.Threads == 0 {
		return p, nil, nil, ErrMalformed
	}
	if salt, err = b64.DecodeString(parts[2]); err != nil {
		return p, nil, nil, ErrMalformed
	}
	if key, err = b64.DecodeString(parts[3]); err != nil || len(key) == 0 {
		return p, nil, nil, ErrMalformed
	}
	return p, salt, key, nil
}
