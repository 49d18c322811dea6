package jobqueue

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// gatherWait bounds how long gather waits for the streams it expects.
const gatherWait = 50 * time.Millisecond

// read is the jobs of one read of a stream, handed by its reader to be
// run; the outcome comes back on done.
type read struct {
	stream string
	jobs   []Job
	done   chan result
}

// result is how a read went: an error, or the jobs handed back to the
// reader to go with its next read (see split).
type result struct {
	err  error
	left []Job
}

// gather forms groups of reads to run until reads is closed. A group
// takes the reads waiting, and, when the previous group had full reads
// (the streams with a backlog), waits up to gatherWait for those streams
// to be read again, so that under a backlog each group holds every
// busy stream's oldest jobs and split can keep groups in order. Under a
// light load nothing is waited for. Every stream counts as busy at the
// start, since a worker may start on a backlog.
func (q *Queue) gather(reads <-chan read, groups chan<- []read) {
	busy := map[string]bool{} // streams whose last read was full
	for _, s := range q.opts.Streams {
		busy[s] = true
	}
	for r := range reads {
		group := []read{r}
		deadline := time.After(gatherWait)
	collect:
		for {
			select {
			case r, ok := <-reads:
				if !ok {
					break collect
				}
				group = append(group, r)
				continue
			default:
			}
			if covers(group, busy) {
				break
			}
			select {
			case r, ok := <-reads:
				if !ok {
					break collect
				}
				group = append(group, r)
			case <-deadline:
				break collect
			}
		}
		busy = map[string]bool{}
		for _, r := range group {
			if len(r.jobs) >= q.opts.Batch {
				busy[r.stream] = true
			}
		}
		groups <- group
	}
}

// covers reports whether group has a read of each stream of busy.
func covers(group []read, busy map[string]bool) bool {
	n := 0
	for _, r := range group {
		if busy[r.stream] {
			n++
		}
	}
	return n == len(busy)
}

// runGroups runs the groups it receives until groups is closed: the jobs
// split leaves for now, then the outcome to every read's reader: the
// error of one of its jobs that failed, if any (the reader then reads
// what it has pending again), else the jobs it takes back.
func (q *Queue) runGroups(ctx context.Context, groups <-chan []read) {
	for group := range groups {
		now, left := q.split(group)
		failed := q.runJobs(ctx, now)
		for i, r := range group {
			res := result{left: left[i]}
			for _, j := range r.jobs {
				if err := failed[j.Ref()]; err != nil {
					res = result{err: fmt.Errorf("job %s: %w", j.ID, err)}
					break
				}
			}
			r.done <- res
		}
	}
}

// split divides the jobs of a group into those to run now and those each
// reader takes back for its next read. A full read may have more jobs
// behind it in its stream, queued before the later jobs of other
// streams; so the jobs queued after the newest job of the full read that
// ends earliest wait for the next group, which will hold that stream's
// next jobs too. Jobs then run in the order they were queued across
// streams, group after group, to the millisecond: an entry id's sequence
// number counts within its own stream only, so jobs of one millisecond
// on different streams count as queued together. On a cluster the
// streams' times come from different clocks, and the order is as good
// as they agree.
func (q *Queue) split(group []read) (now []Job, left [][]Job) {
	frontier := uint64(math.MaxUint64)
	for _, r := range group {
		if len(r.jobs) >= q.opts.Batch {
			frontier = min(frontier, entryTime(r.jobs[len(r.jobs)-1].ID))
		}
	}
	left = make([][]Job, len(group))
	for i, r := range group {
		for k, j := range r.jobs {
			if entryTime(j.ID) > frontier {
				left[i] = r.jobs[k:]
				break
			}
			now = append(now, j)
		}
	}
	return now, left
}

// entryTime returns the time part (unix milliseconds) of a stream entry
// id, "<ms>-<seq>"; a malformed one reads as zero.
func entryTime(id string) uint64 {
	ms, _, _ := strings.Cut(id, "-")
	t, _ := strconv.ParseUint(ms, 10, 64)
	return t
}
