package main

import (
	"bytes"
	"net"
	"os"
	"strings"
	"testing"
)

// TestMain serves the bare go-sdk server when the tour starts this test
// binary as its child.
func TestMain(m *testing.M) {
	if serveGoSDKChild() {
		return
	}
	os.Exit(m.Run())
}

// TestTour runs the tour end to end: two real servers, a real client, and
// the comparison it prints must show the problem and the fix.
func TestTour(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatalf("tour failed: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"without mcpwrap: JSON-RPC error -32603",
		"without mcpwrap: connection dropped",
		": EOF", // the bare panic, in full
		"without mcpwrap: JSON-RPC error -32603: internal error: rate_limited: upstream weather-api answered HTTP 429",
		"retry after 30s\" [code=rate_limited retryable=true retryAfterSeconds=30]",
		"[code=unavailable retryable=true]",
		"trace_id=",
		`with mcpwrap:    isError=true  "invalid arguments for tool "get_forecast": parameter "days" must be between 1 and 14, got 30"`,
		`with mcpwrap:    isError=true  "tool "get_satellite" timed out after 500ms`,
		`with mcpwrap:    isError=true  "upstream weather-api answered HTTP 429 Too Many Requests; retry after 30s"`,
		"outcome=panic",
		"outcome=input_required",
		"with mcpwrap:    JSON-RPC error -32603: internal error: order service requires a signed session",
		"1 JSON-RPC error on the wrapped wire",
		// go-sdk: bare sends the secrets and dies of the panic.
		"without mcpwrap: JSON-RPC error 0: query orders: dial postgres://app:s3cret@db:5432/shop",
		`without mcpwrap: isError=true  "ldap bind failed: password=hunter2 rejected"`,
		"without mcpwrap: process dead",
		`with mcpwrap:    isError=true  "internal error in tool "get_alerts" (call id `,
		`with mcpwrap:    isError=true  "invalid arguments for tool "get_forecast": parameter "days" must be an integer, got a string"`,
		`with mcpwrap:    isError=false "3 days of sun in Rome"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tour output lacks %q", want)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "with mcpwrap:") && (strings.Contains(line, "s3cret") || strings.Contains(line, "hunter2")) {
			t.Errorf("the model saw the DSN: %s", line)
		}
		// The bare 429 loses the wait: only the wrapped answer may name it.
		if strings.HasPrefix(strings.TrimSpace(line), "without mcpwrap:") && strings.Contains(line, "429") &&
			strings.Contains(strings.ToLower(line), "retry") {
			t.Errorf("the bare 429 line mentions a retry, so the tour no longer shows what is lost: %s", line)
		}
	}
	if t.Failed() {
		t.Log(got)
	}
}

// TestTourSaysWhenExportFailed: with the OTLP endpoint on a dead port the
// tour must not claim its spans were exported.
func TestTourSaysWhenExportFailed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	_ = ln.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+dead)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatalf("tour failed: %v\n%s", err, out.String())
	}
	got := out.String()
	if strings.Contains(got, "Spans exported over OTLP") || !strings.Contains(got, "Span export FAILED") {
		t.Fatalf("the tour's closing lines do not say the export failed:\n%s", got[max(0, len(got)-600):])
	}
}
