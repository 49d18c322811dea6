package entity

import "github.com/retwis/retwis"

// PreviewCard is Mastodon's PreviewCard: the preview of a status's link.
// HTML and EmbedURL are always empty (retwis shows no embeds); Width,
// Height and Blurhash are those of its image.
type PreviewCard struct {
	URL          string  `json:"url"`
	Title        string  `json:"title"`
	Description  string  `json:"description"`
	Type         string  `json:"type"`
	AuthorName   string  `json:"author_name"`
	AuthorURL    string  `json:"author_url"`
	ProviderName string  `json:"provider_name"`
	ProviderURL  string  `json:"provider_url"`
	HTML         string  `json:"html"`
	Width        int     `json:"width"`
	Height       int     `json:"height"`
	Image        *string `json:"image"`
	EmbedURL     string  `json:"embed_url"`
	Blurhash     *string `json:"blurhash"`
}

// Card returns the entity of card c, nil for none: its image as an
// absolute URL, the small copy when there is one.
func (st Site) Card(c *retwis.Card) *PreviewCard {
	if c == nil {
		return nil
	}
	pc := &PreviewCard{URL: c.URL, Title: c.Title, Description: c.Description, Type: c.Type,
		AuthorName: c.AuthorName, AuthorURL: c.AuthorURL, ProviderName: c.ProviderName, ProviderURL: c.ProviderURL}
	if pc.Type == "" {
		pc.Type = "link"
	}
	if a := c.Image; a != nil && a.Ready() {
		image := st.origin + a.Path()
		pc.Width, pc.Height = a.Width, a.Height
		if a.SmallExt != "" {
			image, pc.Width, pc.Height = st.origin+a.SmallPath(), a.SmallWidth, a.SmallHeight
		}
		pc.Image = &image
		if a.Blurhash != "" {
			pc.Blurhash = &a.Blurhash
		}
	}
	return pc
}
