package export_test

import (
	"os"
	"testing"
)

// e2eEnv returns the value of an end-to-end test's variable, which names a
// running backend. Unset, the test is skipped on a developer's machine but
// fails when CI is set (.ci/run sets it, as CI services do), so a CI run
// never passes without having talked to the backend.
func e2eEnv(t *testing.T, key, how string) string {
	t.Helper()
	if v := os.Getenv(key); v != "" {
		return v
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set but %s is not: %s", key, how)
	}
	t.Skipf("%s is not set; %s", key, how)
	return ""
}
