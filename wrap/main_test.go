package wrap_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the suite if a goroutine outlives it: retry waits, timeout
// drains and fatal-exit goroutines must all end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
