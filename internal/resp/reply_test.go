package resp_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

const sentinel = "0123456789abcdefghij"

func TestReadReply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply string
		want        resp.Reply
	}{
		{"simple string", "+OK\r\n", resp.Reply{Kind: '+'}},
		{"error", "-WRONGTYPE Operation against a key\r\n", resp.Reply{Kind: '-', Err: "WRONGTYPE Operation against a key"}},
		{"integer", ":-12\r\n", resp.Reply{Kind: ':'}},
		{"bulk", "$5\r\nhe\r\no\r\n", resp.Reply{Kind: '$'}},
		{"empty bulk", "$0\r\n\r\n", resp.Reply{Kind: '$'}},
		{"null bulk", "$-1\r\n", resp.Reply{Kind: '$', Null: true}},
		{"null array", "*-1\r\n", resp.Reply{Kind: '*', Null: true}},
		{"empty array", "*0\r\n", resp.Reply{Kind: '*'}},
		{"nested array", "*3\r\n*2\r\n*0\r\n*-1\r\n$-1\r\n*1\r\n*1\r\n:1\r\n", resp.Reply{Kind: '*'}},
		{"error inside an array", "*2\r\n+OK\r\n-ERR inner\r\n", resp.Reply{Kind: '*'}},
		{"sentinel", "$20\r\n" + sentinel + "\r\n", resp.Reply{Kind: '$', Sentinel: true}},
		{"not the sentinel", "$20\r\n" + strings.ToUpper(sentinel) + "\r\n", resp.Reply{Kind: '$'}},
		{"sentinel inside an array", "*1\r\n$20\r\n" + sentinel + "\r\n", resp.Reply{Kind: '*'}},
		{"RESP3 null", "_\r\n", resp.Reply{Kind: '_', Null: true}},
		{"RESP3 boolean", "#t\r\n", resp.Reply{Kind: '#'}},
		{"RESP3 double", ",1.5e3\r\n", resp.Reply{Kind: ','}},
		{"RESP3 big number", "(3492890328409238509324850943850943825024385\r\n", resp.Reply{Kind: '('}},
		{"RESP3 verbatim", "=15\r\ntxt:Some string\r\n", resp.Reply{Kind: '='}},
		{"RESP3 bulk error", "!21\r\nSYNTAX invalid syntax\r\n", resp.Reply{Kind: '!', Err: "SYNTAX invalid syntax"}},
		{"RESP3 map", "%2\r\n+a\r\n:1\r\n+b\r\n*2\r\n:2\r\n%0\r\n", resp.Reply{Kind: '%'}},
		{"RESP3 set", "~2\r\n+a\r\n~0\r\n", resp.Reply{Kind: '~'}},
		{"RESP3 push", ">3\r\n+message\r\n+channel\r\n$2\r\nhi\r\n", resp.Reply{Kind: '>'}},
		{"attribute before the reply", "|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*2\r\n:1\r\n:2\r\n", resp.Reply{Kind: '*'}},
		{"attribute inside an array", "*2\r\n|1\r\n+ttl\r\n:3600\r\n+a\r\n:2\r\n", resp.Reply{Kind: '*'}},
		{"empty attribute", "|0\r\n-ERR x\r\n", resp.Reply{Kind: '-', Err: "ERR x"}},
		{"streamed string", "$?\r\n;4\r\nHell\r\n;6\r\no\r\nwor\r\n;0\r\n", resp.Reply{Kind: '$'}},
		{"streamed aggregates", "*?\r\n:1\r\n~?\r\n.\r\n%?\r\n+a\r\n:1\r\n.\r\n.\r\n", resp.Reply{Kind: '*'}},
		{"deep nesting", strings.Repeat("*1\r\n", 10_000) + ":1\r\n", resp.Reply{Kind: '*'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The next reply must be read whole too: nothing more, nothing less.
			r := bufio.NewReaderSize(strings.NewReader(tc.reply+"+NEXT\r\n"), 16)
			got, err := resp.ReadReply(r, []byte(sentinel))
			if err != nil || got != tc.want {
				t.Fatalf("ReadReply = %+v, %v; want %+v", got, err, tc.want)
			}
			if next, err := resp.ReadReply(r, nil); err != nil || next.Kind != '+' {
				t.Fatalf("next reply = %+v, %v: the reply was not read exactly", next, err)
			}
		})
	}
}

func TestReadReplyErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply string
		want        string // "" for io.EOF
	}{
		{"end of stream", "", ""},
		{"end inside an array", "*2\r\n:1\r\n", io.ErrUnexpectedEOF.Error()},
		{"end inside a bulk", "$10\r\nabc", io.ErrUnexpectedEOF.Error()},
		{"unknown type", "?x\r\n", "bad reply from the server: unknown type '?'"},
		{"bulk without CRLF", "$3\r\nabcde\r\n", "bad reply from the server: bulk string not followed by CRLF"},
		{"bad length", "$x\r\n", `bad reply from the server: bad length "x"`},
		{"line without CR", "+OK\n", `bad reply from the server: bad line "+OK\n"`},
		{"end of a stream that never began", ".\r\n", "bad reply from the server: '.' outside a streamed aggregate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resp.ReadReply(bufio.NewReader(strings.NewReader(tc.reply)), nil)
			if tc.want == "" && err != io.EOF || tc.want != "" && (err == nil || err.Error() != tc.want) {
				t.Fatalf("error = %v; want %q", err, tc.want)
			}
		})
	}
}

// TestReplyFromRedis reads the replies of a real server, in RESP2 then in
// RESP3, with ReadReply and ReadValue.
func TestReplyFromRedis(t *testing.T) {
	t.Parallel()
	conn := dialRedis(t)
	r := bufio.NewReader(conn)
	send := func(args ...string) {
		t.Helper()
		if _, err := conn.Write(resp.AppendCommand(nil, args...)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want resp.Reply
	}{
		{[]string{"SET", "s", "v"}, resp.Reply{Kind: '+'}},
		{[]string{"GET", "nothing"}, resp.Reply{Kind: '$', Null: true}},
		{[]string{"INCR", "n"}, resp.Reply{Kind: ':'}},
		{[]string{"LPUSH", "s", "x"}, resp.Reply{Kind: '-', Err: "WRONGTYPE Operation against a key holding the wrong kind of value"}},
		{[]string{"LRANGE", "nothing", "0", "-1"}, resp.Reply{Kind: '*'}},
		{[]string{"BLPOP", "nothing", "0.01"}, resp.Reply{Kind: '*', Null: true}},
		{[]string{"EVAL", "return {1, {2, {'three', {}}}, redis.status_reply('OK')}", "0"}, resp.Reply{Kind: '*'}},
		{[]string{"ECHO", sentinel}, resp.Reply{Kind: '$', Sentinel: true}},
		{[]string{"HELLO", "3"}, resp.Reply{Kind: '%'}},
		{[]string{"HSET", "h", "f", "v"}, resp.Reply{Kind: ':'}},
		{[]string{"HGETALL", "h"}, resp.Reply{Kind: '%'}},
		{[]string{"ZADD", "z", "1.5", "m"}, resp.Reply{Kind: ':'}},
		{[]string{"ZSCORE", "z", "m"}, resp.Reply{Kind: ','}},
		{[]string{"GET", "nothing"}, resp.Reply{Kind: '_', Null: true}},
		{[]string{"SMEMBERS", "nothing"}, resp.Reply{Kind: '~'}},
	} {
		send(tc.args...)
		if got, err := resp.ReadReply(r, []byte(sentinel)); err != nil || got != tc.want {
			t.Fatalf("%q: ReadReply = %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
	// ReadValue, on the RESP3 connection: a map comes as keys and values.
	send("HGETALL", "h")
	if v, err := resp.ReadValue(r); err != nil || !reflect.DeepEqual(v, []any{"f", "v"}) {
		t.Fatalf("ReadValue(HGETALL) = %#v, %v", v, err)
	}
	send("LPUSH", "s", "x")
	if _, err := resp.ReadValue(r); !errors.As(err, new(resp.Error)) || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
		t.Fatalf("ReadValue(LPUSH on a string) error = %v", err)
	}
	send("EVAL", "return {1, {'two'}, redis.error_reply('ERR three')}", "0")
	if v, err := resp.ReadValue(r); err != nil || !reflect.DeepEqual(v, []any{int64(1), []any{"two"}, resp.Error("ERR three")}) {
		t.Fatalf("ReadValue(EVAL) = %#v, %v", v, err)
	}
}

// dialRedis returns a raw connection to a new, empty redis-server.
func dialRedis(t *testing.T) net.Conn {
	t.Helper()
	url := redistest.Start(t).URL
	network, addr := "unix", strings.TrimPrefix(url, "unix://")
	if !strings.HasPrefix(url, "unix://") {
		network, addr = "tcp", strings.TrimPrefix(url, "redis://")
	}
	conn, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	must.OK(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	return conn
}

// TestReadSimple reads runs of simple replies from what is buffered, and
// leaves the rest, whole, to ReadReply.
func TestReadSimple(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, stream string
		n            int
		rest         resp.Reply // what ReadReply reads next, if anything
	}{
		{"nothing", "", 0, resp.Reply{}},
		{"a run", "+OK\r\n:12\r\n+QUEUED\r\n:-1\r\n", 4, resp.Reply{}},
		{"up to a bulk string", "+OK\r\n+OK\r\n$5\r\nvalue\r\n", 2, resp.Reply{Kind: '$'}},
		{"up to an error", "+OK\r\n-ERR x\r\n+OK\r\n", 1, resp.Reply{Kind: '-', Err: "ERR x"}},
		{"up to an array", "*1\r\n+OK\r\n", 0, resp.Reply{Kind: '*'}},
		{"empty status", "+\r\n+OK\r\n", 2, resp.Reply{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bufio.NewReader(strings.NewReader(tc.stream))
			_, _ = r.Peek(len(tc.stream)) // buffered whole
			if n := resp.ReadSimple(r); n != tc.n {
				t.Fatalf("ReadSimple = %d; want %d", n, tc.n)
			}
			if tc.rest.Kind == 0 {
				if r.Buffered() != 0 {
					t.Fatalf("%d bytes left after the run", r.Buffered())
				}
				return
			}
			if got, err := resp.ReadReply(r, nil); err != nil || got != tc.rest {
				t.Fatalf("then ReadReply = %+v, %v; want %+v", got, err, tc.rest)
			}
		})
	}
}

// TestReadSimplePartial stops before a reply that is not wholly
// buffered, or malformed, without reading from the source: ReadReply then
// reads it, or reports it.
func TestReadSimplePartial(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	r := bufio.NewReader(pr)
	go func() {
		_, _ = pw.Write([]byte("+OK\r\n:1\r\n+O"))
		_, _ = pw.Write([]byte("K\r\n+OK\n"))
		pw.Close()
	}()
	_, _ = r.Peek(11) // the first write, buffered
	if n := resp.ReadSimple(r); n != 2 || r.Buffered() != 2 {
		t.Fatalf("ReadSimple = %d with %d bytes left; want 2 replies, and \"+O\" left", n, r.Buffered())
	}
	if got, err := resp.ReadReply(r, nil); err != nil || got.Kind != '+' {
		t.Fatalf("ReadReply of the split reply = %+v, %v", got, err)
	}
	_, _ = r.Peek(5)
	if n := resp.ReadSimple(r); n != 0 {
		t.Fatalf("ReadSimple read %d replies of \"+OK\\n\"", n)
	}
	var perr *resp.ProtocolError
	if _, err := resp.ReadReply(r, nil); !errors.As(err, &perr) {
		t.Fatalf("ReadReply of \"+OK\\n\" = %v; want a ProtocolError", err)
	}
}

func BenchmarkReadReply(b *testing.B) {
	replies := strings.Repeat("+OK\r\n:12\r\n$5\r\nvalue\r\n-ERR x\r\n", 1000)
	r := bufio.NewReaderSize(nil, 256<<10)
	for b.Loop() {
		r.Reset(strings.NewReader(replies))
		for {
			if _, err := resp.ReadReply(r, []byte(sentinel)); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.N)*4000/b.Elapsed().Seconds(), "replies/s")
}

// BenchmarkReadSimple reads the +OK replies of a bulk load of SETs, in
// runs, against ReadReply one by one.
func BenchmarkReadSimple(b *testing.B) {
	replies := strings.Repeat("+OK\r\n", 4000)
	r := bufio.NewReaderSize(nil, 256<<10)
	for _, run := range []bool{false, true} {
		b.Run(map[bool]string{false: "ReadReply", true: "ReadSimple"}[run], func(b *testing.B) {
			for b.Loop() {
				r.Reset(strings.NewReader(replies))
				for n := 0; n < 4000; {
					if run {
						if k := resp.ReadSimple(r); k > 0 {
							n += k
							continue
						}
					}
					if _, err := resp.ReadReply(r, nil); err != nil {
						b.Fatal(err)
					}
					n++
				}
			}
			b.ReportMetric(float64(b.N)*4000/b.Elapsed().Seconds(), "replies/s")
		})
	}
}
