package export_test

import (
	"context"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// The docs' snippets that need this module compile here, not in
// internal/readme, whose module does not require the exporters.

// docs/telemetry.md: logs, spans and metrics.
func withSpans(ctx context.Context, logger *slog.Logger, opts ...server.ServerOption) error {
	tel, err := export.Setup(ctx, export.Config{ServiceName: "weather", Logger: logger}) // OTEL_* env
	if err != nil {
		return err
	}
	defer tel.Shutdown(context.Background()) // flushes; returns export failures
	s := server.NewMCPServer("weather", "1.0.0", opts...)
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTelemetry(tel.Options()...), wrap.WithTimeout(30*time.Second)))
	return server.ServeStdio(s)
}
