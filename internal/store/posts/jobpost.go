package posts

import (
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/schema"
)

// JobFields are the post hash fields a delivery job reads, in the order
// parseJobPost expects: the boost's and the visibility's last, so that
// the values an account's deletion kept before there were those still
// parse.
var JobFields = append(append([]string{schema.FieldUserID, schema.FieldFanout, schema.FieldTime}, index.ConversationFields...),
	schema.FieldReblogOf, schema.FieldVisibility)

// ParseJobPost decodes the reply to HMGET post:<pid> jobFields: what the
// post's indexes need, and its fanout flag. ok is false for a post that
// is gone.
func ParseJobPost(pid int64, r rueidis.RedisResult) (p index.Post, fanout string, ok bool, err error) {
	vals, err := r.ToArray()
	if err != nil {
		return p, "", false, err
	}
	p, fanout, ok = ParseJobFields(pid, AsStrings(vals))
	return p, fanout, ok, nil
}

// AsStrings returns the values of vals as strings ("" for nil).
func AsStrings(vals []rueidis.RedisMessage) []string {
	str := make([]string, len(vals))
	for i, v := range vals {
		str[i], _ = v.ToString()
	}
	return str
}

// ParseJobFields decodes the values of jobFields of post pid (see
// parseJobPost).
func ParseJobFields(pid int64, str []string) (p index.Post, fanout string, ok bool) {
	p.ID = pid
	var err error
	conv := 3 + len(index.ConversationFields)
	if len(str) < conv { // the boost's and the visibility may be missing (see JobFields)
		return p, "", false
	}
	if p.Author, err = strconv.ParseInt(str[0], 10, 64); err != nil {
		return p, "", false // gone (or damaged: nothing to deliver)
	}
	p.Time, _ = strconv.ParseInt(str[2], 10, 64)
	p.Conv = index.ParseConversation(str[3:conv])
	if len(str) > conv {
		p.ReblogOf, _ = strconv.ParseInt(str[conv], 10, 64)
	}
	if len(str) >= len(JobFields) {
		p.Visibility = index.VisibilityOf(str[len(JobFields)-1])
	}
	return p, str[1], true
}

// UndoJobs return the delivery jobs that finish the deletion of post p
// (not fanned out if fanout is "0"; boosted by some), on shard q: a
// boost's JobUnboost takes it off the timelines and out of its post's
// count; a post's JobUndeliver (if it was fanned out) takes it off the
// timelines, and its JobUnboosts (if it was boosted) deletes its boosts.
func (s *Store) UndoJobs(q schema.Queue, p index.Post, fanout string, boosted bool) rueidis.Commands {
	if p.ReblogOf > 0 {
		return rueidis.Commands{schema.BoostJob(s.C.B(), q, schema.JobUnboost, p.ID, p.Author, p.ReblogOf)}
	}
	var cmds rueidis.Commands
	if boosted {
		cmds = append(cmds, s.JobCmd(q, schema.JobUnboosts, p.ID, p.Author))
	}
	if fanout != "0" && p.Visibility.ToFollowers() { // a direct post's few timelines are DeletedCmds'
		cmds = append(cmds, s.JobCmd(q, schema.JobUndeliver, p.ID, p.Author))
	}
	return cmds
}
