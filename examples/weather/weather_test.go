package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestDemo runs the example end to end: a real upstream that answers 429
// and 503, is stopped and restarted on the same port, a real MCP server and
// a real client.
func TestDemo(t *testing.T) {
	var out, logs bytes.Buffer
	if err := run(t.Context(), nil, &out, &logs); err != nil {
		t.Fatalf("demo failed: %v\n%s\n%s", err, out.String(), logs.String())
	}
	got := out.String()
	for _, want := range []string{
		"environment variable WEATHER_API_KEY is required but not set",
		"environment variable WEATHER_API_URL is required but not set",
		`upstream answers 429, Retry-After: 1         ok`,
		"the operation may have happened",
		"upstream order requests made:              1",
		"upstream weather-api refused the connection",
		`upstream weather-api is unavailable; retry after`,
		`upstream back on the same port               ok`,
		"breaker closed, 2 dials",
		"0 JSON-RPC errors on the wire",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if !strings.Contains(logs.String(), `"event":"retry","attempt":2,"wait_ms":1000`) {
		t.Errorf("the Retry-After wait is not in the log")
	}
	if t.Failed() {
		t.Log(got)
	}
}

func TestStartupChecksFailOnABadEnvironment(t *testing.T) {
	_, c := check(func(k string) (string, bool) {
		if k == "WEATHER_API_URL" {
			return "ftp://x", true
		}
		return "", false
	})
	if p := c.Problems(); len(p) != 2 || !strings.Contains(p[1], "absolute http(s) URL") {
		t.Fatalf("problems %q", p)
	}
}
