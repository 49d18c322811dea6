// Package redlock implements the Redlock distributed lock over N
// independent Redis masters, as specified in "Distributed Locks with
// Redis" (redis.io), with fencing tokens.
//
// # The algorithm
//
// To acquire, a client sends SET name value NX PX ttl, with the same name
// and a value of 20 random bytes, to every instance at once, each with a
// small timeout. The lock is acquired when a majority (N/2+1) answered OK
// and the time spent is less than the TTL; it is then valid for
// TTL − elapsed − drift, where drift = TTL × 0.01 + 2 ms. Otherwise every
// instance is unlocked at once (also those that seemed to fail) and the
// client retries after a random delay, a bounded number of times.
// Release deletes the key only where it still holds this client's value;
// Extend resets its TTL the same way and counts only with a majority
// within the validity. A failed extension (ErrExtendFailed) leaves the
// lock valid until its Until; the lock is lost (ErrLost) once that has
// passed, or once so many instances no longer hold it that no majority
// can. Extend also puts the key back on instances that lost it (one
// restarted empty, a replica promoted without it), so that a lock
// taken on a bare majority, or one instance of which lost its data,
// is soon held on every instance again. N = 1 is the single-instance
// lock.
//
// # On a Redis Cluster
//
// A cluster given to New as one URL is one instance: the lock's key
// lives on one master, and a failover to a replica that had not
// received it (replication is asynchronous) lets a second holder in, the
// failure the specification warns of. NewOnCluster instead makes n
// instances of the one cluster: a lock's key is kept in n hash slots
// spread evenly over the slot space, "{<tag>}name", so over the masters.
// With DefaultClusterKeys (9) on three masters, each holds three keys: a
// holder that locked them all keeps six after one master's failover,
// even one whose replica had none of them, and a second client can get
// at most three, short of the five it needs; the holder's next extension
// puts the three back. Two faults at once (a failover while the lock is
// held on a bare majority, or two masters down) can still let a second
// holder in, as with independent masters that restart without their
// data.
//
// # Running work under a lock
//
// Lock.Hold runs a function while keeping a lock: it extends the lock
// every TTL/3, tries failed extensions again while the lock is valid, and
// cancels the function's context, with a cause wrapping ErrLost, when the
// lock is lost; it returns once the function has, so that the lock can be
// released. Client.Do takes a lock with a single try, holds it while a
// function runs and releases it: for periodic work that any of several
// processes may do, where ErrNotAcquired means that another is doing it.
//
// # Fencing tokens
//
// A lock can outlive its holder's belief in it (a GC pause, a stalled
// network), so a resource that must never be written by two holders
// should check a token that increases with each holder: Lock.Token.
// Every instance keeps a counter next to the lock key ("{name}:fence").
// Acquiring sends each instance an INCR of its counter right after the
// SET NX, in the same round trip (pipelined: the instance runs the two in
// order); the token T is the largest counter among the instances it
// locked, and before the lock counts as acquired T must be the counter of
// a majority of the instances it holds. Usually the counters agree and it
// already is, in the one round; where it is not, a second round raises
// the counters (as a maximum) to T. A try that fails increments counters
// too, which does no harm: tokens need only grow.
//
// Why tokens increase: a later holder B locked a majority of instances,
// and any two majorities share an instance I. B could lock I only after
// the earlier holder A's key there was gone, which happens after A
// acquired, that is after I's counter reached T_A; B's INCR at I ran
// after its SET NX there. So it gave at least T_A + 1, and T_B ≥ T_A + 1.
//
// Limits: counters never decrease only while instances keep their data.
// An instance that restarts without persistence (or loses the last second
// of an fsync-everysec append-only file in a crash) may come back with a
// lower counter; tokens stay increasing only if such an instance stays
// out until the locks of its time have expired (the delayed restart of
// the specification), or if the shared instance of two majorities is
// another one. And a token only protects a resource that checks it; a
// client whose resources do not check tokens can skip fencing
// (Options.NoFencing): a plain SET NX per instance, no script.
package redlock
