package index

import (
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/schema"
)

// MarkerCmds returns what saving uid's position in timeline
// (schema.MarkerHome or schema.MarkerNotifications) writes: the id last
// read, one version more, and at (unix ms), in schema.Markers; for the
// notifications, whose ids are the unix ms of the notification times
// 1000 plus a little, also the user hash's schema.FieldNotified, the
// pages' read marker, so that the API's marker and the pages' are one.
func MarkerCmds(c rueidis.Client, uid int64, timeline string, id, at int64) rueidis.Commands {
	b := c.B()
	idField, version, atField := schema.MarkerFields(timeline)
	cmds := rueidis.Commands{
		b.Hset().Key(schema.Markers(uid)).FieldValue().FieldValue(idField, strconv.FormatInt(id, 10)).
			FieldValue(atField, strconv.FormatInt(at, 10)).Build(),
		b.Hincrby().Key(schema.Markers(uid)).Field(version).Increment(1).Build(),
	}
	if timeline == schema.MarkerNotifications {
		cmds = append(cmds, b.Hset().Key(schema.User(uid)).FieldValue().FieldValue(schema.FieldNotified, strconv.FormatInt(id/1000, 10)).Build())
	}
	return cmds
}
