package resp_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

func TestSlot(t *testing.T) {
	t.Parallel()
	if got := resp.CRC16([]byte("123456789")); got != 0x31C3 {
		t.Fatalf("CRC16(123456789) = %#x; want 0x31c3", got)
	}
	for _, tc := range []struct {
		key, tag string
	}{
		{"123456789", "123456789"},
		{"{user1000}.following", "user1000"},
		{"{user1000}.followers", "user1000"},
		{"foo{}{bar}", "foo{}{bar}"},
		{"foo{{bar}}zap", "{bar"},
		{"foo{bar}{zap}", "bar"},
		{"{", "{"},
		{"}{", "}{"},
		{"", ""},
	} {
		t.Run(tc.key, func(t *testing.T) {
			if got := string(resp.HashTag([]byte(tc.key))); got != tc.tag {
				t.Fatalf("HashTag(%q) = %q; want %q", tc.key, got, tc.tag)
			}
			if resp.Slot([]byte(tc.key)) != resp.Slot([]byte(tc.tag)) {
				t.Fatalf("Slot(%q) != Slot(%q)", tc.key, tc.tag)
			}
		})
	}
	if got := resp.Slot([]byte("123456789")); got != 12739 {
		t.Fatalf("Slot(123456789) = %d; want 12739", got)
	}
}

// TestSlotMatchesRedis compares Slot with CLUSTER KEYSLOT of a real
// cluster node, on keys with and without tags, and binary ones.
func TestSlotMatchesRedis(t *testing.T) {
	t.Parallel()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{redistest.Cluster(t)[len("redis://"):]}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keys := []string{"", "a", "{", "{}", "{a}b", "a{b}", "\x00\xff\r\n", "foo{{bar}}zap", "foo{}{bar}"}
	for i := range 300 {
		keys = append(keys, fmt.Sprintf("key:%d", i), fmt.Sprintf("{user%d}.followers", i), string(rune(i))+"\x80")
	}
	ctx := context.Background()
	for _, key := range keys {
		want, err := c.Do(ctx, c.B().ClusterKeyslot().Key(key).Build()).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Slot([]byte(key)); int64(got) != want {
			t.Fatalf("Slot(%q) = %d; CLUSTER KEYSLOT says %d", key, got, want)
		}
	}
}

// TestCRC16 compares CRC16 with the checksum computed bit by bit, on
// random inputs of every length up to 40 bytes.
func TestCRC16(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 41 {
		for range 50 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			if got, want := resp.CRC16(b), crc16Bitwise(b); got != want {
				t.Fatalf("CRC16(%x) = %#x; want %#x", b, got, want)
			}
		}
	}
}

// crc16Bitwise is CRC16-XMODEM by its definition: each bit of the input,
// high bit first, shifted through the polynomial 0x1021.
func crc16Bitwise(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c ^= uint16(x) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
	}
	return c
}

// BenchmarkSlot hashes the short keys of a bulk load.
func BenchmarkSlot(b *testing.B) {
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key:%d", i*7919))
	}
	var sum int
	for i := 0; b.Loop(); i++ {
		sum += resp.Slot(keys[i%len(keys)])
	}
	_ = sum
}
