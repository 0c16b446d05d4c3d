package outbound_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

func TestOutcomeNames(t *testing.T) {
	seen := map[string]bool{}
	layers := map[outbound.Layer]bool{}
	for _, o := range outbound.Outcomes {
		s := string(o)
		if seen[s] || s == "" || strings.ToUpper(s) != s {
			t.Errorf("bad or duplicate name %q", s)
		}
		seen[s] = true
		layers[o.Layer()] = true
		var v struct {
			O outbound.Outcome
			L outbound.Layer
		}
		b, _ := json.Marshal(struct {
			O outbound.Outcome
			L outbound.Layer
		}{o, o.Layer()})
		if err := json.Unmarshal(b, &v); err != nil || v.O != o || v.L != o.Layer() || !strings.Contains(string(b), `"`+s+`"`) {
			t.Errorf("JSON round trip of %s: %s -> %+v, %v", o, b, v, err)
		}
	}
	if n := len(outbound.Outcomes); n != 12 {
		t.Errorf("%d outcomes; the docs say twelve", n)
	}
	for _, name := range []string{"TOOL_SUCCESS", "HTTP_ERROR", "JSONRPC_ERROR", "TOOL_ERROR", "INPUT_REQUIRED",
		"MALFORMED_JSON", "INVALID_ENVELOPE", "INVALID_TOOL_RESULT", "INCOMPLETE_STREAM", "NOT_TOOL_CALL_RESPONSE",
		"BODY_TOO_LARGE", "NETWORK_ERROR"} {
		if !seen[name] {
			t.Errorf("missing outcome %s", name)
		}
	}
	for _, l := range []outbound.Layer{outbound.LayerTransport, outbound.LayerProtocol, outbound.LayerInteraction, outbound.LayerApplication} {
		if !layers[l] {
			t.Errorf("no outcome at layer %s", l)
		}
	}
	if outbound.Outcome("NOPE").Layer() != outbound.LayerTransport {
		t.Error("an unknown outcome's layer")
	}
}
