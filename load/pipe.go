package load

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retwis/retwis/internal/resp"
)

// errPipeFailed is returned to the main goroutine when it hands commands
// to a pipe that has failed; the pipe's own error says why.
var errPipeFailed = errors.New("connection failed")

// pipe is one connection of a load. The main goroutine fills chunks of
// whole commands; a writer goroutine writes them, first telling a reader
// goroutine the numbers of their commands, so that the reader, which
// reads replies meanwhile, knows which command each reply answers: Redis
// answers the commands of a connection in order.
type pipe struct {
	addr     string
	conn     net.Conn
	timeout  time.Duration
	errs     *errorLog
	sentinel []byte // the reply of the final ECHO
	echo     []byte // the final ECHO command

	pending  *chunk      // being filled by the main goroutine
	chunks   chan *chunk // main → writer
	free     chan *chunk // writer → main, for reuse
	inflight chan *batch // writer → reader: the numbers of the commands sent
	spare    chan *batch // reader → main, for reuse

	final   atomic.Bool // the last command is written: the replies must follow
	replies atomic.Int64
	errors  atomic.Int64

	wg       sync.WaitGroup
	done     chan struct{} // closed when the pipe fails
	failOnce sync.Once
	err      error  // why the pipe failed, set before done is closed
	onFail   func() // tells the loader to stop reading the input

	// What the goroutines leave behind when they stop, for finding the
	// first command left unanswered.
	unsent *chunk // taken by the writer, never written
	cur    cursor // the reader's place in the numbers of the commands sent
}

// chunk is a run of whole commands written with one write (or a few, for
// a chunk larger than a megabyte).
type chunk struct {
	buf []byte
	b   *batch
}

// batch is the numbers of the commands of a chunk, in order, kept as runs
// of consecutive numbers: loading a single server, a chunk is one run.
type batch struct {
	runs []span
	n    int // commands
}

// span is n consecutive command numbers from first; a first of 0 stands for
// the final ECHO.
type span struct{ first, n int64 }

func (b *batch) push(num int64) {
	if k := len(b.runs) - 1; k >= 0 && num != 0 && b.runs[k].first != 0 && b.runs[k].first+b.runs[k].n == num {
		b.runs[k].n++
	} else {
		b.runs = append(b.runs, span{num, 1})
	}
	b.n++
}

// first returns the first command number of the batch that is not the
// final ECHO, or 0.
func (b *batch) first() int64 {
	for _, r := range b.runs {
		if r.first != 0 {
			return r.first
		}
	}
	return 0
}

// cursor is a place in a stream of batches.
type cursor struct {
	b *batch
	i int   // span
	j int64 // number within the span
}

func newPipe(addr string, conn net.Conn, timeout time.Duration, errs *errorLog, sentinel []byte, onFail func()) *pipe {
	p := &pipe{
		addr: addr, conn: conn, timeout: timeout, errs: errs, onFail: onFail,
		sentinel: sentinel, echo: resp.AppendCommand(nil, "ECHO", string(sentinel)),
		chunks:   make(chan *chunk, 4),
		free:     make(chan *chunk, 8),
		inflight: make(chan *batch, maxInFlight/maxBatch),
		// Room for every batch there can be (in flight, with the writer,
		// waiting for it, pending), so that none is allocated anew once
		// the load runs: a batch of a cluster's pipe holds a span per
		// command, grown at a cost.
		spare: make(chan *batch, maxInFlight/maxBatch+8),
		done:  make(chan struct{}),
	}
	p.pending = p.newChunk()
	return p
}

// start starts the writer and the reader.
func (p *pipe) start() {
	p.wg.Add(2)
	go p.writeLoop()
	go p.readLoop()
}

// fail records why the pipe stopped, the first time, and closes the
// connection so that the other goroutine stops too.
func (p *pipe) fail(err error) {
	p.failOnce.Do(func() {
		p.err = err
		p.onFail() // before done, so that whoever sees done sees the loader stopped
		close(p.done)
		p.conn.Close()
	})
}

// failure returns why the pipe failed, or nil.
func (p *pipe) failure() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

func (p *pipe) newChunk() *chunk {
	var c *chunk
	select {
	case c = <-p.free:
	default:
		c = &chunk{buf: make([]byte, 0, chunkSize)}
	}
	select {
	case c.b = <-p.spare:
	default:
		c.b = &batch{runs: make([]span, 0, 64)}
	}
	return c
}

// add appends a command, numbered num in the input, to the pending chunk,
// sending the chunk first when the command would not fit.
func (p *pipe) add(num int64, raw []byte) error {
	if c := p.pending; c.b.n > 0 && (len(c.buf)+len(raw) > chunkSize || c.b.n == maxBatch) {
		if err := p.flush(); err != nil {
			return err
		}
	}
	p.pending.buf = append(p.pending.buf, raw...)
	p.pending.b.push(num)
	return nil
}

// flush hands the pending chunk to the writer, waiting while the writer
// is behind: that wait is what holds the memory of a load flat.
func (p *pipe) flush() error {
	if p.pending.b.n == 0 {
		return nil
	}
	select {
	case p.chunks <- p.pending:
	case <-p.done:
		return errPipeFailed
	}
	p.pending = p.newChunk()
	return nil
}

// end sends the final ECHO and tells the writer that nothing follows.
func (p *pipe) end() {
	if p.add(0, p.echo) == nil {
		_ = p.flush()
	}
	close(p.chunks)
}

// writeLoop writes the chunks, telling the reader about their commands
// before a byte of them is sent, so that no reply can come first.
func (p *pipe) writeLoop() {
	defer p.wg.Done()
	for c := range p.chunks {
		select {
		case p.inflight <- c.b: // blocks while maxInFlight commands are unanswered
			c.b = nil
		case <-p.done:
			p.unsent = c
			return
		}
		if err := p.write(c.buf); err != nil {
			p.fail(err)
			return
		}
		if cap(c.buf) <= 2*chunkSize { // let the buffer of a huge command go
			c.buf = c.buf[:0]
			select {
			case p.free <- c:
			default:
			}
		}
	}
	// Everything is written: from now on the server owes replies, and a
	// silence of the timeout means it will not send them.
	p.final.Store(true)
	if p.timeout > 0 {
		p.conn.SetReadDeadline(time.Now().Add(p.timeout))
	}
}

// write writes b in pieces of at most a megabyte, so that the timeout is
// how long the server may take no data at all, not how long a huge
// command may take to send.
func (p *pipe) write(b []byte) error {
	for len(b) > 0 {
		n := min(len(b), 1<<20)
		if p.timeout > 0 {
			p.conn.SetWriteDeadline(time.Now().Add(p.timeout))
		}
		if _, err := p.conn.Write(b[:n]); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("%s: the server took no data for %s (the timeout)", p.addr, p.timeout)
			}
			return fmt.Errorf("connection to %s lost (write: %w)", p.addr, netCause(err))
		}
		b = b[n:]
	}
	return nil
}

// readLoop reads replies until the reply of the final ECHO, counting them
// and reporting the errors with the numbers of their commands. The
// simple replies that most commands of a load get (+OK, :1) are read in
// runs of what is buffered, the others one by one.
func (p *pipe) readLoop() {
	defer p.wg.Done()
	r := bufio.NewReaderSize(deadlineReader{p}, replyBuffer)
	for {
		if err := p.answerSimple(resp.ReadSimple(r)); err != nil {
			p.fail(err)
			return
		}
		rep, err := resp.ReadReply(r, p.sentinel)
		if err != nil {
			p.fail(p.readError(err))
			return
		}
		if rep.Kind == '>' {
			continue // a RESP3 push answers no command
		}
		num, err := p.answered()
		switch {
		case err != nil:
			p.fail(err)
			return
		case num == 0 && rep.Sentinel:
			return // all the replies are in
		case num == 0:
			p.fail(p.echoMismatch())
			return
		}
		p.replies.Add(1)
		if rep.IsError() {
			p.errors.Add(1)
			p.errs.add(num, rep.Err)
		}
	}
}

// answerSimple takes n simple replies, none of them an error, as the
// answers of the next n commands.
func (p *pipe) answerSimple(n int) error {
	for i := range n {
		num, err := p.answered()
		if err == nil && num == 0 {
			err = p.echoMismatch()
		}
		if err != nil {
			p.replies.Add(int64(i)) // those before it answered their commands
			return err
		}
	}
	p.replies.Add(int64(n))
	return nil
}

// answered returns the number of the command that a reply answers (0 for
// the final ECHO), or an error when no command is waiting for a reply.
func (p *pipe) answered() (int64, error) {
	num, ok := p.next()
	if !ok {
		return 0, fmt.Errorf("%s: a reply to no command: a command of the input got several replies "+
			"(SUBSCRIBE, MONITOR and CLIENT REPLY are not supported)", p.addr)
	}
	return num, nil
}

// echoMismatch is the error of a reply other than the sentinel taken for
// the final ECHO's.
func (p *pipe) echoMismatch() error {
	return fmt.Errorf("%s: the reply to the final ECHO did not match: replies and commands are out of step "+
		"(a command of the input got no reply, or several)", p.addr)
}

func (p *pipe) readError(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%s: no reply for %s after the last command was sent (the timeout)", p.addr, p.timeout)
	}
	if err == io.EOF {
		return fmt.Errorf("%s closed the connection", p.addr)
	}
	return fmt.Errorf("connection to %s lost (read: %w)", p.addr, netCause(err))
}

// netCause strips a network error of the addresses and the operation,
// which the message already gives, down to its cause: "broken pipe".
func netCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		err = op.Err
	}
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		err = sys.Err
	}
	return err
}

// deadlineReader reads the replies of a pipe, renewing the read deadline
// once everything is written: the server then owes replies, while before
// it a quiet connection only means that the input is slow.
type deadlineReader struct{ p *pipe }

func (d deadlineReader) Read(b []byte) (int, error) {
	if d.p.timeout > 0 && d.p.final.Load() {
		d.p.conn.SetReadDeadline(time.Now().Add(d.p.timeout))
	}
	return d.p.conn.Read(b)
}

// next returns the number of the command that the next reply answers (0
// for the final ECHO), and false when no command is waiting for a reply.
// The writer hands over the numbers before it writes the commands, so a
// reply never arrives before its number.
func (p *pipe) next() (int64, bool) {
	c := &p.cur
	for c.b == nil || c.i == len(c.b.runs) {
		if c.b != nil {
			c.b.runs, c.b.n = c.b.runs[:0], 0
			select {
			case p.spare <- c.b:
			default:
			}
			c.b = nil
		}
		select {
		case b := <-p.inflight:
			*c = cursor{b: b}
		default:
			return 0, false
		}
	}
	r := c.b.runs[c.i]
	num := r.first + c.j
	if c.j++; c.j == r.n {
		c.i, c.j = c.i+1, 0
	}
	return num, true
}

// firstUnanswered returns the number of the first command given to the
// pipe that got no reply, or 0 when all did. It is called once both
// goroutines have stopped, and walks the commands in the order they were
// given: those sent, the chunk the writer held, those waiting for the
// writer, and the pending chunk.
func (p *pipe) firstUnanswered() int64 {
	for {
		num, ok := p.next()
		if !ok {
			break
		}
		if num != 0 {
			return num
		}
	}
	if p.unsent != nil {
		if n := p.unsent.b.first(); n != 0 {
			return n
		}
	}
	for c := range p.chunks {
		if n := c.b.first(); n != 0 {
			return n
		}
	}
	return p.pending.b.first()
}
