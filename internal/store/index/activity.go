package index

import (
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// ActivityCmds are the writes that count, in the instance's activity,
// one act of user uid at time at: uid among the week's active users
// (its logins), and, unless field is "", one more of field
// (schema.FieldActivityStatuses or FieldActivityRegistrations) in the
// week's counts and the totals. All are in one slot; none is safe to
// repeat but the HyperLogLog's.
func ActivityCmds(c rueidis.Client, uid int64, at time.Time, field string) rueidis.Commands {
	b, week := c.B(), schema.Week(at)
	users := schema.ActivityUsers(week)
	cmds := rueidis.Commands{
		b.Pfadd().Key(users).Element(kernel.ID(uid)).Build(),
		b.Expire().Key(users).Seconds(int64(schema.ActivityUsersKept.Seconds())).Build(),
	}
	if field == "" {
		return cmds
	}
	counts := schema.ActivityWeek(week)
	return append(cmds,
		b.Hincrby().Key(counts).Field(field).Increment(1).Build(),
		b.Expire().Key(counts).Seconds(int64(schema.ActivityKept.Seconds())).Build(),
		b.Hincrby().Key(schema.ActivityTotal).Field(field).Increment(1).Build())
}
