package outboundtest

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseScenario(t *testing.T) {
	cases := []struct {
		in, out string
		check   func(scenario) bool
	}{
		{"", "baseline", nil},
		{"errors.http_status_sequence", "http_status_sequence?statuses=503,200", func(s scenario) bool { return slices.Equal(s.Statuses, []int{503, 200}) }},
		{"http_status_sequence?statuses=429,200&retry_after=3", "http_status_sequence?retry_after=3&statuses=429,200", func(s scenario) bool { return s.RetryAfter == 3 }},
		{"jsonrpc_error?code=-32001&call=2", "jsonrpc_error?call=2&code=-32001", func(s scenario) bool { return s.Code == -32001 && s.Call == 2 }},
		{"timeout.late_response?delay=50ms", "late_response?delay=50ms", func(s scenario) bool { return s.Delay == 50*time.Millisecond }},
		{"auth.token_lifecycle?until=3", "auth_token?until=3", func(s scenario) bool { return s.Until == 3 }},
		{"tool_error?sse=true", "tool_error?sse=true", func(s scenario) bool { return s.SSE }},
		{"tool_error?stray=true", "tool_error?stray=true", func(s scenario) bool { return s.Stray && !s.SSE }},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			s, err := parseScenario(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if s.String() != tc.out || (tc.check != nil && !tc.check(s)) {
				t.Errorf("parseScenario(%q) = %+v (%s), want %s", tc.in, s, s, tc.out)
			}
			again, err := parseScenario(s.String())
			if err != nil || again.String() != s.String() {
				t.Errorf("round trip: %v %v", again, err)
			}
		})
	}
	for _, bad := range []string{"nope", "http_status_sequence?statuses=abc", "jsonrpc_error?color=red", "late_response?delay=soon"} {
		if _, err := parseScenario(bad); err == nil {
			t.Errorf("parseScenario(%q) accepted", bad)
		}
	}
}

func TestControlEndpoint(t *testing.T) {
	k := NewServer("")
	defer k.Close()
	if err := k.SetScenario("a", "nope"); err == nil {
		t.Error("SetScenario accepted an unknown scenario")
	}
	if _, err := NewHandler("jsonrpc_error?color=red"); err == nil {
		t.Error("NewHandler accepted an unknown parameter")
	}
	resp, err := http.Post(k.Control+"?scenario=nope", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unknown scenario: %d, want 400", resp.StatusCode)
	}
	resp, err = http.Post(k.Control+"?session=a", "text/plain", strings.NewReader("tool_error"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("set: %d", resp.StatusCode)
	}
	resp, err = http.Get(k.Control)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 1024)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	if !strings.Contains(b.String(), `"session:a":"tool_error"`) {
		t.Errorf("GET shows %s", b.String())
	}
}
