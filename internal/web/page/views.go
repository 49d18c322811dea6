package page

import (
	"html/template"
	"net/url"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/store/filters"
	"github.com/retwis/retwis/internal/store/lists"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/store/tagfollows"
)

// View is the data of every page: the common fields first, then those
// of particular pages, left empty by the others.
type View struct {
	Title  string
	Viewer *retwis.User // nil when logged out
	Error  string       // what went wrong with the last form, if anything
	Notice string       // what the last form did, if it says so

	Username string // the name typed into a failed login or sign-up form
	Draft    string // the text of a post that could not be published
	// DraftWarning and DraftVisibility are that post's content warning and visibility.
	DraftWarning    string
	DraftVisibility retwis.Visibility
	// PostKey is the idempotency key of the compose form: new for every
	// form, so that only a resent form repeats it.
	PostKey string
	Page    retwis.Page
	Profile retwis.Profile // the profile page; on the home page, the viewer's counts
	Header  string         // the profile page: the path of the user's header picture ("": none)
	Post    retwis.Post
	Users   []string
	Newer   string // link to newer posts, if any
	Older   string // link to older posts, if any

	Unread        int64                 // the viewer's unread notifications
	Counted       bool                  // Unread was read with the page (else Render reads it)
	Thread        retwis.Thread         // the permalink page
	Tag           TagView               // the tag page
	FollowedTags  []tagfollows.Followed // the settings page of the tags followed
	Notifications []retwis.Notification // the notifications page
	Trends        []retwis.Trend        // the trending tags (timeline, tag search)
	ReplyDraft    string                // the text the reply form starts with
	Query         string                // what the tag search was asked for
	Tags          []string              // the tags it found
	List          FollowListView        // a follower or following list
	About         AboutForm             // the settings form
	People        []retwis.Person       // the people a search found, or the welcome page suggests
	Scope         string                // what a search looks for: "people", "tags" or both ("")
	Relationship  retwis.Relationship   // the profile page, for a logged-in visitor
	Suggestions   []retwis.Suggestion   // the home page's who to follow
	Explore       ExploreView           // the directory of accounts
	Next          string                // where the login form goes back to (the authorization page)
	Authorize     AuthorizeView         // the OAuth authorization page
	Tokens        TokensView            // the settings page of apps and tokens
	Sessions      SessionsView          // the settings page of sessions
	LoginFailures LoginFailures         // the home page: failed logins to the account since the last
	Blocks        BlocksView            // the settings page of blocks and mutes
	Lists         ListsView             // the Lists pages
	Filters       []filters.Filter      // the settings page of filters
	Admin         AdminView             // the moderators' page
	Moderator     bool                  // the viewer is a moderator (the settings page links to /admin)
	Reported      bool                  // a post or profile page just reported by the viewer
	Deletion      retwis.Deletion       // the page of a deleted account
	Versions      []retwis.Version      // the versions of an edited post, newest first
	Pictures      []PictureField        // the edit form of a post: its pictures' fields
	Conversations []ConversationView    // the Direct page
	Rules         []store.Rule          // the instance's rules, above the sign-up form

	Announcements []announcements.Announcement // the home page: the active ones not dismissed
	Scheduled     []scheduled.Post             // the viewer's scheduled posts
}

// LoginFailures are the failed logins to the viewer's account that the
// home page tells them of, once.
type LoginFailures struct {
	N    int
	Last time.Time
}

// AdminView is the moderators' page.
type AdminView struct {
	Reports        []retwis.Report
	Suspended      []retwis.User
	SuspendedCount int64
	Audit          []retwis.AuditEntry
}

// ConversationView is one conversation of the Direct page: its id, its
// newest post (a slice of one, of the page's posts, so that the post
// shows its author's display name), whom it is with, and whether it was
// unread.
type ConversationView struct {
	ID     int64
	Last   []retwis.Post
	With   []retwis.Summary
	Unread bool
}

// ExploreView is the explore page.
type ExploreView struct {
	Form    ExploreForm
	Asked   bool // a query was made
	Listing retwis.Listing
}

// ExploreForm is the directory's form, as typed.
type ExploreForm struct {
	Followers, Posts     string
	JoinedFrom, JoinedTo string
}

// Directory reads the form into a query.
func (f ExploreForm) Directory() (retwis.Directory, error) {
	var d retwis.Directory
	var err error
	if d.Followers, err = retwis.ParseRange(f.Followers); err != nil {
		return d, retwis.Errorf(retwis.Invalid, "Followers: %s", retwis.ErrorMessage(err))
	}
	if d.Posts, err = retwis.ParseRange(f.Posts); err != nil {
		return d, retwis.Errorf(retwis.Invalid, "Posts this week: %s", retwis.ErrorMessage(err))
	}
	if d.JoinedFrom, err = retwis.ParseDay(f.JoinedFrom, "Joined from"); err != nil {
		return d, err
	}
	if d.JoinedTo, err = retwis.ParseDay(f.JoinedTo, "Joined until"); err != nil {
		return d, err
	}
	return d, d.Validate()
}

// PictureField is a picture of a post on its edit form: the picture,
// its rank (from 1), and what its fields hold, its alt text and focal
// point ("x,y", retwis.ParseFocus).
type PictureField struct {
	retwis.Attachment
	N          int
	Alt, Focus string
}

// FollowListView is what a follow list page shows.
type FollowListView struct {
	Of    retwis.User // whose list
	Which string      // "followers" or "following"
	Page  retwis.FollowPage
}

// ListsView is what the Lists pages show: the viewer's lists, or one
// list with its members.
type ListsView struct {
	All     []lists.List
	List    lists.List
	Members []retwis.User
}

// AuthorizeView is what the OAuth authorization page shows: the app, the
// scopes it asks for, and the request's parameters, carried through the
// approval form.
type AuthorizeView struct {
	App    retwis.App
	Scopes retwis.Scopes
	Params url.Values // client_id, redirect_uri, scope, state, code_challenge, code_challenge_method
	Code   string     // the code to copy, for an app without a redirect
}

// TokensView is what the settings page of apps and tokens shows, and,
// of it, the list of tokens on the sessions page.
type TokensView struct {
	Tokens []retwis.Token
	// New is a personal token just made, shown this once.
	New string
	// Name is the name typed for a personal token that was refused.
	Name string
	// End is where each token's button posts (its page's route), Button
	// what it says.
	End, Button string
}

// BlocksView is the settings page of blocks and mutes.
type BlocksView struct {
	Blocked, Muted MuffleList
}

// MuffleList is a list of blocks or of mutes, with the action (a path
// under the profile) and the label of the button that undoes one.
type MuffleList struct {
	List          []retwis.ListedUser
	Action, Label string
}

// AboutForm is what the settings form shows: the display name and bio,
// the paths of the avatar and of the header picture ("": none uploaded),
// and what the viewer's pictures weigh, in words ("": not told).
type AboutForm struct {
	Name, Bio      string
	Avatar, Header string
	Space          string
}

// SessionsView is what the sessions page shows.
type SessionsView struct {
	Sessions []retwis.Session
	Current  string // the ID of this browser's session
	Tokens   TokensView
}

// TagView is what a tag page shows besides its posts.
type TagView struct {
	Name  string        // as first written
	Path  string        // of the page
	Chart template.HTML // the tag's posts by day, as inline SVG
	Day   time.Time     // the day shown (zero: all of them)
	// Following is whether the viewer follows the tag.
	Following bool
}
