package media

import (
	"time"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// NewWaiting returns a Server on k whose POST /api/v2/media waits wait
// for the picture, not readyWait.
func NewWaiting(k *apiwire.Kit, wait time.Duration) *Server { return &Server{Kit: k, wait: wait} }
