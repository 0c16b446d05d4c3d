package export_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// With OTEL_METRICS_EXPORTER=prometheus, Setup serves the call duration on
// a /metrics endpoint for Prometheus to scrape (here on a free port; by
// default localhost:9464).
func ExampleSetup_prometheus() {
	for k, v := range map[string]string{"OTEL_METRICS_EXPORTER": "prometheus",
		"OTEL_EXPORTER_PROMETHEUS_HOST": "127.0.0.1", "OTEL_EXPORTER_PROMETHEUS_PORT": "0"} {
		_ = os.Setenv(k, v)
		defer os.Unsetenv(k)
	}
	ctx := context.Background()
	tel, err := export.Setup(ctx, export.Config{ServiceName: "weather", Logger: slog.Default()})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tel.Shutdown(ctx)

	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithTelemetry(tel.Options()...)))
	s.AddTool(mcp.NewTool("get_forecast"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("sunny"), nil
	})
	s.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast"}}`))

	resp, err := http.Get(tel.MetricsURL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		if name, rest, _ := strings.Cut(sc.Text(), "{"); name == "mcp_server_operation_duration_seconds_count" {
			fmt.Println(name, strings.Contains(rest, `gen_ai_tool_name="get_forecast"`), rest[strings.LastIndex(rest, " ")+1:])
		}
	}
	// Output:
	// mcp_server_operation_duration_seconds_count true 1
}
