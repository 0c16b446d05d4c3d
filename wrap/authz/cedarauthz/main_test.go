package cedarauthz_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the suite if a goroutine outlives it: every watcher ends
// with Close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
