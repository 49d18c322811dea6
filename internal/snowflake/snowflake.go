// Package snowflake makes unique, time-ordered 53-bit ids without asking
// a database: the time in milliseconds, the number of the worker (a
// server process) that made the id, and a sequence number within the
// millisecond, as in the timeline design notes' Snowflake-style ids.
//
// Ids fit in 53 bits so that they stay exact wherever retwis stores them:
// Redis sorted-set scores and Lua numbers are doubles. The layout is
//
//	41 bits  milliseconds since Epoch (about 69 years)
//	 6 bits  worker number, 0–63
//	 6 bits  sequence within the millisecond, 0–63
//
// An id never repeats as long as no two running generators share a
// worker number (leased, see Lease) and a worker's clock does not go
// back across a restart by more than it waited. Ids made by one
// generator strictly increase; ids of different generators are ordered
// by their millisecond. Every id is far larger than those a counter
// hands out (the original Retwis's INCR), so old and new ids sort
// together by age.
package snowflake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The layout of an id.
const (
	TimeBits   = 41
	WorkerBits = 6
	SeqBits    = 6
	// Workers is how many generators can run at once.
	Workers = 1 << WorkerBits
	// EpochMillis is the unix time, in milliseconds, of the id epoch:
	// 2026-01-01T00:00:00Z.
	EpochMillis = 1_767_225_600_000
	seqMask     = 1<<SeqBits - 1
	maxMillis   = 1<<TimeBits - 1
)

// ErrNoLease reports that the generator may not make ids right now: its
// worker number's lease has ended and has not been renewed.
var ErrNoLease = errors.New("snowflake: the worker number's lease has ended")

// Generator makes ids for one worker number.
type Generator struct {
	now func() time.Time
	mu  sync.Mutex
	w   int64     // worker number
	end time.Time // the lease on w ends then; zero: never
	ms  int64     // millisecond of the last id
	seq int64     // sequence number of the last id
}

// New returns a generator for worker number w (0 ≤ w < Workers) whose
// lease does not end: for a process that is the only one making ids.
func New(w int) (*Generator, error) {
	g := &Generator{now: time.Now}
	return g, g.SetWorker(w, time.Time{})
}

// NewLeased returns a generator that makes no ids until Lease gives it a
// worker number.
func NewLeased() *Generator {
	return &Generator{now: time.Now, end: time.Unix(0, 0)}
}

// SetWorker switches the generator to worker number w, leased until end
// (zero: no end). Ids made afterwards are still larger than those made
// before.
func (g *Generator) SetWorker(w int, end time.Time) error {
	if w < 0 || w >= Workers {
		return fmt.Errorf("snowflake: worker number %d out of range 0–%d", w, Workers-1)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.w, g.end = int64(w), end
	return nil
}

// Next returns a new id. When the 64 ids of the current millisecond are
// spent, or the clock went back, it waits for the clock to move on.
func (g *Generator) Next(ctx context.Context) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		now := g.now()
		if !g.end.IsZero() && !now.Before(g.end) {
			return 0, ErrNoLease
		}
		ms := now.UnixMilli() - EpochMillis
		if ms < 0 || ms > maxMillis {
			return 0, fmt.Errorf("snowflake: the clock (%s) is outside the id epoch", now.UTC().Format(time.RFC3339))
		}
		switch {
		case ms > g.ms:
			g.ms, g.seq = ms, 0
			return g.id(), nil
		case ms == g.ms && g.seq < seqMask:
			g.seq++
			return g.id(), nil
		}
		// This millisecond is spent, or the clock went back: wait.
		wait := time.Duration(g.ms-ms+1) * time.Millisecond
		if wait > time.Second {
			return 0, fmt.Errorf("snowflake: the clock went back by %s", wait)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(wait):
		}
	}
}

func (g *Generator) id() int64 {
	return g.ms<<(WorkerBits+SeqBits) | g.w<<SeqBits | g.seq
}

// Time returns the time an id was made, to the millisecond. Ids that a
// counter handed out (below 2^32, 17 minutes into the epoch) give the
// zero time.
func Time(id int64) time.Time {
	if id < 1<<32 {
		return time.Time{}
	}
	return time.UnixMilli(id>>(WorkerBits+SeqBits) + EpochMillis)
}

// Worker returns the worker number of an id.
func Worker(id int64) int { return int(id >> SeqBits & (Workers - 1)) }

// First returns the smallest id that can be made at time t: every id
// made at t or later is at least First(t).
func First(t time.Time) int64 {
	ms := max(t.UnixMilli()-EpochMillis, 0)
	return ms << (WorkerBits + SeqBits)
}
