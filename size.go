package retwis

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the units ParseSize reads, of 1,024.
var sizeUnits = []struct {
	name string
	n    int64
}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}}

// ParseSize reads a number of bytes written with a unit ("500MB",
// "1.5 GB"; B, KB, MB, GB and TB, of 1,024, in any case) or without one
// (bytes), as operators write a quota.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	num, unit := t, int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.name); ok {
			num, unit = strings.TrimSpace(rest), u.n
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || v*float64(unit) >= 1<<62 || strings.ContainsAny(num, "eEnNiI") {
		return 0, fmt.Errorf("%q is not a size (500MB, 1GB, or bytes)", s)
	}
	return int64(v * float64(unit)), nil
}

// FormatSize writes n as ParseSize reads it, in the largest unit that
// divides it ("1GB", "1536KB", "7").
func FormatSize(n int64) string {
	for _, u := range sizeUnits[:4] {
		if n != 0 && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}
