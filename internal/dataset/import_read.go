package dataset

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis"
)

// record is one row of a users or posts file, by column name.
type record map[string]string

// readRecords reads CSV (with a header naming the columns) or JSON Lines,
// calling add for each record; add reports problems with a record through
// skip. Missing required columns end the import.
func readRecords(r io.Reader, format, file string, required []string, add func(line int, rec record) error,
	skip func(file string, line int, format string, args ...any)) error {
	switch format {
	case "csv":
		return readCSV(r, file, required, add, skip)
	case "jsonl", "json":
		return readJSONL(r, file, add, skip)
	}
	return errorf("%s: unknown format %q (want csv or jsonl)", file, format)
}

func readCSV(r io.Reader, file string, required []string, add func(int, record) error,
	skip func(string, int, string, ...any)) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return errorf("%s: no header line: %v", file, err)
	}
	for _, col := range required {
		if !slices.Contains(header, col) {
			return errorf("%s: the header lacks the column %q (it has %s)", file, col, strings.Join(header, ", "))
		}
	}
	for {
		row, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				skip(file, pe.Line, "%v", pe.Err)
				continue
			}
			return fmt.Errorf("%s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		rec := record{}
		for i, col := range header {
			if i < len(row) {
				rec[col] = row[i]
			}
		}
		if err := add(line, rec); err != nil {
			return err
		}
	}
}

func readJSONL(r io.Reader, file string, add func(int, record) error, skip func(string, int, string, ...any)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		// Numbers are kept as written: ids like Twitter's exceed what a
		// float64 holds exactly.
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var raw map[string]any
		if err := dec.Decode(&raw); err != nil {
			skip(file, line, "not a JSON object: %v", err)
			continue
		}
		rec := record{}
		for k, v := range raw {
			switch v := v.(type) {
			case string:
				rec[k] = v
			case json.Number:
				rec[k] = v.String()
			}
		}
		if err := add(line, rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// parseTime reads unix seconds or an RFC 3339 time.
func parseTime(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	return t.Unix(), err
}

// addUser takes one record of the users file.
func (im *importer) addUser(line int, rec record) error {
	ext, err := strconv.ParseInt(rec["id"], 10, 64)
	if err != nil {
		im.skip("users", line, "id %q is not a number", rec["id"])
		return nil
	}
	name := rec["username"]
	created := im.o.Now.Unix()
	switch {
	case retwis.ValidateUsername(name) != nil:
		im.skip("users", line, "username %q: %s", name, retwis.ErrorMessage(retwis.ValidateUsername(name)))
	case im.folded[retwis.FoldUsername(name)] > 0:
		im.skip("users", line, "username %q is taken (ignoring case)", name)
	case im.ids[ext] != 0:
		im.skip("users", line, "id %d appears twice", ext)
	default:
		if c := rec["created"]; c != "" {
			if created, err = parseTime(c); err != nil {
				im.skip("users", line, "created %q is neither unix seconds nor RFC 3339", c)
				return nil
			}
		}
		im.newUser(ext, name, created)
	}
	return nil
}

// readGraph reads the edge list. Duplicate edges count once; self-follows
// and unparsable lines are skipped and reported.
func (im *importer) readGraph() error {
	sc := bufio.NewScanner(im.o.Graph)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 2 {
			im.skip("graph", line, "want two ids, \"follower followee\"; got %d fields", len(f))
			continue
		}
		a, err1 := strconv.ParseInt(f[0], 10, 64)
		b, err2 := strconv.ParseInt(f[1], 10, 64)
		switch {
		case err1 != nil || err2 != nil:
			im.skip("graph", line, "ids must be whole numbers: %q", text)
		case a == b:
			im.skip("graph", line, "user %d follows itself", a)
		default:
			u := im.user(a)
			im.follow[u-1] = append(im.follow[u-1], im.user(b))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("graph: %w", err)
	}
	for i, fs := range im.follow {
		slices.Sort(fs)
		im.follow[i] = slices.Compact(fs)
		im.stats.Follows += len(im.follow[i])
	}
	return nil
}
