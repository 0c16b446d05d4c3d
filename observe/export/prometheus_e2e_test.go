package export_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// EnvPrometheus is the base URL of a running Prometheus whose job "mcpwrap"
// scrapes one 127.0.0.1 port every second. .ci/run starts one and sets it;
// see e2eEnv for what happens when it is unset.
const EnvPrometheus = "MCPWRAP_PROMETHEUS_URL"

// TestPrometheusEndToEnd serves metrics with OTEL_METRICS_EXPORTER=prometheus
// (configured only through OTEL_* variables and Setup) on the port a real
// Prometheus scrapes, makes tool calls through an observed, wrapped server,
// and reads the call duration back through Prometheus' query API.
func TestPrometheusEndToEnd(t *testing.T) {
	base := strings.TrimSuffix(e2eEnv(t, EnvPrometheus, "bash .ci/run starts Prometheus and sets it"), "/")
	target := scrapeTarget(t, base)
	host, port, err := net.SplitHostPort(target)
	if err != nil {
		t.Fatal(err)
	}
	suffix := fmt.Sprintf("%08x", rand.Uint32()) // this run's series, whatever the server kept from earlier runs
	service, okTool, badTool := "mcpwrap-e2e-"+suffix, "forecast_"+suffix, "alerts_"+suffix
	setEnv(t, map[string]string{"OTEL_METRICS_EXPORTER": "prometheus", "OTEL_TRACES_EXPORTER": "none",
		"OTEL_EXPORTER_PROMETHEUS_HOST": host, "OTEL_EXPORTER_PROMETHEUS_PORT": port, "OTEL_SERVICE_NAME": service})
	tel, err := export.Setup(t.Context(), export.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := tel.Shutdown(t.Context()); err != nil {
			t.Error(err)
		}
	}()
	if want := "http://" + target + "/metrics"; tel.MetricsURL != want {
		t.Fatalf("MetricsURL = %q, Prometheus scrapes %q", tel.MetricsURL, want)
	}

	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(wrap.WithTelemetry(tel.Options()...))))
	s.AddTool(mcp.NewTool(okTool), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("sunny"), nil
	})
	s.AddTool(mcp.NewTool(badTool), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.Newf(errs.InvalidArgument, "parameter \"region\" is unknown")
	})
	conn := testserver.StartHTTP(t, s)
	for range 3 {
		if res, err := conn.Call(t.Context(), okTool, nil); err != nil || res.IsError {
			t.Fatalf("call %s: %v %+v", okTool, err, res)
		}
	}
	if res, err := conn.Call(t.Context(), badTool, nil); err != nil || !res.IsError {
		t.Fatalf("call %s: %v %+v", badTool, err, res)
	}

	for _, c := range []struct {
		query  string
		value  string
		labels map[string]string
	}{
		{`mcp_server_operation_duration_seconds_count{gen_ai_tool_name="` + okTool + `"}`, "3",
			map[string]string{"mcp_method_name": "tools/call", "job": "mcpwrap", "instance": target}},
		{`mcp_server_operation_duration_seconds_bucket{gen_ai_tool_name="` + okTool + `",le="+Inf"}`, "3", nil},
		{`mcp_server_operation_duration_seconds_count{gen_ai_tool_name="` + badTool + `"}`, "1",
			map[string]string{"mcp_method_name": "tools/call", "error_type": "tool_error"}},
		{`target_info{service_name="` + service + `"}`, "1", nil},
	} {
		labels := waitForSample(t, base, c.query, c.value)
		for k, want := range c.labels {
			if labels[k] != want {
				t.Errorf("%s: label %s = %q, want %q (all: %v)", c.query, k, labels[k], want, labels)
			}
		}
	}
}

// scrapeTarget asks Prometheus which address its job "mcpwrap" scrapes.
func scrapeTarget(t *testing.T, base string) string {
	t.Helper()
	var body struct {
		Data struct {
			ActiveTargets []struct {
				Labels    map[string]string `json:"labels"`
				ScrapeURL string            `json:"scrapeUrl"`
			} `json:"activeTargets"`
		} `json:"data"`
	}
	getJSON(t, base+"/api/v1/targets?state=active", &body)
	for _, tg := range body.Data.ActiveTargets {
		if tg.Labels["job"] != "mcpwrap" {
			continue
		}
		u, err := url.Parse(tg.ScrapeURL)
		if err != nil || u.Path != "/metrics" {
			t.Fatalf("job mcpwrap scrapes %q; want http://127.0.0.1:<port>/metrics", tg.ScrapeURL)
		}
		return u.Host
	}
	t.Fatalf("Prometheus at %s has no job mcpwrap: %+v", base, body.Data.ActiveTargets)
	return ""
}

// waitForSample polls an instant query until it returns one series with the
// value, and returns that series' labels.
func waitForSample(t *testing.T, base, query, value string) map[string]string {
	t.Helper()
	var last string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		var body struct {
			Status string `json:"status"`
			Data   struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Value  [2]any            `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		getJSON(t, base+"/api/v1/query?query="+url.QueryEscape(query), &body)
		if len(body.Data.Result) == 1 && fmt.Sprint(body.Data.Result[0].Value[1]) == value {
			return body.Data.Result[0].Metric
		}
		last = fmt.Sprintf("%s %+v", body.Status, body.Data.Result)
	}
	t.Fatalf("Prometheus never answered %s = %s (last: %s)", query, value, last)
	return nil
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("%s=%s but Prometheus does not answer: %v", EnvPrometheus, u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}
