package apiwire

// The scopes the routes need (Need, May), as Mastodon's documentation
// names them; retwis.Scopes says which a token's scopes allow.
const (
	Read               = "read"
	Profile            = "profile"
	Push               = "push"
	ReadAccounts       = "read:accounts"
	ReadBlocks         = "read:blocks"
	ReadBookmarks      = "read:bookmarks"
	ReadFavourites     = "read:favourites"
	ReadFilters        = "read:filters"
	ReadFollows        = "read:follows"
	ReadLists          = "read:lists"
	ReadMutes          = "read:mutes"
	ReadNotifications  = "read:notifications"
	ReadSearch         = "read:search"
	ReadStatuses       = "read:statuses"
	WriteAccounts      = "write:accounts"
	WriteBlocks        = "write:blocks"
	WriteBookmarks     = "write:bookmarks"
	WriteConversations = "write:conversations"
	WriteFavourites    = "write:favourites"
	WriteFilters       = "write:filters"
	WriteFollows       = "write:follows"
	WriteLists         = "write:lists"
	WriteMedia         = "write:media"
	WriteMutes         = "write:mutes"
	WriteNotifications = "write:notifications"
	WriteReports       = "write:reports"
	WriteStatuses      = "write:statuses"
)
