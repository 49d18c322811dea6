package kernel

import (
	"context"
	"errors"

	"github.com/redis/rueidis"
)

// Batch gathers the cached reads of the parts of a page, so that they go
// to Redis in one pipeline (CachedMulti) whichever part asked for them:
// each part adds its reads and keeps their Slot, from which it takes the
// replies once the batch is read (ReadBatch). A Batch is read once; its
// zero value is an empty batch.
type Batch struct {
	cmds []rueidis.CacheableTTL
	res  []rueidis.RedisResult
}

// Slot is where the reads of one part are in a Batch. The zero Slot
// holds none.
type Slot struct {
	b        *Batch
	from, to int
}

// Add appends cmds to b and returns where they are.
func (b *Batch) Add(cmds ...rueidis.CacheableTTL) Slot {
	from := len(b.cmds)
	b.cmds = append(b.cmds, cmds...)
	return Slot{b: b, from: from, to: len(b.cmds)}
}

// errUnread is the reply to a read of a batch not read yet.
var errUnread = errors.New("store: a batch's reply taken before the batch was read")

// Replies returns the replies to the slot's reads, in their order. Taken
// before the batch is read, each is an error.
func (s Slot) Replies() []rueidis.RedisResult {
	if s.b != nil && s.b.res != nil {
		return s.b.res[s.from:s.to]
	}
	res := make([]rueidis.RedisResult, s.to-s.from)
	for i := range res {
		res[i] = rueidis.NewErrorResult(errUnread)
	}
	return res
}

// ReadBatch reads b's reads in one call of CachedMulti; a batch without
// reads costs nothing.
func (db *DB) ReadBatch(ctx context.Context, b *Batch) {
	if len(b.cmds) == 0 {
		b.res = []rueidis.RedisResult{}
		return
	}
	b.res = db.CachedMulti(ctx, b.cmds...)
}
