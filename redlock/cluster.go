package redlock

import (
	"errors"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/resp"
)

// DefaultClusterKeys is the number of keys a lock has on a Redis Cluster
// by default (NewOnCluster): three on each master of a cluster of three,
// at least one on each of up to nine masters whose slots are split
// evenly, and never a majority on one master of three or more.
const DefaultClusterKeys = 9

// NewOnCluster returns a Client whose n instances are n hash slots of
// the Redis Cluster that client (a cluster client, which follows the
// slot map through failovers) reaches: each lock has one key in each,
// "{<tag>}<name>", the tags naming slots spread evenly over the slot
// space ((2i+1)·16384/2n for i < n), and so over the masters. A lock is
// held when a majority of its n keys are, which on a cluster of three
// masters or more with slots split evenly means keys on two masters at
// least.
//
// The keys depend on n and the lock's name only, not on the cluster's
// current layout, so every client agrees on them whatever each saw of
// the cluster: a resharding moves keys between masters, it never gives
// two clients two sets of keys. The layout decides only how many keys a
// master holds, and so whether the lock outlives that master's failure
// (see the package documentation). Close does not close client.
func NewOnCluster(client rueidis.Client, n int, opts Options) (*Client, error) {
	if n <= 0 {
		return nil, errors.New("redlock: a cluster lock needs at least one key")
	}
	c := &Client{opts: opts}
	c.opts.setDefaults()
	for i := range n {
		in := &instance{client: client, borrowed: true, prefix: "{" + slotTag((2*i+1)*resp.Slots/(2*n)) + "}"}
		in.ready.Store(&connected{client})
		c.instances = append(c.instances, in)
	}
	return c, nil
}

// slotTag returns the smallest decimal number whose hash slot is slot,
// for a hash tag that puts a key there. It is found in about 16,384
// tries (a few hundred microseconds), once per instance of a Client.
func slotTag(slot int) string {
	for j := 0; ; j++ {
		tag := strconv.Itoa(j)
		if int(resp.CRC16([]byte(tag))%resp.Slots) == slot {
			return tag
		}
	}
}
