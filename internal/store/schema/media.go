package schema

import (
	"strconv"
	"strings"
)

// Media is the hash of user uid's media (their uploads, attached or not,
// and their avatar and header): media id -> JSON record (the attachment,
// its state, what it is for, when it was made, the post it is attached
// to), and MediaBytesField -> what the files of the ready ones weigh
// together, counted against the user's quota in the same transaction as
// the record.
func Media(uid int64) string { return "media:" + tag(uid) }

// MediaBytesField is the field of Media that counts bytes; every other
// field is a media id.
const MediaBytesField = "bytes"

// MediaKeys is the SCAN pattern of the users' media hashes; MediaOf
// returns the user of one.
const MediaKeys = "media:{*}"

// MediaOf returns the user whose media key holds.
func MediaOf(key string) (int64, bool) { return ownerOf("media:", key) }

// MediaPending is the sorted set of the media that upkeep looks at: a
// member "<owner>:<media id>" for each upload (scored by when it is due
// to be removed if still unattached) and each attachment let go of (a
// deleted post's, a replaced avatar: scored by when it was let go).
const MediaPending = "media_pending"

// PendingMember is the member of MediaPending for media mid of owner.
func PendingMember(owner, mid int64) string { return id(owner) + ":" + id(mid) }

// ParsePendingMember reads a member of MediaPending.
func ParsePendingMember(m string) (owner, mid int64, ok bool) {
	o, n, cut := strings.Cut(m, ":")
	owner, err1 := strconv.ParseInt(o, 10, 64)
	mid, err2 := strconv.ParseInt(n, 10, 64)
	return owner, mid, cut && err1 == nil && err2 == nil
}

// NextMediaID is the counter of media ids when the store has no id
// generator.
const NextMediaID = "next_media_id"

// The fields of media in the post hash and the user hash.
const (
	// FieldMedia of a post hash: its attachments (retwis.EncodeAttachments).
	FieldMedia = "media"
	// FieldSensitive of a post hash: "1" when its media are hidden
	// behind its warning.
	FieldSensitive = "sensitive"
	// FieldCard of a post hash: the preview of its link
	// (retwis.EncodeCard), written by the card worker.
	FieldCard = "card"
	// FieldAvatar and FieldHeader of a user hash: the pictures they
	// uploaded (retwis.EncodeAttachments of one).
	FieldAvatar = "avatar"
	FieldHeader = "header"
)

// UploadLimit is the subject of the rate limit of uid's uploads.
func UploadLimit(uid int64) string { return "upload:" + id(uid) }
