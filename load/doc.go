// Package load is redis-cli --pipe done better: it streams commands in
// RESP to Redis as fast as the server takes them, one goroutine writing
// while another reads the replies, and ends with an ECHO of random bytes
// whose reply tells that every reply is in. It also knows which command
// each reply answers, so that it can name the commands that failed,
// route commands to the right master of a cluster, and say how far a
// broken load got. It is the engine of `retwis load`.
//
//	rep, err := load.Run(ctx, load.Options{URL: "redis://127.0.0.1:6379", Errors: os.Stdout}, f)
//
// Memory stays flat whatever the size of the input, plus the largest
// single command.
//
// # Error replies
//
// An error reply does not stop a load: it is written to Options.Errors
// as "command N: text", N being the command's number in the input
// (counting from 1), for the first hundred errors, and counted in
// Report.Errors. Run then fails once the load is over.
//
// # Resuming
//
// A load that breaks off (the server went away, Options.Timeout passed,
// ctx was cancelled) fails with an error that wraps ErrBrokeOff, and its
// Report.Acknowledged is N such that commands 1 to N all got a reply (or
// were skipped): it resumes with Options.Skip = N. Commands after N may
// have run already: SET, HSET and ZADD repeat harmlessly, but list pushes
// and INCR apply twice.
//
// # Clusters
//
// Routing on a cluster uses the second element of each command (argv[1])
// as its key, which is right for SET, HSET, LPUSH, INCR and most commands
// that a bulk load sends; commands with no second element (PING) go to
// the first master. Live resharding is not supported: a MOVED or ASK
// reply counts as an error.
//
// # Process state
//
// A load changes no process-wide state: it starts a writer and a reader
// goroutine per connection, which end before Run returns.
package load
