package retwis

import (
	"slices"
	"strings"
	"time"
)

// MaxReasonLen bounds the reason of a report or of a moderator's action,
// in Unicode code points after normalisation.
const MaxReasonLen = 1000

// MaxReportedPosts bounds the posts one report names.
const MaxReportedPosts = 5

// NormalizeReason turns the reason of a report or of a moderation action
// as typed into the one stored, by the rules of display names, at most
// 1,000 code points. A report needs one (required); an action may go
// without.
func NormalizeReason(reason string, required bool) (string, error) {
	r, err := normalizeText(reason, MaxReasonLen, "Reasons")
	if err == nil && r == "" && required {
		err = Errorf(Invalid, "Please say what is wrong.")
	}
	return r, err
}

// NormalizeReport applies the rules of a report that need no data: it
// has a reason (NormalizeReason, required) and names at most
// MaxReportedPosts posts. It returns the reason to store and the posts
// in the order given, each once. The store checks the rest before it
// files the report: the account exists and is not the reporter's, and
// every post exists and is the account's.
func NormalizeReport(reason string, posts []int64) (string, []int64, error) {
	if len(posts) > MaxReportedPosts {
		return "", nil, Errorf(Invalid, "A report names at most %d posts.", MaxReportedPosts)
	}
	reason, err := NormalizeReason(reason, true)
	if err != nil {
		return "", nil, err
	}
	var once []int64
	for _, pid := range posts {
		if !slices.Contains(once, pid) {
			once = append(once, pid)
		}
	}
	return reason, once, nil
}

// Action is a moderation action, as the audit log records it.
type Action string

// The moderation actions.
const (
	Suspend         Action = "suspend"
	Unsuspend       Action = "unsuspend"
	GrantModerator  Action = "grant-moderator"
	RevokeModerator Action = "revoke-moderator"
	DeletePost      Action = "delete-post"
	CloseReport     Action = "close-report"
)

// Actor is who takes a moderation action: "@<username>" for a moderator
// on the admin page, "cli:<login>" for an operator at the command line.
type Actor string

// ModeratorActor is the Actor of moderator u.
func ModeratorActor(u User) Actor { return Actor("@" + u.Username) }

// OperatorActor is the Actor of the operator logged in as login on the
// machine that runs `retwis admin` ("someone" if unknown).
func OperatorActor(login string) Actor {
	login = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, login)
	if login == "" {
		login = "someone"
	}
	return Actor("cli:" + login)
}

// AuditEntry is one moderation action in the audit log: who did what to
// what, when, and why.
type AuditEntry struct {
	ID     string // the log's id of the entry
	At     time.Time
	Actor  Actor
	Action Action
	Target string // "@<username>", "post <id>" or "report <id>"
	Reason string // "" if none was given
}

// Report is a user's report of an account, or of some of its posts, to
// the moderators.
type Report struct {
	ID     string // the log's id of the report
	At     time.Time
	By     User    // the reporter
	User   User    // the account reported (the posts' author)
	Posts  []int64 // the posts reported, at most MaxReportedPosts; none: the account itself
	Reason string
}
