package credential_test

import (
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/credential"
)

// TestHashIsStable: replicas and releases share buckets keyed by Hash, so
// its value for a given credential never changes.
func TestHashIsStable(t *testing.T) {
	const want = "c355dce96c1612880d11940ffdd9014d" // sha256("Bearer abc")[:16], hex
	if got := credential.Hash("Bearer abc"); got != want {
		t.Errorf("Hash = %q, want %q", got, want)
	}
}
