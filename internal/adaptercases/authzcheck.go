package adaptercases

import (
	"context"
	"fmt"
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

// ByName makes a request by the name it takes, as a client of one SDK
// does, and returns its error: a tools/call of a tool, a prompts/get of a
// prompt, a resources/read of a URI.
type ByName struct {
	CallTool, GetPrompt, ReadResource func(name string) error
}

// CheckMadeUpNamesCannotFlood makes 1 200 requests naming made-up tools,
// prompts and URIs, a quarter of them URIs of the template users://{id}
// the server registered, then asks as an admin for what the server
// registered and the policy forgot: the prompt "draft", the resource
// notes://today and the tool "forgotten". Each request fails, and the
// log's "no policy declares" lines name each forgotten registration once
// (template is how its SDK's adapter names the template) and no made-up
// name: per name, a client could write as many lines as it liked.
func CheckMadeUpNamesCannotFlood(t *testing.T, by ByName, template string, logs *logbuf.Buffer) {
	t.Helper()
	const each = 300
	made := []struct {
		ask        func(string) error
		name, what string
	}{
		{by.CallTool, "made_up_%d", "a made-up tool"},
		{by.GetPrompt, "made_up_%d", "a made-up prompt"},
		{by.ReadResource, "made-up://%d", "a made-up URI"},
		{by.ReadResource, "users://%d", "an undeclared template's URI"},
	}
	for i := range each {
		for _, m := range made {
			if m.ask(fmt.Sprintf(m.name, i)) == nil {
				t.Fatalf("%s answered", m.what)
			}
		}
	}
	forgotten := []struct {
		ask  func(string) error
		name string
	}{{by.GetPrompt, "draft"}, {by.ReadResource, "notes://today"}, {by.CallTool, "forgotten"}}
	for _, f := range forgotten {
		if f.ask(f.name) == nil {
			t.Fatalf("the undeclared %s answered", f.name)
		}
	}
	var warned []string
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, "no policy declares") {
			warned = append(warned, strings.TrimSpace(l))
		}
	}
	all := strings.Join(warned, "\n")
	for _, want := range []string{"tools/call forgotten", "prompts/get draft", "resources/read notes://today", template} {
		if n := strings.Count(all, want); n != 1 {
			t.Errorf("%d warnings name %q, want 1", n, want)
		}
	}
	if len(warned) > 4 || strings.Contains(all, "made") {
		t.Fatalf("%d warnings after %d requests:\n%s", len(warned), len(made)*each, all)
	}
}

// CheckAnsweredAsUnknown: a request naming hiddenName, which the caller
// may not know of, got (hidden) the answer a request naming unknownName,
// which the server does not have, got (unknown), word for word: an error.
func CheckAnsweredAsUnknown(t *testing.T, hidden, unknown error, hiddenName, unknownName string) {
	t.Helper()
	if hidden == nil || unknown == nil || hidden.Error() != strings.ReplaceAll(unknown.Error(), unknownName, hiddenName) {
		t.Fatalf("%s answered %v, the unknown %s %v", hiddenName, hidden, unknownName, unknown)
	}
}
