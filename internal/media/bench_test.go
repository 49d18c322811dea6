package media_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/media/dirblobs"
	"github.com/retwis/retwis/internal/media/imaging"
	"github.com/retwis/retwis/internal/store"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// camera returns a 4 MP (2304x1728) JPEG at quality 90 that compresses
// as a photo does: smooth light with fine noise, some 1.5 MB.
func camera(b testing.TB) []byte {
	b.Helper()
	const w, h = 2304, 1728
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			n := uint8(rng.IntN(24))
			img.SetRGBA(x, y, color.RGBA{uint8(x/10) + n, uint8(y/8) + n, uint8((x+y)/16) + n, 255})
		}
	}
	var buf bytes.Buffer
	must.OK(b, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}))
	return buf.Bytes()
}

// benchService returns a media service on a fresh Redis with its files
// in a directory, bounded by nothing but its pool of workers (0: half
// the cores).
func benchService(b *testing.B, workers int) (*media.Service, *storetest.Fixture) {
	f := storetest.NewFixture(b, redistest.Start(b).URL, store.Options{}, false)
	blobs := must.Value(dirblobs.New(b.TempDir()))(b)
	m := media.New(f.St, blobs, media.Options{Workers: workers})
	b.Cleanup(func() { m.Close() })
	return m, f
}

// BenchmarkUpload4MP uploads a 4 MP photo and waits until it is ready
// (Upload then Ready: checked, recorded, decoded, resized to 1920 px and
// 400 px, re-encoded, blurhashed, both files stored, the record
// finished), one at a time (ms/upload: what a person waits) and as many
// at once as the pool has workers and its queue takes (uploads/s: what
// a server sustains), against the baseline of the same run, the
// processing alone (imaging.Process). stored-B/upload is what the two
// files weigh.
func BenchmarkUpload4MP(b *testing.B) {
	data := camera(b)
	b.Logf("the photo: %d bytes", len(data))
	b.Run("process", func(b *testing.B) { // the baseline: the image processing alone, nothing stored
		var stored int64
		b.SetBytes(int64(len(data)))
		cpu := cpuTime()
		for b.Loop() {
			res := must.Value(imaging.Process(data, imaging.DefaultLimits))(b)
			stored += int64(len(res.Original) + len(res.Small))
		}
		report(b, cpu, stored)
	})
	b.Run("serial", func(b *testing.B) {
		m, f := benchService(b, 0)
		owner := f.Register(b, "bench").ID
		var stored int64
		b.SetBytes(int64(len(data)))
		b.ResetTimer()
		cpu := cpuTime()
		for b.Loop() {
			u := must.Value(m.Upload(f.Ctx, owner, mediastore.ForPost, data, "", 0, 0))(b)
			stored += must.Value(m.Ready(f.Ctx, u))(b).Bytes
		}
		report(b, cpu, stored)
	})
	b.Run("parallel", func(b *testing.B) {
		m, f := benchService(b, 0)
		owner := f.Register(b, "bench").ID
		var stored atomic.Int64
		b.SetBytes(int64(len(data)))
		b.SetParallelism(2) // twice the cores: within the queue, which is four per worker
		b.ResetTimer()
		cpu := cpuTime()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				u := must.Value(m.Upload(f.Ctx, owner, mediastore.ForPost, data, "", 0, 0))(b)
				stored.Add(must.Value(m.Ready(f.Ctx, u))(b).Bytes)
			}
		})
		report(b, cpu, stored.Load())
	})
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds the figures of an upload benchmark begun when the process
// had used cpu: ms/upload, cpu-ms/upload (the CPU time of this process
// per upload, all goroutines: a figure that a loaded machine's waits do
// not swell), uploads/s and stored-B/upload.
func report(b *testing.B, cpu time.Duration, stored int64) {
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds())/1000, "ms/upload")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/upload")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "uploads/s")
	b.ReportMetric(float64(stored)/float64(b.N), "stored-B/upload")
}

// BenchmarkRecordMemory measures what Redis keeps per attachment: b.N
// ready records (an alt text of 100 characters, a blurhash), 10 a user,
// attached to posts, each post hash's media field holding the
// attachment too (the posts are made before); B/attachment is
// used_memory's growth over b.N, post-field-B the JSON of one
// attachment in a post hash. Run with -benchtime=10000x.
func BenchmarkRecordMemory(b *testing.B) {
	f := storetest.NewFixture(b, redistest.Start(b).URL, store.Options{}, false)
	recs := mediastore.New(f.St)
	a := retwis.Attachment{Ext: "jpg", SmallExt: "jpg", Width: 1920, Height: 1440, SmallWidth: 400, SmallHeight: 300,
		Bytes: 520_000, Blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj", Description: strings.Repeat("a photo of ", 9) + "a cat"}
	for i := range b.N { // the posts, which are there anyway
		f.Do(b, "HSET", schema.Post(int64(1_000_000+i)), schema.FieldBody, "look")
	}
	before := usedMemory(b, f)
	b.ResetTimer()
	for i := range b.N {
		owner := int64(1 + i/10)
		r := must.Value(recs.Begin(f.Ctx, owner, mediastore.ForPost, a, retwis.Rate{}, 0))(b)
		at := a
		at.ID, at.Owner = r.Attachment.ID, owner
		must.Value(recs.Finish(f.Ctx, at, 0))(b)
		pid := int64(1_000_000 + i)
		f.Do(b, "HSET", schema.Post(pid), schema.FieldMedia, retwis.EncodeAttachments([]retwis.Attachment{at}))
		for _, c := range recs.AttachCmds(owner, []int64{at.ID})(pid) {
			must.OK(b, f.St.C.Do(f.Ctx, c).Error())
		}
	}
	b.StopTimer()
	f.Do(b, "DEL", schema.MediaPending) // upkeep's, for a day: not kept
	grown := usedMemory(b, f) - before
	at := a
	at.ID, at.Owner = 123456789012345678, 1234567
	b.ReportMetric(float64(grown)/float64(b.N), "B/attachment")
	b.ReportMetric(float64(len(retwis.EncodeAttachments([]retwis.Attachment{at}))), "post-field-B")
}

// usedMemory returns Redis's used_memory.
func usedMemory(b *testing.B, f *storetest.Fixture) int64 {
	info := f.Do(b, "INFO", "memory")
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			return must.Value(strconv.ParseInt(v, 10, 64))(b)
		}
	}
	b.Fatal("no used_memory in INFO")
	return 0
}
