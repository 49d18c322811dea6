// Package words holds what the pages say in words about numbers, times
// and clients: plurals, "3 minutes ago", "Firefox on Linux".
package words

import (
	"fmt"
	"strings"
	"time"
)

// Plural returns one when n is 1 and many otherwise.
func Plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// agoUnits are the units since counts in, the largest first.
var agoUnits = []struct {
	d    time.Duration
	name string
}{
	{365 * 24 * time.Hour, "year"}, {30 * 24 * time.Hour, "month"}, {7 * 24 * time.Hour, "week"},
	{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"},
}

// agoTexts holds, for each of agoUnits, the words of 1 to 59 of it
// ("3 minutes ago"), made once: a page of 50 posts says 50 of them (Since).
var agoTexts = func() [][]string {
	texts := make([][]string, len(agoUnits))
	for i, u := range agoUnits {
		texts[i] = make([]string, 60)
		for n := 2; n < 60; n++ {
			texts[i][n] = fmt.Sprintf("%d %ss ago", n, u.name)
		}
		texts[i][1] = "1 " + u.name + " ago"
	}
	return texts
}()

// Since says how long ago something was, d ago, in words: "3 minutes
// ago".
func Since(d time.Duration) string {
	if d < 5*time.Second {
		return "just now"
	}
	for i, u := range agoUnits {
		if n := int64(d / u.d); n >= 1 {
			if n < 60 {
				return agoTexts[i][n]
			}
			return fmt.Sprintf("%d %ss ago", n, u.name)
		}
	}
	return "just now"
}

// namedBy pairs what a User-Agent holds with what it names.
type namedBy struct{ token, name string }

// browsers and systems are what a User-Agent is searched for, in order:
// the first found names it (Edge and Opera say Chrome too, Chrome on
// iOS says Safari).
var (
	browsers = []namedBy{{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"CriOS/", "Chrome"}, {"FxiOS/", "Firefox"},
		{"Firefox/", "Firefox"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"}}
	systems = []namedBy{{"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"Android", "Android"}, {"CrOS", "ChromeOS"},
		{"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Linux", "Linux"}}
)

// firstNamed returns the name of the first of list that ua holds, or "".
func firstNamed(list []namedBy, ua string) string {
	for _, n := range list {
		if strings.Contains(ua, n.token) {
			return n.name
		}
	}
	return ""
}

// DeviceName says shortly what a User-Agent is, for the list of
// sessions: "Firefox on Linux"; for a client that is no known browser,
// its first product token ("curl/8.5.0"), which the store cuts short.
func DeviceName(ua string) string {
	browser, system := firstNamed(browsers, ua), firstNamed(systems, ua)
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	case system != "":
		return "A browser on " + system
	}
	product, _, _ := strings.Cut(ua, " ")
	return product
}
