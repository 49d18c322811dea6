package store

import (
	"encoding/binary"

	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/resp"
)

// GenerateOptions describe the synthetic network Generate writes.
type GenerateOptions struct {
	NetworkOptions
	Password string // every user's password; hashed once for all
	HomeCap  int    // entries per home timeline (800 when zero)
	Progress func(stage string, done, total int)
}

// Generate writes a synthetic network as a stream of Redis commands in
// RESP, ready for `retwis load` or `redis-cli --pipe`, in retwis's layout.
// The output is the same for the same options.
func Generate(w *resp.Writer, o GenerateOptions) (NetworkStats, error) {
	if err := o.check(); err != nil {
		return NetworkStats{}, err
	}
	if o.Until.IsZero() {
		return NetworkStats{}, errorf("the end of the posting period (Until) must be given, for a reproducible output")
	}
	if o.HomeCap == 0 {
		o.HomeCap = 800
	}
	// One hash for every user, salted from the seed so the output is the
	// same every time.
	salt := binary.BigEndian.AppendUint64([]byte("retwisgen"), o.Seed)
	hash := password.HashSalt(o.Password, salt, password.Default)
	e := &emitter{n: newNetwork(o.NetworkOptions), out: respSink{w}, hash: hash, homeCap: o.HomeCap, progress: o.Progress}
	return e.run()
}

// respSink writes commands as RESP.
type respSink struct{ w *resp.Writer }

func (r respSink) command(args ...string) error { return r.w.Command(args...) }
func (r respSink) ints(name, key string, values []int64) error {
	return r.w.CommandInts(name, key, values)
}
func (r respSink) flush() error { return r.w.Flush() }
