package dataset

import "github.com/retwis/retwis"

// converse fills in what p's body says of its conversations, as the
// server does when a post is published: its tags, and the users it
// mentions that exist (named gives the user called a name, ignoring
// case, as registered).
func converse(p *Post, named func(name string) (User, bool)) {
	var names []string
	p.Tags, names = retwis.TagsAndMentions(p.Body)
	for _, name := range names {
		if u, ok := named(name); ok {
			p.Mentions = append(p.Mentions, User{ID: u.ID, Name: u.Name})
		}
	}
}
