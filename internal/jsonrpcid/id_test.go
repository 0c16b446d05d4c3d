package jsonrpcid_test

import (
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/jsonrpcid"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		ok        bool
	}{
		{`1`, `1`, true},
		{`1.0`, `1`, true},
		{`1e0`, `1`, true},
		{` -7 `, `-7`, true},
		{`1.5`, `1.5`, true},
		{`"1"`, `"1"`, true},
		{`"\u0031"`, `"1"`, true},
		{`"<a>"`, `"<a>"`, true},
		{`null`, ``, false},
		{`true`, ``, false},
		{`{}`, ``, false},
		{``, ``, false},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			got, ok := jsonrpcid.Parse([]byte(tc.raw))
			if got != tc.want || ok != tc.ok {
				t.Errorf("Parse(%s) = %s, %v; want %s, %v", tc.raw, got, ok, tc.want, tc.ok)
			}
		})
	}
	if jsonrpcid.Canonical(`1.0`) != `1` || jsonrpcid.Canonical(`abc`) != `abc` || jsonrpcid.Canonical(``) != `` {
		t.Error("Canonical")
	}
	if jsonrpcid.String("x") != `"x"` {
		t.Errorf("String(x) = %s", jsonrpcid.String("x"))
	}
}

// TestParseAsFloatMatchesMCPGo: an id mcp-go writes anew from its float64
// is the id of the request it answers; other ids stay apart.
func TestParseAsFloatMatchesMCPGo(t *testing.T) {
	same := [][2]string{{`1`, `1`}, {`1.0`, `1`}, {`1.50`, `1.5`}, {`9007199254740993`, `9007199254740992`}, {`"a"`, `"\u0061"`}}
	apart := [][2]string{{`"1"`, `1`}, {`2`, `1`}}
	for want, pairs := range map[bool][][2]string{true: same, false: apart} {
		for _, p := range pairs {
			a, okA := jsonrpcid.ParseAsFloat([]byte(p[0]))
			b, okB := jsonrpcid.ParseAsFloat([]byte(p[1]))
			if !okA || !okB || (a == b) != want {
				t.Errorf("ParseAsFloat(%s) = %s, %v; ParseAsFloat(%s) = %s, %v; want the same id: %v", p[0], a, okA, p[1], b, okB, want)
			}
		}
	}
	for _, raw := range []string{`null`, `true`, `{}`, ``, `1e999`, `-x`} {
		if got, ok := jsonrpcid.ParseAsFloat([]byte(raw)); ok {
			t.Errorf("ParseAsFloat(%s) = %s, true; want false", raw, got)
		}
	}
}
