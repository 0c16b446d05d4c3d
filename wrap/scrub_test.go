package wrap_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// scrubCases are plain errors as real servers return them (go-github's
// "GET <url>: 404 Not Found []" among them), what the model reads of each
// (shows, or the masked sentence when shows is ""; a shown plain error is
// followed by its call id), the errs code in structuredContent and what it
// must not read.
var scrubCases = []struct {
	tool, err, shows, code string
	never                  []string
}{
	{"issue_read", "failed to get issue: GET http://10.0.0.7:8080/api/v3/repos/o/r/issues/1: 404 Not Found []",
		"failed to get issue: GET http://[host]/api/v3/repos/o/r/issues/1: 404 Not Found []", "not_found", []string{"10.0.0.7"}},
	{"forbidden", "list repos: GET https://ghe.corp.internal/api/v3/user/repos?access_token=ghp_abcdefghijklmnopqrstuvwx: 403 Forbidden",
		"list repos: GET https://[host]/api/v3/user/repos?[REDACTED] 403 Forbidden", "permission_denied", []string{"corp.internal", "ghp_"}},
	{"unauthorized", "call billing: 401 Unauthorized (sent Authorization: Bearer abcdefghijklmnop1234)",
		"call billing: 401 Unauthorized (sent Authorization: [REDACTED])", "permission_denied", []string{"abcdefghijklmnop1234"}},
	{"conflict", "update branch: upstream answered HTTP 409: the branch moved", "update branch: upstream answered HTTP 409: the branch moved", "conflict", nil},
	{"throttled", "search: status code 429 from search.svc.cluster.local:9200", "search: status code 429 from [host]", "rate_limited", []string{"svc.cluster"}},
	{"not_a_status", "found 404 files older than a year; delete some first", "found 404 files older than a year; delete some first", "internal", nil},
	{"dsn", "open store: postgres://admin:hunter22@db.internal:5432/notes: connection refused",
		"open store: postgres://[host]/notes: connection refused", "internal", []string{"hunter22", "admin", "db.internal"}},
	{"stack", "decode reply: unexpected end of input\ngoroutine 7 [running]:\nmain.decode()\n\t/srv/app/decode.go:42 +0x1d",
		"decode reply: unexpected end of input\n[stack]", "internal", []string{"goroutine", "decode.go"}},
	{"nothing_left", "10.0.0.7:5432", "", "internal", []string{"10.0.0.7"}},
}

// TestErrorTextIsScrubbedNotMasked: a plain error whose text held a URL
// used to be masked whole ("internal error in tool …"), losing what bare
// mcp-go showed the model ("404 Not Found"). Now the model reads the text
// with its secrets and addresses replaced, a well-known client status keeps
// its code, text with nothing left worth reading stays masked, and the log
// line keeps the operator's view: the real address, secrets redacted, each
// part said once.
func TestErrorTextIsScrubbedNotMasked(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("github", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	for _, c := range scrubCases {
		s.AddTool(mcp.NewTool(c.tool), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New(c.err)
		})
	}
	conn := testserver.StartHTTP(t, s)
	for _, c := range scrubCases {
		t.Run(c.tool, func(t *testing.T) {
			res := conn.CallRaw(t, c.tool, `{}`)
			text := firstText(res)
			info, structured := mcpgo.InfoOf(res)
			shows := c.shows
			if c.code == "internal" && shows != "" {
				shows += " (call id " + info.CallID + ")"
			}
			switch {
			case !res.IsError:
				t.Fatalf("not an error: %q", text)
			case c.shows == "" && !strings.HasPrefix(text, `internal error in tool "`+c.tool+`" (call id `):
				t.Fatalf("model reads %q, want the masked sentence", text)
			case c.shows != "" && text != shows:
				t.Fatalf("model reads %q\nwant        %q", text, shows)
			case info.Code != c.code || !structured || info.CallID == "":
				t.Fatalf("code %q (structured %v, call id %q), want %q and a call id", info.Code, structured, info.CallID, c.code)
			}
			for _, n := range c.never {
				if strings.Contains(text, n) {
					t.Fatalf("the model reads %q in %q", n, text)
				}
			}
			lines, _ := callLines(&logs, c.tool)
			if len(lines) != 1 {
				t.Fatalf("%d log lines", len(lines))
			}
			cause, _ := lines[0]["cause"].(string)
			if masked := lines[0]["masked"] == true; masked != (c.shows == "") {
				t.Fatalf("log line masked=%v: %v", masked, lines[0])
			}
			for _, secret := range []string{"hunter22", "ghp_abcdefghijklmnopqrstuvwx", "abcdefghijklmnop1234"} {
				if strings.Contains(cause, secret) {
					t.Fatalf("the log line's cause holds a secret: %q", cause)
				}
			}
			if c.tool == "issue_read" && cause != "failed to get issue: GET http://10.0.0.7:8080/api/v3/repos/o/r/issues/1: 404 Not Found []" {
				t.Fatalf("the operator reads %q, want the address and each part once", cause)
			}
		})
	}
}

// TestLogCauseSaysEachThingOnce: a log line's cause used to repeat the
// handler's own words ("failed to get issue: upstream … refused the
// connection: failed to get issue: Get …").
func TestLogCauseSaysEachThingOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	var logs logbuf.Buffer
	s := server.NewMCPServer("github", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	s.AddTool(mcp.NewTool("get_issue"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/repos/o/r/issues/1", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("failed to get issue: %w", err)
		}
		resp.Body.Close()
		return mcp.NewToolResultText("?"), nil
	})
	conn := testserver.StartHTTP(t, s)
	res := conn.CallRaw(t, "get_issue", `{}`)
	if text := firstText(res); !strings.HasPrefix(text, "failed to get issue: the upstream service refused the connection") {
		t.Fatalf("model reads %q", text)
	}
	lines, _ := callLines(&logs, "get_issue")
	if len(lines) != 1 {
		t.Fatalf("%d log lines", len(lines))
	}
	cause, _ := lines[0]["cause"].(string)
	if n := strings.Count(cause, "failed to get issue"); n != 1 || !strings.Contains(cause, "refused the connection") ||
		!strings.Contains(cause, addr) || !strings.HasSuffix(cause, "connection refused") {
		t.Fatalf("cause %q: want the handler's words once, errs' sentence, the address and the cause", cause)
	}
}
