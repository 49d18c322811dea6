package resp

import "bytes"

// Slots is the number of hash slots of a Redis Cluster.
const Slots = 16384

// crcTable is CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0,
// no reflection), the checksum Redis Cluster hashes keys with, one byte
// at a time: entry i is the checksum of the one byte i.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crcTable2 is crcTable advanced by a zero byte: entry i is the checksum
// of byte i followed by a zero byte. The checksum is linear, so a step of
// two bytes (16 bits XORed into the register) is the sum of those of its
// high byte followed by a zero byte and of its low byte alone: two
// lookups independent of each other, where a byte at a time chains them.
var crcTable2 = func() (t [256]uint16) {
	for i, c := range crcTable {
		t[i] = c<<8 ^ crcTable[byte(c>>8)]
	}
	return t
}()

// CRC16 returns the CRC16-XMODEM checksum of b.
func CRC16(b []byte) uint16 {
	var c uint16
	for len(b) >= 2 {
		v := c ^ (uint16(b[0])<<8 | uint16(b[1]))
		c = crcTable2[v>>8] ^ crcTable[byte(v)]
		b = b[2:]
	}
	if len(b) == 1 {
		c = c<<8 ^ crcTable[byte(c>>8)^b[0]]
	}
	return c
}

// HashTag returns the part of key that Redis Cluster hashes: the bytes
// between the first '{' and the first '}' after it when there are some,
// else the whole key. So "{user1000}.following" and "{user1000}.followers"
// share a slot, "foo{}{bar}" hashes whole, "foo{{bar}}zap" hashes "{bar".
func HashTag(key []byte) []byte {
	open := bytes.IndexByte(key, '{')
	if open < 0 {
		return key
	}
	end := bytes.IndexByte(key[open+1:], '}')
	if end <= 0 {
		return key
	}
	return key[open+1 : open+1+end]
}

// Slot returns the hash slot of key in a Redis Cluster. The short keys of
// a bulk load are looked at for a '{' by a plain loop, cheaper for them
// than the call of HashTag's vectorised search.
func Slot(key []byte) int {
	for _, c := range key {
		if c == '{' {
			key = HashTag(key)
			break
		}
	}
	return int(CRC16(key) % Slots)
}
