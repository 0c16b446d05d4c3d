package adaptercases

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
)

// RawCallFunc calls tool with args as the raw arguments (none when args is
// ""), failing the test if the call itself fails, and returns whether the
// result is an error and its structuredContent.error.
type RawCallFunc func(t *testing.T, tool, args string) (isError bool, info errs.Info, ok bool)

// ObjectServer is the server of TestRawToolRefusesNonObjectArguments, with
// the chain attached and its log in Logs. Echo is a raw tool whose handler
// counts its runs in Ran; Refusing are the tools that refuse arguments
// that are not an object (Echo first), before their handler runs; Bound is
// a tool typed by the adapter, of a required string "city".
type ObjectServer struct {
	Call     RawCallFunc
	Refusing []string
	Ran      *atomic.Int32
	Logs     *logbuf.Buffer
	Bound    string
}

// CheckNonObjectArguments: MCP requires a call's arguments to be a JSON
// object; a call of each refusing tool with anything else is an
// invalid_argument isError result naming what was sent, logged at WARN,
// and its handler does not run. Null or absent arguments still reach the
// handler; the bound tool's answer lists what it expects.
func CheckNonObjectArguments(t *testing.T, s ObjectServer) {
	t.Helper()
	cases := []struct{ args, got string }{
		{`"text"`, "a string"}, {`[1]`, "an array"}, {`42`, "a number"}, {`true`, "a boolean"}, {` false`, "a boolean"},
	}
	for _, tool := range s.Refusing {
		for _, c := range cases {
			isError, info, ok := s.Call(t, tool, c.args)
			want := "the arguments must be a JSON object, got " + c.got
			if !isError || !ok || info.Code != "invalid_argument" || !strings.Contains(info.Message, want) {
				t.Errorf("%s %s: isError=%v info=%+v, want invalid_argument %q", tool, c.args, isError, info, want)
			}
		}
	}
	if n := s.Ran.Load(); n != 0 {
		t.Errorf("the handler ran %d times on non-object arguments", n)
	}
	for _, args := range []string{"", "null", `{}`, `{"text":"hi"}`} {
		if isError, info, _ := s.Call(t, s.Refusing[0], args); isError {
			t.Errorf("%q: refused: %+v", args, info)
		}
	}
	if n := s.Ran.Load(); n != 4 {
		t.Errorf("the handler ran %d times on null, absent and object arguments, want 4", n)
	}
	lines, err := s.Logs.Find("outcome", "invalid_argument")
	if want := len(s.Refusing) * len(cases); err != nil || len(lines) != want || lines[0]["level"] != "WARN" {
		t.Errorf("%d invalid_argument lines (%v), want %d at WARN: %v", len(lines), err, want, lines)
	}
	_, info, _ := s.Call(t, s.Bound, `"Paris"`)
	if want := `the arguments must be a JSON object, got a string; expected an object with "city" (required)`; !strings.Contains(info.Message, want) {
		t.Errorf("bound tool %s: %q, want %q", s.Bound, info.Message, want)
	}
}
