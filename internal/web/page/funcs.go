package page

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/web/parts"
)

// scopeText says in words what a scope lets an app do.
func scopeText(scope string) string {
	switch kind, sub, _ := strings.Cut(scope, ":"); {
	case scope == "read":
		return "read your timelines, notifications, follows and profile"
	case scope == "write":
		return "post and delete posts, follow and unfollow, and change your profile, as you"
	case scope == "follow":
		return "see and change whom you follow"
	case scope == "profile":
		return "see your profile"
	case scope == "push":
		return "receive push notifications (this server sends none)"
	case kind == "read":
		return "read your " + sub
	default:
		return "change your " + sub
	}
}

// announcementHTML is an announcement atop the home page, with its Dismiss button.
func announcementHTML(a announcements.Announcement) template.HTML {
	return `<div class="announcement">` + parts.BodyHTML(retwis.Post{Body: a.Text}) + `<form method="post" action="/announcements/` +
		template.HTML(strconv.FormatInt(a.ID, 10)) + `/dismiss" class="inline"><button class="secondary">Dismiss</button></form></div>`
}

// attachmentRows are the rows of a compose form's pictures, one a
// picture a post may have (a file and its alt text each).
func attachmentRows() []int {
	rows := make([]int, retwis.MaxAttachments)
	for i := range rows {
		rows[i] = i + 1
	}
	return rows
}
