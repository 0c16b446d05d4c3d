package main

import (
	"bytes"
	"strings"
	"testing"
)

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
		`with mcpwrap:    isError=true  "invalid arguments for tool "get_forecast": parameter "days" must be between 1 and 14, got 30"`,
		`with mcpwrap:    isError=true  "tool "get_satellite" timed out after 500ms`,
		`with mcpwrap:    isError=true  "upstream weather-api answered HTTP 429 Too Many Requests; retry after 30s"`,
		"outcome=panic",
		"outcome=input_required",
		"0 JSON-RPC errors on the wrapped wire",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tour output lacks %q", want)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "with mcpwrap:") && strings.Contains(line, "s3cret") {
			t.Errorf("the model saw the DSN: %s", line)
		}
	}
	if t.Failed() {
		t.Log(got)
	}
}
