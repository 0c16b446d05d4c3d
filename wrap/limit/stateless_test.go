package limit_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// statelessCaller connects a real mcp-go client to url with token as its
// bearer credential (none when empty) and returns a function calling
// "search" once.
func statelessCaller(t *testing.T, url, token string) func() mcpgoInfo {
	t.Helper()
	var h map[string]string
	if token != "" {
		h = map[string]string{"Authorization": "Bearer " + token}
	}
	c := testserver.Connect(t, url, h)
	return func() mcpgoInfo {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var req mcp.CallToolRequest
		req.Params.Name = "search"
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := mcpgo.InfoOf(res)
		return mcpgoInfo{Code: info.Code, Message: info.Message}
	}
}

type mcpgoInfo struct{ Code, Message string }

// TestRateLimitStatelessPerCredential: over mcp-go's stateless streamable
// HTTP (no session) the limit is per credential: alice using up hers
// leaves bob's intact; callers with no credential share one bucket, which
// the refusal says and the log says once.
func TestRateLimitStatelessPerCredential(t *testing.T) {
	var logs logbuf.Buffer
	lim := limit.New(limit.Rate{Limit: 2, Per: time.Minute}, limit.WithLogger(logs.Logger()))
	url := testserver.ServeLimitedSearch(t, lim)

	alice, bob := statelessCaller(t, url, "alice"), statelessCaller(t, url, "bob")
	alice()
	alice()
	if info := alice(); info.Code != "rate_limited" || !strings.Contains(info.Message, "per credential") {
		t.Fatalf("alice's third call: %+v", info)
	}
	if info := bob(); info.Code != "" {
		t.Fatalf("bob was limited by alice's calls: %+v", info)
	}
	anon1, anon2 := statelessCaller(t, url, ""), statelessCaller(t, url, "")
	anon1()
	anon1()
	if info := anon2(); info.Code != "rate_limited" || !strings.Contains(info.Message, "shared by all callers") {
		t.Fatalf("a caller without credential: %+v", info)
	}
	if n := strings.Count(logs.String(), "rate limit: calls without a session, credential or known address share one bucket"); n != 1 {
		t.Fatalf("want the shared bucket said once, got %d:\n%s", n, logs.String())
	}
}
