package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Report files by's report of the account uid and of up to
// retwis.MaxReportedPosts of its posts (pids; with uid 0 the account is
// their author), with reason, for the moderators: one entry of the
// reports log, written by one command. It is checked whole before
// anything is written: the rules of retwis.NormalizeReport, then that
// the account exists and is not by's, and that every post exists, is
// seen by by and is the account's; a refused report writes nothing. It
// counts once against Limits.Reports however many posts it names. The
// reports log keeps about schema.ReportsKept open reports.
func (s *Store) Report(ctx context.Context, by, uid int64, pids []int64, reason string) (retwis.Report, error) {
	reason, pids, err := retwis.NormalizeReport(reason, pids)
	if err != nil {
		return retwis.Report{}, err
	}
	r := retwis.Report{Posts: pids, Reason: reason}
	if r.By, r.User, err = s.reported(ctx, by, uid, pids); err != nil {
		return retwis.Report{}, err
	}
	if _, err := s.Take(ctx, accounts.Subject(schema.ReportLimit(by)), s.Opts.Limits.Reports); err != nil {
		return retwis.Report{}, err
	}
	if r.ID, err = s.C.Do(ctx, s.fileReport(r)).ToString(); err != nil {
		return retwis.Report{}, s.Wrap("report", err)
	}
	r.At = streamTime(r.ID)
	return r, nil
}

// reported returns the reporter by and the account a report is of, uid
// or, if 0, the author of the posts pids, once it has checked that the
// account exists and is not by's and that each post is the account's
// and seen by by.
func (s *Store) reported(ctx context.Context, by, uid int64, pids []int64) (reporter, account retwis.User, err error) {
	if uid, err = s.reportedPosts(ctx, by, uid, pids); err != nil {
		return reporter, account, err
	}
	users, err := s.namedUsers(ctx, []int64{by, uid})
	switch {
	case err != nil:
		return reporter, account, err
	case by == uid:
		return reporter, account, retwis.Errorf(retwis.Invalid, "You cannot report yourself.")
	case len(users) < 2:
		return reporter, account, retwis.Errorf(retwis.NotFound, "There is no such account.")
	}
	return users[0], users[1], nil
}

// reportedPosts reads the posts pids as by sees them, in one call, and
// returns their author, which must be uid (if not 0) and the same for
// all; uid as it is without posts.
func (s *Store) reportedPosts(ctx context.Context, by, uid int64, pids []int64) (int64, error) {
	seen, err := s.PostsSeen(ctx, by, pids)
	for _, p := range seen {
		switch {
		case uid == 0:
			uid = p.AuthorID
		case p.AuthorID != uid:
			return 0, retwis.Errorf(retwis.Invalid, "Post %d is not a post of the account reported.", p.ID)
		}
	}
	if err != nil {
		return 0, err
	}
	return uid, nil
}

// fileReport is the command that adds report r to the log: one entry,
// its posts' ids in one field, comma-separated.
func (s *Store) fileReport(r retwis.Report) rueidis.Completed {
	cmd := s.C.B().Xadd().Key(schema.Reports).Maxlen().Almost().Threshold(strconv.Itoa(schema.ReportsKept)).Id("*").
		FieldValue().FieldValue(schema.FieldReportBy, kernel.ID(r.By.ID)).FieldValue(schema.FieldReportUser, kernel.ID(r.User.ID)).
		FieldValue(schema.FieldReportReason, r.Reason)
	if len(r.Posts) > 0 {
		ids := make([]string, len(r.Posts))
		for i, pid := range r.Posts {
			ids[i] = kernel.ID(pid)
		}
		cmd = cmd.FieldValue(schema.FieldReportPost, strings.Join(ids, ","))
	}
	return cmd.Build()
}

// reportPosts parses the posts field of a report: ids, comma-separated
// (one, in the reports of older versions); "" for none.
func reportPosts(field string) []int64 {
	var pids []int64
	for f := range strings.SplitSeq(field, ",") {
		if pid, err := strconv.ParseInt(f, 10, 64); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// OpenReports returns the newest n reports not yet closed, newest first,
// with the names of the reporters and the reported.
func (s *Store) OpenReports(ctx context.Context, n int) ([]retwis.Report, error) {
	entries, err := s.C.Do(ctx, s.C.B().Xrevrange().Key(schema.Reports).End("+").Start("-").Count(int64(n)).Build()).AsXRange()
	if err != nil {
		return nil, s.Wrap("reports", err)
	}
	var uids []int64
	reports := make([]retwis.Report, 0, len(entries))
	for _, e := range entries {
		f := e.FieldValues
		by, _ := strconv.ParseInt(f[schema.FieldReportBy], 10, 64)
		uid, _ := strconv.ParseInt(f[schema.FieldReportUser], 10, 64)
		reports = append(reports, retwis.Report{ID: e.ID, At: streamTime(e.ID), By: retwis.User{ID: by},
			User: retwis.User{ID: uid}, Posts: reportPosts(f[schema.FieldReportPost]), Reason: f[schema.FieldReportReason]})
		uids = append(uids, by, uid)
	}
	names, err := s.Usernames(ctx, uids)
	if err != nil {
		return nil, err
	}
	for i := range reports {
		reports[i].By.Username, reports[i].User.Username = names[reports[i].By.ID], names[reports[i].User.ID]
	}
	return reports, nil
}

// CloseReport closes report id on the word of by, with what was done
// (reason, optional): it leaves the open reports, and the audit log
// records it with the report's contents. A report that is not open is
// an error of kind NotFound.
func (s *Store) CloseReport(ctx context.Context, by retwis.Actor, reportID, reason string) error {
	reason, err := retwis.NormalizeReason(reason, false)
	if err != nil {
		return err
	}
	if !validStreamID(reportID) {
		return retwis.Errorf(retwis.NotFound, "There is no open report %q.", reportID)
	}
	entries, err := s.C.Do(ctx, s.C.B().Xrange().Key(schema.Reports).Start(reportID).End(reportID).Build()).AsXRange()
	if err != nil {
		return s.Wrap("close report", err)
	}
	if len(entries) == 0 {
		return retwis.Errorf(retwis.NotFound, "There is no open report %q.", reportID)
	}
	f := entries[0].FieldValues
	target := fmt.Sprintf("report %s (user %s, posts %s, by %s: %q)", reportID, f[schema.FieldReportUser],
		f[schema.FieldReportPost], f[schema.FieldReportBy], f[schema.FieldReportReason])
	if err := s.C.Do(ctx, s.C.B().Xdel().Key(schema.Reports).Id(reportID).Build()).Error(); err != nil {
		return s.Wrap("close report", err)
	}
	return s.audit(ctx, by, retwis.CloseReport, target, reason)
}

// validStreamID reports whether id is a stream entry id, "<ms>-<seq>".
func validStreamID(id string) bool {
	ms, seq, ok := strings.Cut(id, "-")
	_, err1 := strconv.ParseUint(ms, 10, 64)
	_, err2 := strconv.ParseUint(seq, 10, 64)
	return ok && err1 == nil && err2 == nil
}
