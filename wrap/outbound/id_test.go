package outbound_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

func TestIDs(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want outbound.ID
		ok   bool
	}{
		{`1`, outbound.NumberID(1), true},
		{`1.0`, outbound.NumberID(1), true},
		{`1e0`, outbound.NumberID(1), true},
		{`"1"`, outbound.StringID("1"), true},
		{`null`, outbound.ID{}, false},
		{`true`, outbound.ID{}, false},
		{`{}`, outbound.ID{}, false},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			got, ok := outbound.ParseID([]byte(tc.raw))
			if got != tc.want || ok != tc.ok {
				t.Errorf("ParseID(%s) = %v, %v; want %v, %v", tc.raw, got, ok, tc.want, tc.ok)
			}
		})
	}
	b, _ := json.Marshal([]outbound.ID{outbound.NumberID(7), outbound.StringID("x"), {}})
	if string(b) != `[7,"x",null]` {
		t.Errorf("marshal: %s", b)
	}
}
