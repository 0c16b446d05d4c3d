package wrap_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// tenantQuota is a limiter a user writes: one call per tenant header, with
// no mcpwrap type in its method.
type tenantQuota struct {
	mu   sync.Mutex
	seen map[string]bool
	got  []string
}

func (q *tenantQuota) Admit(_ context.Context, tool, session string, header http.Header) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.got = append(q.got, tool+"|"+session+"|"+header.Get("X-Tenant"))
	tenant := header.Get("X-Tenant")
	if q.seen[tenant] {
		return errs.Newf(errs.RateLimited, "tenant %s has used its call", tenant)
	}
	q.seen[tenant] = true
	return nil
}

// TestOwnLimiterRunsBeforeTheHandler: any type with wrap.Limiter's method
// can be given to WithLimit; its refusal is the call's answer and the
// handler does not run.
func TestOwnLimiterRunsBeforeTheHandler(t *testing.T) {
	q := &tenantQuota{seen: map[string]bool{}}
	ran := 0
	h := mcpgo.Tool(wrap.New(wrap.WithLimit(q)), mcp.NewTool("lookup"),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ran++
			return mcp.NewToolResultText("ok"), nil
		}).Handler
	var req mcp.CallToolRequest
	req.Params.Name = "lookup"
	req.Header = http.Header{"X-Tenant": {"acme"}}
	for i, want := range []bool{false, true} {
		res, err := h(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != want {
			t.Fatalf("call %d: isError %v, want %v (%v)", i, res.IsError, want, res.Content)
		}
	}
	text := mcp.GetTextFromContent(mustLast(t, func() (*mcp.CallToolResult, error) { return h(context.Background(), req) }).Content[0])
	if !strings.Contains(text, "tenant acme has used its call") {
		t.Fatalf("refusal %q does not carry the limiter's message", text)
	}
	if ran != 1 {
		t.Fatalf("the handler ran %d times, want 1", ran)
	}
	if q.got[0] != "lookup||acme" {
		t.Fatalf("the limiter saw %q, want tool lookup, no session, tenant acme", q.got[0])
	}
}

func mustLast(t *testing.T, call func() (*mcp.CallToolResult, error)) *mcp.CallToolResult {
	t.Helper()
	res, err := call()
	if err != nil || res == nil || len(res.Content) == 0 {
		t.Fatalf("call: %v, %v", res, err)
	}
	return res
}
