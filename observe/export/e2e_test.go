package export_test

import (
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/jaegertest"
)

// e2eEnv returns the value of an end-to-end test's variable, which names a
// running backend. Unset, the test is skipped on a developer's machine but
// fails when CI is set (.ci/run sets it, as CI services do), so a CI run
// never passes without having talked to the backend.
func e2eEnv(t *testing.T, key, how string) string { return jaegertest.Env(t, key, how) }
