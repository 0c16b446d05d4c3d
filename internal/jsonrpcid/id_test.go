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
