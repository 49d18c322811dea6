package resp_test

import (
	"context"
	"fmt"
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
