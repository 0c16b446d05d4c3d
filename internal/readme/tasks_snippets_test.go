package readme

import (
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// docs/long-running.md: a task tool on mcp-go, attached as any server is.
func taskTool(logger *slog.Logger, policy authz.Policy, report server.TaskToolHandlerFunc) *server.MCPServer {
	s := server.NewMCPServer("reports", "1.0.0", server.WithTaskCapabilities(true, true, true))
	s.AddTaskTool(mcp.NewTool("report", mcp.WithTaskSupport(mcp.TaskSupportRequired), mcp.WithString("repo")), report)
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithAuthorization(policy)))
	return s
}

// docs/long-running.md: a task's budget and the per-caller bound.
func taskBounds(logger *slog.Logger) *wrap.Wrapper {
	w := wrap.New(wrap.WithLogger(logger), wrap.WithTaskTimeout(20*time.Minute), wrap.WithTasksPerCaller(4))
	return w
}
