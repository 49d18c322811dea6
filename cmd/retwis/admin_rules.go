package main

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/retwis/retwis/internal/store"
)

// ruleOperand names what `retwis admin rules` takes after list, add or
// remove.
func ruleOperand(arg string) string {
	switch arg {
	case "add":
		return "TEXT"
	case "remove":
		return "ID"
	}
	return ""
}

// adminRules lists, adds or removes the instance's rules, which the
// sign-up page and the client API show.
func adminRules(ctx context.Context, st *store.Store, a adminRun) error {
	switch a.arg {
	case "list":
		return printRules(ctx, st, a)
	case "add":
		r, err := st.AddRule(ctx, a.more, a.cfg.hint)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "added rule %d: %s\n", r.ID, r.Text)
		return err
	case "remove":
		id, err := strconv.ParseInt(a.more, 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("%q is not a rule id", a.more)
		}
		if err := st.RemoveRule(ctx, id); err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "removed rule %d\n", id)
		return err
	}
	return fmt.Errorf("rules: %q is not list, add or remove", a.arg)
}

// printRules writes the rules as a table.
func printRules(ctx context.Context, st *store.Store, a adminRun) error {
	rules, err := st.Rules(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRULE\tHINT")
	for _, r := range rules {
		fmt.Fprintf(tw, "%d\t%s\t%s\n", r.ID, r.Text, r.Hint)
	}
	return tw.Flush()
}
