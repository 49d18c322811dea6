package index

import (
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// FavouriteSyncCmd returns the kernel.MarkSync call that brings who
// favourited post pid, and its count, in line with user uid's
// favourite, made at unix ms at (0: uid has none), in the post's slot.
// It is safe to repeat, and to run in any order with uid's other
// favourites of the post: it copies the truth, uid's mark.
func FavouriteSyncCmd(c rueidis.Client, pid, uid, at int64) rueidis.Completed {
	return kernel.MarkSyncCmd(c, schema.FavouritedBy(pid), schema.Counts(pid), uid, at, schema.FieldFavourites)
}

// FavouriteNoteCmd returns the kernel.NotifyOnce call that tells author
// that actor favourited post pid, at unix ms at: once, however often
// actor takes it back and favourites it again (while the notification
// is kept), and never if author blocked or muted actor.
func FavouriteNoteCmd(c rueidis.Client, author, actor, pid, at int64) rueidis.Completed {
	return kernel.NotifyOnce.Cmd(c, []string{schema.Notifications(author), schema.Blocks(author), schema.Mutes(author)},
		kernel.ID(actor), strconv.FormatInt(at, 10), schema.Note(schema.NoteFavourite, actor, pid), strconv.Itoa(schema.NotificationsCap))
}

// NoteEventCmd returns the command that tells uid's live stream of the
// notification note made at unix ms at.
func NoteEventCmd(c rueidis.Client, uid int64, note string, at int64) rueidis.Completed {
	return PublishCmd(c, schema.UserStream(uid), schema.NoteEvent(at, note))
}

// CountsDelCmds return the commands that drop what post pid's
// interactions wrote on the post's side (its counts, who favourited
// it), once the post is gone.
func CountsDelCmds(c rueidis.Client, pid int64) rueidis.Commands {
	b := c.B()
	return rueidis.Commands{b.Del().Key(schema.Counts(pid)).Build(), b.Del().Key(schema.FavouritedBy(pid)).Build()}
}

// FavouriteWrites are the plain commands of user uid's favourite of
// post pid, by author, made at unix ms at, for a writer that writes each
// favourite once (the bulk writer): what the favourite and its job
// write online (kernel.MarkAdd, FavouriteSyncCmd, FavouriteNoteCmd):
// uid's mark, uid among who favourited the post and counted, and the
// author's notification.
func FavouriteWrites(uid, pid, author, at int64) [][]string {
	ms := strconv.FormatInt(at, 10)
	cmds := [][]string{
		{"ZADD", schema.Favourites(uid), ms, kernel.ID(pid)},
		{"ZADD", schema.FavouritedBy(pid), ms, kernel.ID(uid)},
		{"HINCRBY", schema.Counts(pid), schema.FieldFavourites, "1"},
	}
	if author == uid {
		return cmds
	}
	return append(cmds, NotifyWrites(author, schema.Note(schema.NoteFavourite, uid, pid), at)...)
}
