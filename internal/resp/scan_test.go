package resp_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/retwis/retwis/internal/resp"
)

// scanAll scans input with a reader buffer of size bytes and returns the
// commands' raw bytes (copied) and the error that ended the stream.
func scanAll(input []byte, size int) ([][]byte, []*resp.Command, error) {
	// Half reads: commands end up split between reads, at every place.
	sc := resp.NewScanner(bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(input)), size))
	var raws [][]byte
	var cmds []*resp.Command
	for {
		c, err := sc.Next()
		if err != nil {
			return raws, cmds, err
		}
		cp := *c
		cp.Raw = bytes.Clone(c.Raw)
		raws = append(raws, cp.Raw)
		cmds = append(cmds, &cp)
	}
}

func TestScanner(t *testing.T) {
	t.Parallel()
	commands := [][]string{
		{"SET", "key", "value"},
		{"PING"},
		{"SET", "", ""},
		{"SET", "a\r\nb", "\x00\xff\r\n$3\r\n*1\r\n"},
		{"RPUSH", "list", strings.Repeat("x", 100), "y", "z"},
		{"SET", "big", strings.Repeat("\r\n", 40_000)},
	}
	var input []byte
	for _, c := range commands {
		input = resp.AppendCommand(input, c...)
	}
	// 16 bytes (bufio's minimum) sends every command but PING through the
	// path for commands longer than the buffer.
	for _, size := range []int{16, 64, 4096, 1 << 20} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			raws, cmds, err := scanAll(input, size)
			if err != io.EOF {
				t.Fatalf("ended with %v; want io.EOF", err)
			}
			if len(cmds) != len(commands) {
				t.Fatalf("scanned %d commands; want %d", len(cmds), len(commands))
			}
			var off int64
			for i, c := range commands {
				want := resp.AppendCommand(nil, c...)
				if !bytes.Equal(raws[i], want) || cmds[i].Offset != off || cmds[i].Args != len(c) {
					t.Fatalf("command %d = %q at %d with %d args; want %q at %d with %d", i,
						raws[i], cmds[i].Offset, cmds[i].Args, want, off, len(c))
				}
				if string(cmds[i].Name()) != c[0] {
					t.Errorf("command %d: Name = %q; want %q", i, cmds[i].Name(), c[0])
				}
				key, ok := cmds[i].Key()
				if ok != (len(c) > 1) || (ok && string(key) != c[1]) {
					t.Errorf("command %d: Key = %q, %v", i, key, ok)
				}
				off += int64(len(want))
			}
		})
	}
}

func TestScannerErrors(t *testing.T) {
	t.Parallel()
	ping := "*1\r\n$4\r\nPING\r\n" // 14 bytes
	for _, tc := range []struct {
		name, input string
		want        string
		before      int // commands returned before the error
	}{
		{"inline command", "SET a b\r\n", "byte 0: expected '*', got 'S'", 0},
		{"bad argument header", ping + "*2\r\nx", "byte 18: expected '$', got 'x'", 1},
		{"empty command", ping + "*0\r\n", "byte 14: empty command (*0)", 1},
		{"negative count", "*-1\r\n", "byte 1: expected a length, got '-'", 0},
		{"leading zero", "*01\r\n", "byte 1: length with a leading zero", 0},
		{"LF without CR", "*1\n$4\r\nPING\r\n", `byte 2: expected a digit or CR, got '\n'`, 0},
		{"CR without LF", "*1\r$", `byte 3: expected LF after CR, got '$'`, 0},
		{"argument too long", "*1\r\n$3\r\nPINGX\r\n", "byte 11: expected CRLF after the 3 bytes of argument 1, got 'G'", 0},
		{"argument too short", "*1\r\n$5\r\nPING\r\n*1", `byte 13: expected CRLF after the 5 bytes of argument 1, got '\n'`, 0},
		{"CR then garbage after argument", "*1\r\n$4\r\nPING\r\x00", `byte 13: expected CRLF after the 4 bytes of argument 1, got '\x00'`, 0},
		{"bulk over 512 MiB", "*2\r\n$3\r\nSET\r\n$536870913\r\n", "byte 14: length over the limit of 536870912", 0},
		{"truncated header", ping + "*2\r", "truncated command at byte 14 (the input ends at byte 17)", 1},
		{"truncated argument", ping + "*2\r\n$3\r\nGET\r\n$5\r\nab", "truncated command at byte 14 (the input ends at byte 33)", 1},
		{"missing final CRLF", ping + ping[:12], "truncated command at byte 14 (the input ends at byte 26)", 1},
	} {
		for _, size := range []int{16, 4096} {
			t.Run(tc.name+"/"+strconv.Itoa(size), func(t *testing.T) {
				_, cmds, err := scanAll([]byte(tc.input), size)
				var syn *resp.SyntaxError
				if !errors.As(err, &syn) || err.Error() != tc.want {
					t.Fatalf("error = %v; want %q", err, tc.want)
				}
				if len(cmds) != tc.before {
					t.Fatalf("returned %d commands before the error; want %d", len(cmds), tc.before)
				}
			})
		}
	}
}

func TestScannerErrorIsSticky(t *testing.T) {
	t.Parallel()
	sc := resp.NewScanner(bufio.NewReader(strings.NewReader("*1\r\nx*1\r\n$4\r\nPING\r\n")))
	_, err1 := sc.Next()
	_, err2 := sc.Next()
	if err1 == nil || err1 != err2 {
		t.Fatalf("errors %v then %v; want the same error twice", err1, err2)
	}
}

// FuzzScanner feeds arbitrary bytes to the Scanner: it must not panic,
// every command it returns must be the very bytes at its offset, and it
// must stop at an error or at the end of the input.
func FuzzScanner(f *testing.F) {
	f.Add(resp.AppendCommand(nil, "SET", "k", "v"), false)
	f.Add(resp.AppendCommand(resp.AppendCommand(nil, "PING"), "SET", "k\r\n", ""), true)
	f.Add([]byte("*2\r\n$3\r\nGET\r\n$-1\r\n"), true)
	f.Add([]byte("*1\r\n$0\r\n\r\n*1\r\n$4\r\nPI"), false)
	f.Fuzz(func(t *testing.T, input []byte, small bool) {
		size := 4096
		if small {
			size = 16
		}
		raws, cmds, err := scanAll(input, size)
		var off int64
		for i, raw := range raws {
			if cmds[i].Offset != off || !bytes.Equal(input[off:off+int64(len(raw))], raw) {
				t.Fatalf("command %d at %d is %q, not the input's bytes", i, cmds[i].Offset, raw)
			}
			// What the Scanner accepted scans again to itself.
			again, _, err := scanAll(raw, 4096)
			if err != io.EOF || len(again) != 1 || !bytes.Equal(again[0], raw) {
				t.Fatalf("command %q does not scan again: %v", raw, err)
			}
			off += int64(len(raw))
		}
		var syn *resp.SyntaxError
		switch {
		case err == io.EOF && off != int64(len(input)):
			t.Fatalf("io.EOF at %d of %d bytes", off, len(input))
		case err != io.EOF && !errors.As(err, &syn):
			t.Fatalf("error %v is not a SyntaxError", err)
		case syn != nil && (syn.Offset < off || syn.Offset > int64(len(input))):
			t.Fatalf("error at byte %d outside [%d, %d]", syn.Offset, off, len(input))
		}
	})
}

// FuzzScanEncoded checks that whatever AppendCommand encodes scans back to
// the same bytes, name and key, through both paths of the Scanner.
func FuzzScanEncoded(f *testing.F) {
	f.Add("SET", "key", "value", false)
	f.Add("", "", "", true)
	f.Add("SET", "\r\n", "\x00\xff\xfe", true)
	f.Add("RPUSH", "{tag}", "*1\r\n$4\r\nPING\r\n", false)
	f.Fuzz(func(t *testing.T, name, key, value string, small bool) {
		size := 4096
		if small {
			size = 16
		}
		want := resp.AppendCommand(nil, name, key, value)
		raws, cmds, err := scanAll(append(bytes.Clone(want), want...), size)
		if err != io.EOF || len(raws) != 2 {
			t.Fatalf("scanned %d commands, then %v", len(raws), err)
		}
		for i, c := range cmds {
			k, _ := c.Key()
			if !bytes.Equal(raws[i], want) || string(c.Name()) != name || string(k) != key || c.Args != 3 {
				t.Fatalf("command %d = %q (name %q, key %q); want %q", i, raws[i], c.Name(), k, want)
			}
		}
	})
}

func BenchmarkScanner(b *testing.B) {
	var input []byte
	for i := range 10_000 {
		input = resp.AppendCommand(input, "SET", "key:"+strconv.Itoa(i), "value:"+strconv.Itoa(i))
	}
	b.SetBytes(int64(len(input)))
	r := bufio.NewReaderSize(nil, 1<<20)
	for b.Loop() {
		r.Reset(bytes.NewReader(input))
		sc := resp.NewScanner(r)
		for {
			if _, err := sc.Next(); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.N)*10_000/b.Elapsed().Seconds(), "commands/s")
}
