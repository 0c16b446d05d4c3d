// Package storewatch keeps the health of a shared store (the loop guard's,
// the call cache's): while it fails, it is left alone for a while and the
// caller uses what the process holds; each change is logged once.
package storewatch

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// Watch is one store's health; its zero value is a store that answers.
// Safe for concurrent use.
type Watch struct {
	// Retry is how long the store is left alone after a failure.
	Retry time.Duration
	// Failed and Back are the lines logged when the store fails and when
	// it answers again.
	Failed, Back string
	// down is when (UnixNano) the store may be asked again after a
	// failure; 0 while it answers.
	down atomic.Int64
}

// Up reports whether the store may be asked now.
func (w *Watch) Up() bool {
	until := w.down.Load()
	return until == 0 || time.Now().UnixNano() >= until
}

// Answered notes how a store call went, logging each change once to o, and
// reports whether it succeeded.
func (w *Watch) Answered(ctx context.Context, err error, o *obs.Observer) bool {
	if err != nil {
		if w.down.Swap(time.Now().Add(w.Retry).UnixNano()) == 0 {
			o.Log(ctx, slog.LevelWarn, w.Failed, slog.String("error", err.Error()))
		}
		return false
	}
	if w.down.Load() != 0 && w.down.Swap(0) != 0 {
		o.Log(ctx, slog.LevelInfo, w.Back)
	}
	return true
}
