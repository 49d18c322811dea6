package schema

// Announcements is the hash of the instance's announcements, which the
// operator posts (retwis admin announce): announcement id -> JSON (text,
// starts and ends, published and updated), ids from NextAnnouncementID;
// AnnouncementReactions the counts of their reactions, "<id>:<emoji>" ->
// count. All three share one slot.
const (
	Announcements         = "instance:{announcements}"
	NextAnnouncementID    = "instance:{announcements}:next_id"
	AnnouncementReactions = "instance:{announcements}:reactions"
)

// AnnouncementsRead is the set of the ids of the announcements user uid
// dismissed.
func AnnouncementsRead(uid int64) string { return "announcements_read:" + tag(uid) }

// AnnouncementsReacted is the set of user uid's reactions to
// announcements: members "<announcement id>:<emoji>".
func AnnouncementsReacted(uid int64) string { return "announcements_reacted:" + tag(uid) }
