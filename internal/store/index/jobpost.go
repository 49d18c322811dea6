package index

import (
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"

	"github.com/retwis/retwis/internal/store/schema"
)

// JobFields are the post hash fields a delivery job reads, in the order
// parseJobPost expects: the boost's, the visibility and the media last,
// so that the values an account's deletion kept before there were those
// still parse.
var JobFields = append(append([]string{schema.FieldUserID, schema.FieldFanout, schema.FieldTime}, ConversationFields...),
	schema.FieldReblogOf, schema.FieldVisibility, schema.FieldMedia)

// ParseJobPost decodes the reply to HMGET post:<pid> jobFields: what the
// post's indexes need, and its fanout flag. ok is false for a post that
// is gone.
func ParseJobPost(pid int64, r rueidis.RedisResult) (p Post, fanout string, ok bool, err error) {
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
func ParseJobFields(pid int64, str []string) (p Post, fanout string, ok bool) {
	p.ID = pid
	var err error
	conv := 3 + len(ConversationFields)
	if len(str) < conv { // the boost's and the visibility may be missing (see JobFields)
		return p, "", false
	}
	if p.Author, err = strconv.ParseInt(str[0], 10, 64); err != nil {
		return p, "", false // gone (or damaged: nothing to deliver)
	}
	p.Time, _ = strconv.ParseInt(str[2], 10, 64)
	p.Conv = ParseConversation(str[3:conv])
	if len(str) > conv {
		p.ReblogOf, _ = strconv.ParseInt(str[conv], 10, 64)
	}
	if len(str) > conv+1 {
		p.Visibility = VisibilityOf(str[conv+1])
	}
	if len(str) > conv+2 {
		for _, a := range retwis.DecodeAttachments(str[conv+2]) {
			p.Media = append(p.Media, a.ID)
		}
	}
	return p, str[1], true
}
