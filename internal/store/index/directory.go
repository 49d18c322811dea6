package index

import (
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/zorder"
)

// The dimensions of the directory (schema.Explore), in the order of the
// curve: follower count, posts in the last seven days, day of sign-up
// (days since 1970). Their bits add up to the 53 of a score: counts
// above 1,048,575 followers or 65,535 posts a week are indexed as those.
const (
	DimFollowers = iota
	DimPosts
	DimJoined
)

// Directory is the curve of the directory's codes.
var Directory = zorder.New(20, 16, 17)

// LegacyPostsCounted is how many posts with ids not made by a server
// (bulk-written or migrated, whose ids tell no time) the count of a
// user's recent posts reads the times of, newest first.
const LegacyPostsCounted = 100

// Code returns the score of a user's entry in the directory: its point
// on the curve for followers, posts (those of the last seven days) and
// the day of joined.
func Code(followers, posts int64, joined time.Time) uint64 {
	return Directory.Encode(uint64(followers), uint64(posts), uint64(max(joined.Unix(), 0)/86400))
}

// EntryWrite is the plain command that makes user uid's entry in the
// directory the one of code: gone if the user is (exists false). The
// online store and the bulk writer both write it.
func EntryWrite(uid int64, exists bool, code uint64) []string {
	if !exists {
		return []string{"ZREM", schema.Explore, kernel.ID(uid)}
	}
	return []string{"ZADD", schema.Explore, strconv.FormatUint(code, 10), kernel.ID(uid)}
}

// ActivityWrite is the plain command that makes user uid's place among
// the users by activity (schema.UsersByActivity) the id of their newest
// post, newest (ids grow with time: the tutorial's counted ones, then
// snowflakes, all above them): gone if the user is, or has no post
// (newest 0).
func ActivityWrite(uid int64, exists bool, newest int64) []string {
	if !exists || newest <= 0 {
		return []string{"ZREM", schema.UsersByActivity, kernel.ID(uid)}
	}
	return []string{"ZADD", schema.UsersByActivity, kernel.ID(newest), kernel.ID(uid)}
}

// ActiveCmd returns the command that moves p's author up among the users
// by activity to p, unless a newer post put them higher: what a post's
// delivery writes, ahead of maintenance's refresh of the author's entry
// (ActivityWrite).
func ActiveCmd(c rueidis.Client, p Post) rueidis.Completed {
	return c.B().Zadd().Key(schema.UsersByActivity).Gt().ScoreMember().ScoreMember(float64(p.ID), kernel.ID(p.Author)).Build()
}
