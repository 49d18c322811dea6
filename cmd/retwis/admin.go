package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	osuser "os/user"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
)

// adminConfig is the configuration of `retwis admin`.
type adminConfig struct {
	redisURL string
	reason   string
	hint     string
	limit    int
	// startsAt and endsAt bound an announcement (RFC 3339), remove is the
	// announcement to remove.
	startsAt, endsAt string
	remove           int64
}

func (c *adminConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.redisURL, "redis", "", envHelp("the database's Redis `URL`", "REDIS_URL"))
	fs.StringVar(&c.reason, "reason", "", "why, for the audit log (`text`, up to 1,000 characters)")
	fs.IntVar(&c.limit, "limit", 50, "audit: show the newest this many `entries`")
	fs.StringVar(&c.hint, "hint", "", "rules add: more about the rule (`text`, up to 2,000 characters)")
	fs.StringVar(&c.startsAt, "starts-at", "", "announce: show it from this `time` (RFC 3339, e.g. 2026-12-01T09:00:00Z; default now)")
	fs.StringVar(&c.endsAt, "ends-at", "", "announce: show it until this `time` (RFC 3339; default until removed)")
	fs.Int64Var(&c.remove, "remove", 0, "announce: remove the announcement of this `id` instead")
}

// adminAction is one action of `retwis admin`: what it takes, and what
// it does with the store. operand, if not nil, names what else the
// action takes after its argument arg (nothing: "").
type adminAction struct {
	name, arg, summary string
	run                func(ctx context.Context, st *store.Store, a adminRun) error
	operand            func(arg string) string
}

// adminRun is what one run of an action has to work with.
type adminRun struct {
	cfg    adminConfig
	by     retwis.Actor
	arg    string
	more   string // the operand, if the action takes one
	stdout io.Writer
}

var adminActions = []adminAction{
	{"suspend", "USER", "hide the account's posts everywhere, end its sessions and tokens, refuse its logins", adminOnUser(suspendUser), nil},
	{"unsuspend", "USER", "lift a suspension", adminOnUser(unsuspendUser), nil},
	{"grant-moderator", "USER", "let the user moderate on /admin", adminOnUser(grantModerator), nil},
	{"revoke-moderator", "USER", "take the moderator role back", adminOnUser(revokeModerator), nil},
	{"delete-post", "ID", "delete a post, whoever wrote it", deletePostAsAdmin, nil},
	{"audit", "", "list the newest moderation actions (--limit)", printAudit, nil},
	{"rules", "list|add|remove", "the instance's rules: list them, add one (add TEXT [--hint TEXT]), remove one (remove ID)", adminRules, ruleOperand},
	{"announce", "[TEXT]", "post an announcement to every user ([--starts-at TIME] [--ends-at TIME]), or remove one (--remove ID)", adminAnnounce, nil},
	{"announcements", "", "list the announcements, active or not", printAnnouncements, nil},
}

// runAdmin takes an operator's moderation action on the database:
// `retwis admin [flags] ACTION [USER|ID] [flags]`. Each action on an
// account or a post is recorded in the audit log as taken by
// cli:<the operator's login>; the rules are not.
func runAdmin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg adminConfig
	fs := newFlagSet("admin", stderr)
	cfg.register(fs)
	fs.Usage = func() { adminUsage(fs) }
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError(fs, "an action is needed")
	}
	i := -1
	for k, a := range adminActions {
		if a.name == fs.Arg(0) {
			i = k
		}
	}
	if i < 0 {
		return usageError(fs, "unknown action %q", fs.Arg(0))
	}
	action, rest := adminActions[i], fs.Args()[1:]
	var arg string
	if action.arg != "" {
		switch {
		case len(rest) > 0 && !strings.HasPrefix(rest[0], "-"):
			arg, rest = rest[0], rest[1:]
		case !strings.HasPrefix(action.arg, "["): // not optional
			return usageError(fs, "%s needs a %s", action.name, action.arg)
		}
	}
	more, rest, err := adminOperand(fs, action, arg, rest)
	if err != nil {
		return err
	}
	if err := parseFlags(fs, rest); err != nil { // flags may follow the action too
		return err
	}
	switch {
	case cfg.redisURL == "":
		return usageError(fs, "--redis is needed")
	case cfg.limit < 1 || cfg.limit > 10000:
		return usageError(fs, "--limit must be 1 to 10000")
	}
	st, err := openStore(cfg.redisURL, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	return action.run(ctx, st, adminRun{cfg: cfg, by: retwis.OperatorActor(operatorLogin()), arg: arg, more: more, stdout: stdout})
}

// adminOperand takes from rest the operand that action needs after its
// argument arg, if any, and returns it with what follows.
func adminOperand(fs *flag.FlagSet, action adminAction, arg string, rest []string) (string, []string, error) {
	if action.operand == nil || action.operand(arg) == "" {
		return "", rest, nil
	}
	if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
		return "", nil, usageError(fs, "%s %s needs a %s", action.name, arg, action.operand(arg))
	}
	return rest[0], rest[1:], nil
}

func adminUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprintf(w, "Usage: retwis admin [--redis URL] ACTION [USER|ID] [--reason TEXT]\n\nActions:\n")
	for _, a := range adminActions {
		fmt.Fprintf(w, "  %-16s %-5s %s\n", a.name, a.arg, a.summary)
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs.PrintDefaults()
}

// operatorLogin is the login of whoever runs the command: the user sudo
// was run by, or else the process's user.
func operatorLogin() string {
	if login := os.Getenv("SUDO_USER"); login != "" {
		return login
	}
	if u, err := osuser.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}

// adminOnUser makes an action on the user its argument names (a
// username, with or without @).
func adminOnUser(act func(ctx context.Context, st *store.Store, a adminRun, u retwis.User) error) func(context.Context, *store.Store, adminRun) error {
	return func(ctx context.Context, st *store.Store, a adminRun) error {
		u, err := st.UserByName(ctx, strings.TrimPrefix(a.arg, "@"))
		if err != nil {
			return err
		}
		return act(ctx, st, a, u)
	}
}

func suspendUser(ctx context.Context, st *store.Store, a adminRun, u retwis.User) error {
	if err := st.Suspend(ctx, a.by, u.ID, a.cfg.reason); err != nil {
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "suspended @%s (user %d): its posts are hidden, its sessions and tokens ended\n", u.Username, u.ID)
	return err
}

func unsuspendUser(ctx context.Context, st *store.Store, a adminRun, u retwis.User) error {
	if err := st.Unsuspend(ctx, a.by, u.ID, a.cfg.reason); err != nil {
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "@%s (user %d) is no longer suspended\n", u.Username, u.ID)
	return err
}

func grantModerator(ctx context.Context, st *store.Store, a adminRun, u retwis.User) error {
	if err := st.SetModerator(ctx, a.by, u.ID, true); err != nil {
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "@%s (user %d) is a moderator: /admin is open to them\n", u.Username, u.ID)
	return err
}

func revokeModerator(ctx context.Context, st *store.Store, a adminRun, u retwis.User) error {
	if err := st.SetModerator(ctx, a.by, u.ID, false); err != nil {
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "@%s (user %d) is no longer a moderator\n", u.Username, u.ID)
	return err
}

func deletePostAsAdmin(ctx context.Context, st *store.Store, a adminRun) error {
	pid, err := strconv.ParseInt(a.arg, 10, 64)
	if err != nil || pid <= 0 {
		return fmt.Errorf("%q is not a post id", a.arg)
	}
	if err := st.RemovePost(ctx, a.by, pid, a.cfg.reason); err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "deleted post %d\n", pid)
	return err
}

// printAudit writes the newest entries of the audit log as a table.
func printAudit(ctx context.Context, st *store.Store, a adminRun) error {
	entries, err := st.AuditLog(ctx, a.cfg.limit)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME (UTC)\tBY\tACTION\tTARGET\tREASON")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format(time.DateTime), e.Actor, e.Action, e.Target, e.Reason)
	}
	return tw.Flush()
}
