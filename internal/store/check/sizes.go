package check

import (
	"context"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
)

// Sizes is what the timelines of a sample of users take in Redis: the
// home timeline (its list, its archive's index and chunks) and the
// user's own posts (user_posts, their profile), in bytes (MEMORY USAGE)
// and in post ids.
type Sizes struct {
	Users                int          // users sampled
	HomeBytes, HomeIDs   Distribution // list and archive together
	ArchiveIDs           Distribution // the archive alone
	OwnBytes, OwnIDs     Distribution // the user's own posts
	LongestHome, Deepest int64        // the user with the most home entries, and how many
}

// Distribution summarises the values of a sample.
type Distribution struct {
	Mean, P50, P90, P99, Max int64
}

// distribution returns the summary of values.
func distribution(values []int64) Distribution {
	if len(values) == 0 {
		return Distribution{}
	}
	v := slices.Sorted(slices.Values(values))
	var sum int64
	for _, x := range v {
		sum += x
	}
	at := func(p int) int64 { return v[min(len(v)-1, len(v)*p/100)] }
	return Distribution{Mean: sum / int64(len(v)), P50: at(50), P90: at(90), P99: at(99), Max: v[len(v)-1]}
}

// sizesBatch is how many users MeasureSizes measures a pair of
// pipelines, so that a pipeline stays small whatever the archives hold.
const sizesBatch = 100

// MeasureSizes samples up to n users, a share of them from each master
// (the first user hashes SCAN finds there, in the order of Redis's
// dictionary, which is unrelated to the users), and measures their
// timelines, sizesBatch users a pair of pipelines.
func MeasureSizes(ctx context.Context, st *store.Store, n int) (Sizes, error) {
	uids, err := sampleUsers(ctx, st, n)
	if err != nil || len(uids) == 0 {
		return Sizes{}, err
	}
	var sizes []userSize
	for batch := range slices.Chunk(uids, sizesBatch) {
		heads, err := measureHeads(ctx, st, batch)
		if err != nil {
			return Sizes{}, err
		}
		if err := measureChunks(ctx, st, batch, heads); err != nil {
			return Sizes{}, err
		}
		sizes = append(sizes, heads...)
	}
	return summarise(uids, sizes), nil
}

// userSize is what measureHeads and measureChunks find of one user.
type userSize struct {
	homeBytes, homeIDs, archiveIDs, ownBytes, ownIDs int64
	chunks                                           []string // the archive's chunk numbers
}

// sampleUsers returns up to n user ids, n/masters from each master.
func sampleUsers(ctx context.Context, st *store.Store, n int) ([]int64, error) {
	masters := st.Nodes.Masters(ctx)
	share := (n + len(masters) - 1) / max(1, len(masters))
	var uids []int64
	for _, node := range masters {
		if node == nil {
			continue
		}
		got := 0
		for cursor := uint64(0); got < share; {
			e, err := node.Do(ctx, node.B().Scan().Cursor(cursor).Match(schema.UserKeys).Count(1000).Type("hash").Build()).AsScanEntry()
			if err != nil {
				return nil, st.Wrap("sizes: sample users", err)
			}
			for _, k := range e.Elements {
				if uid, ok := schema.UserOf(k); ok && got < share {
					uids, got = append(uids, uid), got+1
				}
			}
			if cursor = e.Cursor; cursor == 0 {
				break
			}
		}
	}
	return uids[:min(n, len(uids))], nil
}

// measureHeads reads, in one pipeline, the size of each user's home
// list, archive index and own posts, and the archive's chunk numbers.
func measureHeads(ctx context.Context, st *store.Store, uids []int64) ([]userSize, error) {
	const per = 6
	b := st.C.B()
	cmds := make(rueidis.Commands, 0, per*len(uids))
	for _, uid := range uids {
		cmds = append(cmds,
			b.MemoryUsage().Key(schema.Home(uid)).Samples(0).Build(), b.Llen().Key(schema.Home(uid)).Build(),
			b.MemoryUsage().Key(schema.Archive(uid)).Samples(0).Build(), b.Zrange().Key(schema.Archive(uid)).Min("0").Max("-1").Build(),
			b.MemoryUsage().Key(schema.UserPosts(uid)).Samples(0).Build(), b.Zcard().Key(schema.UserPosts(uid)).Build())
	}
	res := st.C.DoMulti(ctx, cmds...)
	sizes := make([]userSize, len(uids))
	for i := range uids {
		r := res[per*i : per*(i+1)]
		var nums [per]int64
		for j, k := range []int{0, 1, 2, 4, 5} {
			v, err := r[k].AsInt64()
			if err != nil && !rueidis.IsRedisNil(err) { // nil: no such key
				return nil, st.Wrap("sizes: measure", err)
			}
			nums[j] = v
		}
		chunks, err := r[3].AsStrSlice()
		if err != nil {
			return nil, st.Wrap("sizes: measure", err)
		}
		sizes[i] = userSize{homeBytes: nums[0] + nums[2], homeIDs: nums[1], ownBytes: nums[3], ownIDs: nums[4], chunks: chunks}
	}
	return sizes, nil
}

// measureChunks adds to each user's home the size of its archive's
// chunks, read in one pipeline.
func measureChunks(ctx context.Context, st *store.Store, uids []int64, sizes []userSize) error {
	b := st.C.B()
	var cmds rueidis.Commands
	for i, uid := range uids {
		for _, c := range sizes[i].chunks {
			key := schema.ArchivePrefix(uid) + c
			cmds = append(cmds, b.MemoryUsage().Key(key).Samples(0).Build(), b.Llen().Key(key).Build())
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	res := st.C.DoMulti(ctx, cmds...)
	at := 0
	for i := range sizes {
		for range sizes[i].chunks {
			bytes, err := res[at].AsInt64()
			if err != nil && !rueidis.IsRedisNil(err) {
				return st.Wrap("sizes: measure the archive", err)
			}
			ids, err := res[at+1].AsInt64()
			if err != nil {
				return st.Wrap("sizes: measure the archive", err)
			}
			sizes[i].homeBytes, sizes[i].homeIDs, sizes[i].archiveIDs = sizes[i].homeBytes+bytes, sizes[i].homeIDs+ids, sizes[i].archiveIDs+ids
			at += 2
		}
	}
	return nil
}

// summarise makes the Sizes of the users measured.
func summarise(uids []int64, sizes []userSize) Sizes {
	pick := func(f func(userSize) int64) []int64 {
		out := make([]int64, len(sizes))
		for i, s := range sizes {
			out[i] = f(s)
		}
		return out
	}
	out := Sizes{
		Users:      len(uids),
		HomeBytes:  distribution(pick(func(s userSize) int64 { return s.homeBytes })),
		HomeIDs:    distribution(pick(func(s userSize) int64 { return s.homeIDs })),
		ArchiveIDs: distribution(pick(func(s userSize) int64 { return s.archiveIDs })),
		OwnBytes:   distribution(pick(func(s userSize) int64 { return s.ownBytes })),
		OwnIDs:     distribution(pick(func(s userSize) int64 { return s.ownIDs })),
	}
	for i, s := range sizes {
		if s.homeIDs > out.Deepest {
			out.LongestHome, out.Deepest = uids[i], s.homeIDs
		}
	}
	return out
}
