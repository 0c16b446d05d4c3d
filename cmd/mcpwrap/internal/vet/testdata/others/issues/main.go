// Command issues is a go-sdk server in github-mcp-server's style: tool
// constructors returning a tool and a typed handler, a deps struct, raw
// tools, a prompt. It imports mcpwrap, and the HTTP server has it attached;
// the stdio server built beside it registers straight with the SDK.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

var rawSchema = map[string]any{"type": "object"}

func newHTTPServer(d *deps, w *wrap.Wrapper) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "2.0.0"}, nil)
	gosdk.Attach(s, w)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, func(ctx context.Context, req *mcp.CallToolRequest, in IssueRefArgs) (*mcp.CallToolResult, IssueOut, error) {
		parts := []string{}
		if in.Repo != "" {
			parts = append(parts, in.Repo)
		}
		return nil, IssueOut{Title: parts[0]}, nil // clean: panic
	})
	s.AddTool(&mcp.Tool{Name: "raw_lookup", InputSchema: rawSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		_ = req.Params.Arguments
		return text(args["q"].(string)), nil // clean: panic
	})
	return s
}

// addTyped registers a typed tool; the stdio server uses it.
func addTyped[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(s, t, h)
}

func newStdioServer(d *deps, w *wrap.Wrapper) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "issues-stdio", Version: "2.0.0"}, nil)
	tool, getIssue := GetIssue(d)
	mcp.AddTool(s, tool, getIssue)
	tool, getIssueChecked := GetIssueChecked(d)
	mcp.AddTool(s, tool, getIssueChecked)
	tool, labelStats := LabelStats(d)
	mcp.AddTool(s, tool, labelStats)
	tool, listComments := ListComments(d)
	addTyped(s, tool, listComments)
	tool, getMe := GetMe(d)
	mcp.AddTool(s, tool, getMe)
	tool, serverInfo := ServerInfo(d)
	mcp.AddTool(s, tool, serverInfo)
	tool, serverInfoSafe := ServerInfoSafe(d)
	mcp.AddTool(s, tool, serverInfoSafe)
	owner := strings.Split(d.baseURL, "/")[0] // clean: panic
	slog.Info("serving", "owner", owner)
	s.AddTool(&mcp.Tool{Name: "search", InputSchema: rawSchema}, d.rawSearch)
	s.AddTool(&mcp.Tool{Name: "set_assignees", InputSchema: rawSchema}, d.setAssignees)
	s.AddPrompt(&mcp.Prompt{Name: "triage"}, triagePrompt)
	s.AddPrompt(&mcp.Prompt{Name: "any"}, unknownPrompt)
	gosdk.AddTool(s, w, &mcp.Tool{Name: "wrapped_lookup"}, func(ctx context.Context, req *mcp.CallToolRequest, in IssueRefArgs) (*mcp.CallToolResult, IssueOut, error) {
		var seen map[string]bool
		seen[in.Repo] = true // clean: panic
		return nil, IssueOut{}, nil
	})
	gosdk.Tool(s, w, &mcp.Tool{Name: "wrapped_raw", InputSchema: rawSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("not implemented") // clean: panic
	})
	return s
}

func main() {
	d := &deps{
		http:    http.DefaultClient,
		baseURL: "https://api.github.com",
		auth:    os.Getenv("GITHUB_PERSONAL_ACCESS_TOKEN"),
		cfg:     &serverConfig{Host: os.Getenv("GITHUB_HOST"), ClientSecret: os.Getenv("GITHUB_OAUTH_CLIENT_SECRET")},
	}
	w := wrap.New()
	if len(os.Args) > 1 && os.Args[1] == "stdio" {
		if err := newStdioServer(d, w).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			slog.Error("stdio", "err", err)
		}
		return
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newHTTPServer(d, w) }, nil)
	if err := http.ListenAndServe("127.0.0.1:8082", h); err != nil {
		slog.Error("serve", "err", err)
	}
}
