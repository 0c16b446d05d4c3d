package adaptercases

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// PanickingCheck is a Policy.Check that panics when asked about a call of
// one of names (never when listing) and allows everything else.
func PanickingCheck(names ...string) func(context.Context, authz.Caller, authz.Request) error {
	return func(_ context.Context, _ authz.Caller, r authz.Request) error {
		for _, n := range names {
			if !r.Listing && r.Name == n {
				panic("a bug in the check")
			}
		}
		return nil
	}
}

// CheckHiddenByPanic checks what a call of tool that PanickingCheck hid
// leaves: its handler did not run (runs), and its one log line says
// decision=hidden reason=check_panic.
func CheckHiddenByPanic(t *testing.T, logs *logbuf.Buffer, tool string, runs *atomic.Int32) {
	t.Helper()
	if n := runs.Load(); n != 0 {
		t.Fatalf("%s ran %d times", tool, n)
	}
	lines, err := logs.Find("tool", tool)
	if err != nil || len(lines) != 1 {
		t.Fatalf("%d lines for the call (%v): %s", len(lines), err, logs.String())
	}
	if a, _ := lines[0]["authz"].(map[string]any); a["decision"] != "hidden" || a["reason"] != "check_panic" {
		t.Fatalf("authz of the call: %v", a)
	}
}

// SecretURI is a resource whose URI's scheme looks like a credential's key.
const SecretURI = "secret://deploy-keys"

// CheckDeniedLineNamesURI checks that reading SecretURI, without the scope
// its policy requires, failed (readErr) and that the denial's log line
// names the resource: it was logged as "secret:[REDACTED]".
func CheckDeniedLineNamesURI(t *testing.T, readErr error, logs *logbuf.Buffer) {
	t.Helper()
	if readErr == nil {
		t.Fatal("the reader read the deploy keys")
	}
	if l := logs.String(); !strings.Contains(l, `"`+SecretURI+`"`) || strings.Contains(l, "secret:[REDACTED]") {
		t.Fatalf("the denial's line does not name the resource: %s", l)
	}
}
