package outbound_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

func TestOutcomeNames(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range outbound.Outcomes() {
		s := o.String()
		if seen[s] || strings.HasPrefix(s, "outcome(") {
			t.Errorf("bad or duplicate name %q", s)
		}
		seen[s] = true
		if back, ok := outbound.ParseOutcome(s); !ok || back != o {
			t.Errorf("ParseOutcome(%q) = %v, %v", s, back, ok)
		}
		var v struct {
			O outbound.Outcome
			L outbound.Layer
		}
		b, _ := json.Marshal(struct {
			O outbound.Outcome
			L outbound.Layer
		}{o, o.Layer()})
		if err := json.Unmarshal(b, &v); err != nil || v.O != o || v.L != o.Layer() {
			t.Errorf("JSON round trip of %s: %s -> %+v, %v", o, b, v, err)
		}
	}
	if n := len(outbound.Outcomes()); n != 12 {
		t.Errorf("%d outcomes; the docs say twelve", n)
	}
	for _, name := range []string{"TOOL_SUCCESS", "HTTP_ERROR", "JSONRPC_ERROR", "TOOL_ERROR", "INPUT_REQUIRED",
		"MALFORMED_JSON", "INVALID_ENVELOPE", "INVALID_TOOL_RESULT", "INCOMPLETE_STREAM", "NOT_TOOL_CALL_RESPONSE"} {
		if !seen[name] {
			t.Errorf("missing outcome %s", name)
		}
	}
	if outbound.Outcome(200).Valid() || outbound.Outcome(200).String() != "outcome(200)" {
		t.Error("out-of-range outcome")
	}
}
