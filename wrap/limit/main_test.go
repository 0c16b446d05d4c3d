package limit_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the suite if a goroutine outlives it: the local store
// must run none.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
