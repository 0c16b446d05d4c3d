package adaptercases

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// completionValues are what the completion tests' servers complete a
// prompt's or resource template's argument with: names a caller may or may
// not be allowed to see.
var completionValues = map[string][]string{
	"db_query":           {"orders", "users"},
	"secret_prompt":      {"prod-db-password"},
	"db://{name}/tables": {"orders", "users"},
	"secret://{key}":     {"aws-root-key"},
}

// CompletionPolicy lets issues:read complete db_query and
// db://{name}/tables, and only repo:admin the secrets.
func CompletionPolicy() authz.Policy {
	return authz.Policy{
		Prompts:   map[string][]string{"db_query": {"issues:read"}, "secret_prompt": {"repo:admin"}},
		Resources: map[string][]string{"db://{name}/tables": {"issues:read"}, "secret://{key}": {"repo:admin"}},
	}
}

// Completions is the completion code of the completion tests' servers,
// counting its runs by prompt name or template. Its zero value is ready;
// it is safe for concurrent use.
type Completions struct {
	mu  sync.Mutex
	ran map[string]int
}

// Complete counts a run for name, a prompt or a template, and returns its
// values: none (nil) for a name it does not know.
func (c *Completions) Complete(name string) []string {
	c.Count(name)
	return completionValues[name]
}

// Count counts a run for name.
func (c *Completions) Count(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ran == nil {
		c.ran = map[string]int{}
	}
	c.ran[name]++
}

// Runs is how many runs Complete or Count counted for name.
func (c *Completions) Runs(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ran[name]
}

// TemplateServer is a server of TestTemplateKeyAuthorizesReads, with
// CompletionPolicy: Listed are the templates the reader is listed, and
// Read reads uri as the caller of the bearer token ("reader", "admin"),
// returning how many contents it got. Its template handlers count their
// runs in Reads; its log is Logs.
type TemplateServer struct {
	Listed []string
	Read   func(token, uri string) (contents int, err error)
	Reads  *atomic.Int32
	Logs   *logbuf.Buffer
}

// CheckTemplateKeyAuthorizesReads: a policy keyed by a template's text
// lists the template to the caller with its scopes, allows that caller a
// read of a URI it serves, and answers the others' reads as unknown (word
// for word), the handler not running for them; the allowed read's log line
// says allowed, with the scope it required.
func CheckTemplateKeyAuthorizesReads(t *testing.T, s TemplateServer) {
	t.Helper()
	if !slices.Equal(s.Listed, []string{"db://{name}/tables"}) {
		t.Errorf("the reader is listed templates %v", s.Listed)
	}
	if n, err := s.Read("reader", "db://orders/tables"); err != nil || n != 1 {
		t.Fatalf("the reader's read of a URI its template serves: %d contents, %v", n, err)
	}
	_, hidden := s.Read("reader", "secret://k")
	_, unknown := s.Read("reader", "nope://k")
	CheckAnsweredAsUnknown(t, hidden, unknown, "secret://k", "nope://k")
	if _, err := s.Read("admin", "secret://k"); err != nil {
		t.Errorf("the admin's read: %v", err)
	}
	if n := s.Reads.Load(); n != 2 {
		t.Errorf("the template handlers ran %d times, want 2", n)
	}
	lines, _ := s.Logs.Find("resource", "db://orders/tables")
	if len(lines) != 1 {
		t.Fatalf("lines for the allowed read: %s", s.Logs.String())
	}
	a, _ := lines[0]["authz"].(map[string]any)
	if required, _ := a["required"].([]any); a["decision"] != "allowed" || len(required) != 1 || required[0] != "issues:read" {
		t.Errorf("the allowed read's authz: %v", a)
	}
}

// CheckHiddenCompletionIsUnknown: completing (complete, through the SDK's
// client, as the bearer token's caller "reader" or "admin"; the answer as
// JSON) a prompt or template hidden from the reader is answered byte for
// byte as a name the server does not know, with none of its values, and
// its completion code (c) does not run; the reader still gets what it may
// see, and the admin the hidden values. raw completes in raw bytes on the
// wire, where the hidden answer is no values too; nil skips that (a
// stateful server). prompt and template make the SDK's references.
func CheckHiddenCompletionIsUnknown[R any](t *testing.T, prompt, template func(string) R, complete, raw func(token string, ref R) string, c *Completions) {
	t.Helper()
	for _, r := range []struct{ hidden, unknown, visible R }{
		{prompt("secret_prompt"), prompt("no_such_prompt"), prompt("db_query")},
		{template("secret://{key}"), template("nope://{x}"), template("db://{name}/tables")},
	} {
		hidden, unknown := complete("reader", r.hidden), complete("reader", r.unknown)
		if hidden != unknown || strings.Contains(hidden, "prod-db-password") || strings.Contains(hidden, "aws-root-key") {
			t.Errorf("completing hidden %+v answered %s, an unknown name %s", r.hidden, hidden, unknown)
		}
		if got := complete("reader", r.visible); !strings.Contains(got, `"orders"`) {
			t.Errorf("completing visible %+v answered %s", r.visible, got)
		}
		if got := complete("admin", r.hidden); !strings.Contains(got, "prod-db-password") && !strings.Contains(got, "aws-root-key") {
			t.Errorf("the admin completing %+v got %s", r.hidden, got)
		}
		if raw != nil {
			hidden, unknown := raw("reader", r.hidden), raw("reader", r.unknown)
			if hidden != unknown || !strings.Contains(hidden, `"values":[]`) {
				t.Errorf("on the wire, completing hidden %+v answered %s, an unknown name %s", r.hidden, hidden, unknown)
			}
		}
	}
	for _, name := range []string{"secret_prompt", "secret://{key}"} {
		if n := c.Runs(name); n != 1 {
			t.Errorf("the completion code ran %d times for %s, want once (the admin's)", n, name)
		}
	}
}
