package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Report files by's report of post pid (0: of the account uid itself;
// with a post, uid is read from the post) with reason, for the
// moderators. Reporting oneself, a post or account that does not exist,
// or without a reason is refused, and so are reports beyond
// Limits.Reports; nothing is written then. The reports log keeps about
// schema.ReportsKept open reports.
func (s *Store) Report(ctx context.Context, by, uid, pid int64, reason string) (retwis.Report, error) {
	reason, err := retwis.NormalizeReason(reason, true)
	if err != nil {
		return retwis.Report{}, err
	}
	r := retwis.Report{Post: pid, Reason: reason}
	if pid != 0 {
		p, err := s.post(ctx, reader{id: by, where: retwis.InConversation}, pid)
		if err != nil {
			return retwis.Report{}, err
		}
		uid = p.AuthorID
	}
	users, err := s.namedUsers(ctx, []int64{by, uid})
	if err != nil {
		return retwis.Report{}, err
	}
	switch {
	case by == uid:
		return retwis.Report{}, retwis.Errorf(retwis.Invalid, "You cannot report yourself.")
	case len(users) < 2:
		return retwis.Report{}, retwis.Errorf(retwis.NotFound, "There is no such account.")
	}
	r.By, r.User = users[0], users[1]
	if _, err := s.Take(ctx, Subject(schema.ReportLimit(by)), s.Opts.Limits.Reports); err != nil {
		return retwis.Report{}, err
	}
	fields := []string{schema.FieldReportBy, kernel.ID(by), schema.FieldReportUser, kernel.ID(uid), schema.FieldReportReason, reason}
	if pid != 0 {
		fields = append(fields, schema.FieldReportPost, kernel.ID(pid))
	}
	cmd := s.C.B().Xadd().Key(schema.Reports).Maxlen().Almost().Threshold(strconv.Itoa(schema.ReportsKept)).Id("*").
		FieldValue().FieldValue(fields[0], fields[1])
	for i := 2; i < len(fields); i += 2 {
		cmd = cmd.FieldValue(fields[i], fields[i+1])
	}
	if r.ID, err = s.C.Do(ctx, cmd.Build()).ToString(); err != nil {
		return retwis.Report{}, s.Wrap("report", err)
	}
	r.At = streamTime(r.ID)
	return r, nil
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
		pid, _ := strconv.ParseInt(f[schema.FieldReportPost], 10, 64)
		reports = append(reports, retwis.Report{ID: e.ID, At: streamTime(e.ID), By: retwis.User{ID: by},
			User: retwis.User{ID: uid}, Post: pid, Reason: f[schema.FieldReportReason]})
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
	target := fmt.Sprintf("report %s (user %s, post %s, by %s: %q)", reportID, f[schema.FieldReportUser],
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
