module github.com/retwis/retwis/bench/redsync

go 1.26.0

replace github.com/retwis/retwis => ../..

require (
	github.com/go-redsync/redsync/v4 v4.18.1
	github.com/redis/rueidis v1.0.79
	github.com/redis/rueidis/rueidiscompat v1.0.79
	github.com/retwis/retwis v0.0.0
)

require golang.org/x/sys v0.49.0 // indirect
