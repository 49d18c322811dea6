package deletion

import (
	"context"

	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/store/schema"
)

// The stages of a batch of posts at which StartDeletion stops.
const (
	StageNone    = iota // between two batches
	StageHashes         // the posts' hashes deleted, what lists them not yet
	StageCounted        // their tags counted down too, the batch not yet closed
)

// StartDeletion begins the deletion of uid's account as DeleteAccount
// does, carries it on for batches batches, goes on with the next batch
// of posts until stage, and stops as a server that stops would, its
// lease lapsed at once.
func (s *Deleter) StartDeletion(ctx context.Context, uid int64, password string, batches, stage int) error {
	d, secret, err := s.confirmDeletion(ctx, uid, password)
	if err != nil {
		return err
	}
	token := accounts.RandomString(20)
	if _, err := s.startDeletion(ctx, d, secret, token); err != nil {
		return err
	}
	if _, _, err := s.runDeletion(ctx, uid, token, batches); err != nil {
		return err
	}
	if stage > StageNone {
		if err := s.halfBatch(ctx, uid, stage); err != nil {
			return err
		}
	}
	return s.C.Do(ctx, s.C.B().Del().Key(schema.DeletingLease(uid)).Build()).Error()
}

// halfBatch does the next batch of uid's posts until stage.
func (s *Deleter) halfBatch(ctx context.Context, uid int64, stage int) error {
	w, err := s.nextWork(ctx, uid)
	if err != nil {
		return err
	}
	batch, err := s.stashPosts(ctx, uid, w.posts)
	if err != nil {
		return err
	}
	stashed, err := s.unstash(ctx, uid, batch)
	if err != nil {
		return err
	}
	posts, err := s.dropHashes(ctx, stashed)
	if err != nil || stage == StageHashes {
		return err
	}
	if err := s.unlistBatch(ctx, uid, stashed, posts); err != nil {
		return err
	}
	return s.uncount(ctx, uid, posts)
}
