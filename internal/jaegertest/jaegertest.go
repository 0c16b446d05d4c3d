// Package jaegertest reads traces back from the real Jaeger that .ci/run
// starts, for the end-to-end tests of both SDKs: where it listens, and a
// poll of its query API.
package jaegertest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// Variables naming the Jaeger of the end-to-end tests. .ci/run starts one
// on free ports and sets them; each unset port is Jaeger's default.
const (
	EnvHost         = "MCPWRAP_JAEGER_HOST"
	EnvQueryPort    = "MCPWRAP_JAEGER_QUERY_PORT"     // query API, default 16686
	EnvOTLPHTTPPort = "MCPWRAP_JAEGER_OTLP_HTTP_PORT" // OTLP over HTTP, default 4318
	EnvOTLPGRPCPort = "MCPWRAP_JAEGER_OTLP_GRPC_PORT" // OTLP over gRPC, default 4317
)

// Env returns the value of an end-to-end test's variable, which names a
// running backend. Unset, the test is skipped on a developer's machine but
// fails when CI is set (.ci/run sets it, as CI services do), so a CI run
// never passes without having talked to the backend.
func Env(t testing.TB, key, how string) string {
	t.Helper()
	if v := os.Getenv(key); v != "" {
		return v
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set but %s is not: %s", key, how)
	}
	t.Skipf("%s is not set; %s", key, how)
	return ""
}

// URLs are the base URLs of the end-to-end tests' Jaeger.
type URLs struct {
	Host, Query, OTLPHTTP, OTLPGRPC string
}

// At returns where the Jaeger of the environment listens (see Env).
func At(t testing.TB) URLs {
	t.Helper()
	host := Env(t, EnvHost, "bash .ci/run starts Jaeger and sets it")
	base := func(env, def string) string {
		port := os.Getenv(env)
		if port == "" {
			port = def
		}
		return "http://" + net.JoinHostPort(host, port)
	}
	return URLs{Host: host, Query: base(EnvQueryPort, "16686"),
		OTLPHTTP: base(EnvOTLPHTTPPort, "4318"), OTLPGRPC: base(EnvOTLPGRPCPort, "4317")}
}

// Span is a span as Jaeger's query API returns it.
type Span struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

// Tag returns the span's tag k as text, "" when it has none.
func (s Span) Tag(k string) string {
	for _, t := range s.Tags {
		if t.Key == k {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

// ChildOf reports whether the span's parent is the span with id parent.
func (s Span) ChildOf(parent string) bool {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" && strings.TrimLeft(r.SpanID, "0") == strings.TrimLeft(parent, "0") {
			return true
		}
	}
	return false
}

// WaitForSpans polls the query API until the trace of service has at
// least n spans, for up to 20 seconds.
func WaitForSpans(t testing.TB, query, service, traceID string, n int) []Span {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		resp, err := http.Get(query + "/api/traces?service=" + url.QueryEscape(service) + "&lookback=1h&limit=20")
		if err == nil {
			var body struct {
				Data []struct {
					TraceID string `json:"traceID"`
					Spans   []Span `json:"spans"`
				} `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			_ = resp.Body.Close()
			if err == nil {
				for _, tr := range body.Data {
					if strings.TrimLeft(tr.TraceID, "0") == strings.TrimLeft(traceID, "0") && len(tr.Spans) >= n {
						return tr.Spans
					}
				}
				last = fmt.Sprintf("%d traces", len(body.Data))
			}
		}
		if err != nil {
			last = err.Error()
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("trace %s of service %s never reached Jaeger (%s)", traceID, service, last)
	return nil
}
