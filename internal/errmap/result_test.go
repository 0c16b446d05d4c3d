package errmap_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
)

// resultSize is the length of a result as mcp-go puts it on the wire.
func resultSize(t testing.TB, res *mcp.CallToolResult) int {
	t.Helper()
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("result does not marshal: %v", err)
	}
	return len(raw)
}

func manyViolations(n int, filler string) []errs.Violation {
	vs := make([]errs.Violation, n)
	for i := range vs {
		p := "items[" + strconv.Itoa(i) + "]" + filler
		vs[i] = errs.Violation{Parameter: p, Rule: "type" + filler, Expected: "a string" + filler, Got: filler,
			Message: "parameter " + strconv.Quote(p) + " must be a string" + filler}
	}
	return vs
}

// TestToResultBoundedAnswer: an error holding megabytes of text or
// thousands of violations, built by any handler, used to come back in full.
func TestToResultBoundedAnswer(t *testing.T) {
	huge := strings.Repeat("<&\x01\"", 1<<18) // 1 MiB, every byte escaped by JSON
	cases := []struct {
		name     string
		err      error
		call     errmap.Call
		listed   int
		omitted  int
		inText   string
		notEmpty bool
	}{
		{"huge message", errs.New(errs.NotFound, huge), errmap.Call{Tool: "t"}, 0, 0, "…", true},
		{"huge invalid-argument message", errs.New(errs.InvalidArgument, huge), errmap.Call{Tool: "t"}, 0, 0, "…", true},
		{"thousands of violations", errs.New(errs.InvalidArgument, "", errs.Violations(manyViolations(50000, "")...)),
			errmap.Call{Tool: "t"}, errmap.MaxViolations, 50000 - errmap.MaxViolations, "and 49980 more", true},
		{"violations already cut by the binder", errs.New(errs.InvalidArgument, "", errs.Violations(manyViolations(3, "")...), errs.Omitted(7)),
			errmap.Call{Tool: "t"}, 3, 7, "and 7 more", true},
		{"huge violation fields", errs.New(errs.InvalidArgument, "", errs.Violations(manyViolations(100, huge[:1<<16])...)),
			errmap.Call{Tool: "t"}, -1, -1, "…", true},
		{"huge tool and call id", errs.New(errs.Unavailable, "down"), errmap.Call{Tool: huge, ID: huge, Attempts: 3,
			SideEffects: errmap.SideEffectsPossible}, 0, 0, "not retried automatically", true},
		{"huge message with many violations", errs.New(errs.InvalidArgument, huge, errs.Violations(manyViolations(500, huge[:4096])...)),
			errmap.Call{Tool: huge, ID: huge}, -1, -1, "…", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := errmap.ToResult(tc.err, tc.call)
			if n := resultSize(t, mcpgoerr.Result(res)); n > errmap.MaxResultBytes {
				t.Fatalf("result is %d bytes, want at most %d", n, errmap.MaxResultBytes)
			}
			info, ok := res.Info, res.Info.Code != ""
			if !ok {
				t.Fatal("no structured error")
			}
			text := res.Text
			if !strings.Contains(text, tc.inText) {
				t.Errorf("text %.200q… does not contain %q", text, tc.inText)
			}
			if tc.listed >= 0 && len(info.Violations) != tc.listed {
				t.Errorf("listed %d violations, want %d", len(info.Violations), tc.listed)
			}
			if tc.omitted >= 0 && info.OmittedViolations != tc.omitted {
				t.Errorf("omittedViolations = %d, want %d", info.OmittedViolations, tc.omitted)
			}
			if tc.listed < 0 && (len(info.Violations) == 0 || len(info.Violations)+info.OmittedViolations < 100) {
				t.Errorf("listed %d + omitted %d: lost count of the violations", len(info.Violations), info.OmittedViolations)
			}
		})
	}
}

// BenchmarkToResult shows the cost of building a result flat past the
// caps, whatever the error holds.
func BenchmarkToResult(b *testing.B) {
	for _, n := range []int{10, 1000, 50000} {
		err := errs.New(errs.InvalidArgument, "", errs.Violations(manyViolations(n, "")...))
		b.Run("violations="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = errmap.ToResult(err, errmap.Call{Tool: "t", ID: "c"})
			}
		})
	}
	for _, size := range []int{1 << 10, 64 << 10, 4 << 20} {
		err := errs.New(errs.NotFound, strings.Repeat("x", size))
		b.Run("message="+strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = errmap.ToResult(err, errmap.Call{Tool: "t", ID: "c"})
			}
		})
	}
}

// TestPossibleSideEffectsAreNotRetryable: a failure that may have acted
// upstream said retryable: true while its text told the model to check
// before calling again; the fields and the text now agree.
func TestPossibleSideEffectsAreNotRetryable(t *testing.T) {
	timeout := errs.New(errs.Timeout, `tool "copy_file" timed out after 30s; the operation may still complete upstream`)
	for _, tc := range []struct {
		name      string
		effects   errmap.SideEffects
		retryable bool
		says      string
	}{
		{"side effects possible", errmap.SideEffectsPossible, false, "check before calling it again"},
		{"nothing was done", errmap.SideEffectsNone, true, "nothing was done"},
		{"safe to repeat", errmap.SideEffectsUnknown, true, "may still complete upstream"},
		{"side effects happened", errmap.SideEffectsHappened, false, "its side effects happened: do not call it again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := errmap.ToResult(timeout, errmap.Call{Tool: "copy_file", SideEffects: tc.effects}).Info
			if info.Retryable != tc.retryable || !strings.Contains(info.Message, tc.says) {
				t.Fatalf("retryable %v, message %q; want retryable %v and a message saying %q",
					info.Retryable, info.Message, tc.retryable, tc.says)
			}
		})
	}
}
