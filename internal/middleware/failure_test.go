package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

func TestStatusOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want int
	}{
		{retwis.Errorf(retwis.Invalid, "x"), 400},
		{retwis.Errorf(retwis.Conflict, "x"), 409},
		{fmt.Errorf("wrapped: %w", retwis.Errorf(retwis.NotFound, "x")), 404},
		{retwis.Errorf(retwis.Unauthorized, "x"), 401},
		{retwis.Errorf(retwis.Forbidden, "x"), 403},
		{retwis.Errorf(retwis.Unavailable, "x"), 503},
		{retwis.Errorf(retwis.Canceled, "x"), 400},
		{retwis.Errorf(retwis.Internal, "x"), 500},
		{errors.New("unclassified"), 500},
		{context.Canceled, 500}, // unclassified too: only its logging differs
	} {
		if got := middleware.StatusOf(tc.err); got != tc.want {
			t.Errorf("StatusOf(%v) = %d; want %d", tc.err, got, tc.want)
		}
	}
}
