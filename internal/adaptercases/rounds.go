package adaptercases

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
)

// LaterRounds changes what a client sends on every round after the first
// (a tools/call carrying a requestState): the way a client, or someone
// between it and the server, replays or forges a round. As an
// http.RoundTripper it sends what it changed with http.DefaultTransport;
// a nil LaterRounds changes nothing.
type LaterRounds func(r *http.Request, params map[string]any)

// RoundTrip implements http.RoundTripper.
func (f LaterRounds) RoundTrip(r *http.Request) (*http.Response, error) {
	if f != nil && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		var msg map[string]any
		if json.Unmarshal(b, &msg) == nil && msg["method"] == "tools/call" {
			if p, _ := msg["params"].(map[string]any); p != nil && p["requestState"] != nil {
				f(r, p)
				b, _ = json.Marshal(msg)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// LineFacts are what the log lines of tool in logs say, in order: the
// outcome, the authz decision and reason ("input_required asked",
// "protocol_error hidden/scope"), and the call ids.
func LineFacts(t *testing.T, logs *logbuf.Buffer, tool string) (facts, ids []string) {
	t.Helper()
	lines, err := logs.Find("tool", tool)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		f, _ := l["outcome"].(string)
		if a, ok := l["authz"].(map[string]any); ok {
			f += " " + a["decision"].(string)
			if r, ok := a["reason"].(string); ok {
				f += "/" + r
			}
		}
		facts = append(facts, f)
		ids = append(ids, l["call_id"].(string))
	}
	return facts, ids
}

// CheckEveryRoundIsAuthorized: authorization is decided again on every
// round. call calls delete_repository as a caller allowed it, through
// change, which makes the round that answers the confirmation (accepted)
// carry the bearer token "reader", whose caller lacks the tool's scope:
// that round is answered as a tool the caller may not know (the SDK's
// error says unknown), the tool does not run (runs), and its log lines
// (logs) say it was asked, then hidden.
func CheckEveryRoundIsAuthorized(t *testing.T, call func(change LaterRounds) error, unknown string, runs *atomic.Int32, logs *logbuf.Buffer) {
	t.Helper()
	downgrade := LaterRounds(func(r *http.Request, _ map[string]any) { r.Header.Set("Authorization", "Bearer reader") })
	if err := call(downgrade); err == nil || !strings.Contains(err.Error(), unknown) {
		t.Fatalf("the second round got %v; want the answer to a tool the caller may not know", err)
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("delete_repository ran %d times, want 0", n)
	}
	if facts, _ := LineFacts(t, logs, "delete_repository"); !slices.Equal(facts, []string{"input_required asked", "protocol_error hidden/scope"}) {
		t.Fatalf("log lines say %q", facts)
	}
}

// CheckReadOnlyMode: the read-only mode hides every tool not annotated
// readOnlyHint, whatever the caller's scopes. listed is what a caller with
// every scope is listed; callErr is what its call of delete_repository
// got, an error saying unknown (the SDK's words for a tool that does not
// exist); the tool does not run (runs), and logs warns once, at start-up,
// that the mode hides it, and of no read-only tool.
func CheckReadOnlyMode(t *testing.T, listed []string, callErr error, unknown string, runs *atomic.Int32, logs *logbuf.Buffer) {
	t.Helper()
	if !slices.Equal(listed, []string{"list_issues", "ping"}) {
		t.Fatalf("read-only lists %v", listed)
	}
	if callErr == nil || !strings.Contains(callErr.Error(), unknown) {
		t.Fatalf("delete_repository in read-only mode: %v", callErr)
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("delete_repository ran %d times in read-only mode", n)
	}
	if got := strings.Count(logs.String(), "read-only mode hides tool delete_repository"); got != 1 {
		t.Fatalf("%d warnings that read-only mode hides delete_repository: %s", got, logs.String())
	}
	if strings.Contains(logs.String(), "read-only mode hides tool list_issues") {
		t.Fatal("a read-only tool was warned of")
	}
}
