// Package cards makes the previews of links in posts (Mastodon's
// preview cards): a Fetcher reads a page's OpenGraph, Twitter and oEmbed
// data and its picture through a client that reaches only public
// addresses (internal/safehttp) unless the operator allows others, with
// bounds on time, size and redirects; a Worker carries out the jobs of
// the queue of link previews (schema.CardQueue, which the delivery of a
// post with a link fills: JobCmd), keeps each URL's card in Redis for a
// day (schema.Card) and writes it on the post, if the post still
// exists.
package cards

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"time"

	"github.com/retwis/retwis"
)

// FetchOptions configure a Fetcher.
type FetchOptions struct {
	// Client makes the requests: safehttp.Client, which follows no
	// redirect (the Fetcher follows up to three, each checked).
	Client *http.Client
	// AllowPrivate lets URLs name any port (the client decides which
	// addresses it reaches); else only 80 and 443.
	AllowPrivate bool
	// Timeout bounds the fetch of a page, of its oEmbed document and of
	// its picture, each (5s when zero).
	Timeout time.Duration
	// StoreImage, if set, makes the card's picture out of the bytes
	// fetched (the media service processes and stores it); without it,
	// or if it fails, the card has none.
	StoreImage func(ctx context.Context, data []byte) (*retwis.Attachment, error)
}

// Fetcher makes the cards of links.
type Fetcher struct {
	opts FetchOptions
}

// NewFetcher returns a Fetcher configured by opts.
func NewFetcher(opts FetchOptions) *Fetcher {
	opts.Timeout = cmp.Or(opts.Timeout, defaultTimeout)
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	return &Fetcher{opts: opts}
}

// htmlTypes are the content types of the pages a Fetcher reads.
var htmlTypes = []string{"text/html", "application/xhtml+xml"}

// Fetch makes the card of the page at link: nil, without an error,
// for a page that has no title. An error is a failure to fetch it (a
// URL or address refused, a timeout, a status other than 200, a type
// other than HTML), which it is no use trying again soon.
func (f *Fetcher) Fetch(ctx context.Context, link string) (*retwis.Card, error) {
	final, body, err := f.get(ctx, link, maxPage, true, htmlTypes...)
	if err != nil {
		return nil, err
	}
	p := Parse(bytes.NewReader(body), final)
	c := &retwis.Card{URL: link, Title: p.Title, Description: p.Description, ProviderName: p.SiteName, AuthorName: p.Author}
	image := p.Image
	if p.OEmbed != "" {
		if o, at, err := f.oEmbed(ctx, p.OEmbed); err == nil {
			image = cmp.Or(image, o.apply(c, at))
		}
	}
	if c.Title == "" {
		return nil, nil
	}
	if image != "" && f.opts.StoreImage != nil {
		c.Image = f.image(ctx, image, p)
	}
	return c, nil
}

// image fetches the picture at link and has it stored: nil if either
// fails. The page's stated size stands in for sizes StoreImage leaves
// out.
func (f *Fetcher) image(ctx context.Context, link string, p Page) *retwis.Attachment {
	_, data, err := f.get(ctx, link, maxImage, false, "image/")
	if err != nil {
		return nil
	}
	a, err := f.opts.StoreImage(ctx, data)
	if err != nil || a == nil {
		return nil
	}
	if a.Width == 0 || a.Height == 0 {
		a.Width, a.Height = p.ImageWidth, p.ImageHeight
	}
	return a
}

// oEmbedDoc is the part of an oEmbed document (https://oembed.com) a
// card takes: never its "html", since retwis shows no embeds.
type oEmbedDoc struct {
	Type         string `json:"type"`
	Title        string `json:"title"`
	AuthorName   string `json:"author_name"`
	AuthorURL    string `json:"author_url"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	ThumbnailURL string `json:"thumbnail_url"`
}

// oEmbed fetches the oEmbed document at link, and returns it and
// where it was found.
func (f *Fetcher) oEmbed(ctx context.Context, link string) (oEmbedDoc, *url.URL, error) {
	var o oEmbedDoc
	at, body, err := f.get(ctx, link, maxPage, false, "application/json", "text/json", "text/javascript")
	if err != nil {
		return o, nil, err
	}
	return o, at, json.Unmarshal(body, &o)
}

// apply puts what o, found at base, says into c: its author and
// provider, its title where the page had none; and returns the
// absolute URL of o's thumbnail ("" if none).
func (o oEmbedDoc) apply(c *retwis.Card, base *url.URL) string {
	text := func(s string, max int) string { return Clean(html.UnescapeString(s), max) }
	link := func(s string) string { return Resolve(base, s) }
	c.Title = cmp.Or(c.Title, text(o.Title, MaxTitle))
	c.AuthorName = cmp.Or(text(o.AuthorName, maxField), c.AuthorName)
	c.AuthorURL = cmp.Or(link(o.AuthorURL), c.AuthorURL)
	c.ProviderName = cmp.Or(text(o.ProviderName, maxField), c.ProviderName)
	c.ProviderURL = cmp.Or(link(o.ProviderURL), c.ProviderURL)
	if o.Type == "photo" {
		c.Type = "photo"
	}
	return link(o.ThumbnailURL)
}
