package resp

import (
	"bufio"
	"fmt"
	"net"
	"time"
)

// RoundTrip sends one command on conn and reads its reply from r, a
// reader on conn, as ReadValue returns it: an error reply is returned as
// an Error. It is for the few set-up and administration commands of a
// connection (AUTH, INFO, PING); a bulk load never waits for a reply.
// A positive timeout bounds the whole exchange and is cleared after it;
// otherwise conn's deadlines are left as they are.
func RoundTrip(conn net.Conn, r *bufio.Reader, timeout time.Duration, args ...string) (any, error) {
	if timeout > 0 {
		if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
			return nil, fmt.Errorf("set deadline: %w", err)
		}
		defer conn.SetDeadline(time.Time{})
	}
	if _, err := conn.Write(AppendCommand(nil, args...)); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	v, err := ReadValue(r)
	if _, isReply := err.(Error); err != nil && !isReply {
		return nil, fmt.Errorf("read reply: %w", err)
	}
	return v, err
}
