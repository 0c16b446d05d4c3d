// Package upstreamhook holds the test hook of wrap/upstream: an option no
// user sets. wrap/upstream registers it from its init (upstream/internal.go),
// because an internal package cannot import the package it serves.
package upstreamhook

import "time"

// WithClock returns an upstream.Option replacing time.Now, for tests of
// the breaker's open window.
var WithClock func(now func() time.Time) any
