package resp_test

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"

	"github.com/retwis/retwis/internal/resp"
)

func TestAppendCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "key", "value"}, "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"},
		{[]string{"PING"}, "*1\r\n$4\r\nPING\r\n"},
		{[]string{"SET", "", "a\r\nb\x00"}, "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$5\r\na\r\nb\x00\r\n"},
		{nil, "*0\r\n"},
	} {
		if got := string(resp.AppendCommand(nil, tc.args...)); got != tc.want {
			t.Errorf("AppendCommand(%q) = %q; want %q", tc.args, got, tc.want)
		}
	}
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := resp.NewWriter(bufio.NewWriter(&buf))
	w.Command("SET", "k1", "v1")
	w.Command("INCR", "n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Count() != 2 || buf.String() != "*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$2\r\nv1\r\n*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n" {
		t.Fatalf("wrote %d commands: %q", w.Count(), buf.String())
	}
}

func TestCommandInts(t *testing.T) {
	t.Parallel()
	var a, b bytes.Buffer
	wa, wb := resp.NewWriter(bufio.NewWriter(&a)), resp.NewWriter(bufio.NewWriter(&b))
	wa.CommandInts("RPUSH", "posts:1", []int64{3, 20, -1, 1 << 40})
	wb.Command("RPUSH", "posts:1", "3", "20", "-1", "1099511627776")
	wa.Flush()
	wb.Flush()
	if a.String() != b.String() {
		t.Fatalf("CommandInts wrote %q; want %q", a.String(), b.String())
	}
}

func ExampleAppendCommand() {
	fmt.Printf("%q\n", resp.AppendCommand(nil, "SET", "mykey", "Hello World!"))
	// Output: "*3\r\n$3\r\nSET\r\n$5\r\nmykey\r\n$12\r\nHello World!\r\n"
}

func ExampleWriter() {
	var out bytes.Buffer
	w := resp.NewWriter(bufio.NewWriter(&out))
	w.Command("SET", "Key0", "Value0")
	w.Flush()
	fmt.Printf("%d command: %q\n", w.Count(), out.String())
	// Output: 1 command: "*3\r\n$3\r\nSET\r\n$4\r\nKey0\r\n$6\r\nValue0\r\n"
}
