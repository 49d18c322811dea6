package redlock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/retwis/retwis/redlock"
)

// ExampleClient_Lock guards a piece of work with a lock over five
// independent masters, passing the fencing token to the storage the work
// writes to, so that it can reject a stale holder.
func ExampleClient_Lock() {
	locks, err := redlock.New([]string{
		"redis://10.0.0.1:6379", "redis://10.0.0.2:6379", "redis://10.0.0.3:6379",
		"redis://10.0.0.4:6379", "redis://10.0.0.5:6379",
	}, redlock.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer locks.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := locks.Lock(ctx, "nightly-report", 10*time.Second)
	switch {
	case errors.Is(err, redlock.ErrNotAcquired):
		fmt.Println("someone else is running it")
		return
	case err != nil:
		fmt.Println(err)
		return
	}
	defer l.Unlock(context.Background())
	fmt.Printf("holding the lock until %v with token %d\n", l.Until(), l.Token())
}

// ExampleClient_Do runs a periodic job on whichever of several processes
// gets the lock first; the job's context ends if the lock is lost.
func ExampleClient_Do() {
	locks, err := redlock.New([]string{"redis://127.0.0.1:6379"}, redlock.Options{MaxExtensions: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer locks.Close()
	err = locks.Do(context.Background(), "hourly-cleanup", 30*time.Second, func(ctx context.Context) error {
		return nil // the work, which stops when ctx ends
	})
	if err != nil && !errors.Is(err, redlock.ErrNotAcquired) {
		fmt.Println(err)
	}
}
