package errmap_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

func TestToResult(t *testing.T) {
	secret := errors.New("dial 10.1.2.3:5432: password authentication failed for user admin")
	cases := []struct {
		name      string
		err       error
		text      string
		code      string
		retryable bool
		after     int64
	}{
		{"internal is masked", errs.Wrap(errs.Internal, secret, "db said no"), `internal error in tool "get" (call id c1); the details are in the server log`, "internal", false, 0},
		{"plain error is masked", secret, `internal error in tool "get" (call id c1)`, "internal", false, 0},
		{"fatal is masked", errs.Wrap(errs.Fatal, secret, "config corrupt"), "fatal error", "fatal", false, 0},
		{"invalid argument shows its message", errs.New(errs.InvalidArgument, `parameter "days" must be between 1 and 14, got 30`), `invalid arguments for tool "get": parameter "days" must be between 1 and 14, got 30`, "invalid_argument", false, 0},
		{"violations become the message", errs.New(errs.InvalidArgument, "", errs.Violations(
			errs.Violation{Parameter: "a", Rule: "required", Message: `parameter "a" is required`},
			errs.Violation{Parameter: "b", Rule: "max", Message: `parameter "b" must be at most 3, got 4`})),
			`parameter "a" is required; parameter "b" must be at most 3, got 4`, "invalid_argument", false, 0},
		{"rate limited carries retry-after", errs.New(errs.RateLimited, "quota reached", errs.RetryAfter(1500*time.Millisecond)), "quota reached; retry after 1.5s", "rate_limited", true, 2},
		{"unavailable invites a later retry", errs.Wrap(errs.Unavailable, secret, "weather-api did not answer"), "weather-api did not answer; retrying later may help", "unavailable", true, 0},
		{"timeout", errs.New(errs.Timeout, ""), "timed out; it may still complete upstream", "timeout", true, 0},
		{"nil error", nil, "internal error", "internal", false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := errmap.ToResult(tc.err, errmap.Call{Tool: "get", ID: "c1"})
			if res.Text == "" || res.Info.Code == "" {
				t.Fatalf("not a well-formed error result: %+v", res)
			}
			text := res.Text
			if !strings.Contains(text, tc.text) {
				t.Fatalf("text %q does not contain %q", text, tc.text)
			}
			if strings.Contains(text, "10.1.2.3") || strings.Contains(text, "admin") {
				t.Fatalf("operator detail leaked: %q", text)
			}
			info, ok := res.Info, res.Info.Code != ""
			if !ok || info.Code != tc.code || info.Retryable != tc.retryable || info.RetryAfterSeconds != tc.after || info.CallID != "c1" || info.Tool != "get" {
				t.Fatalf("info = %+v", info)
			}
		})
	}
}

// TestOutOfRangeCodeIsMasked: a Code converted from an out-of-range number
// used to show its message to the model (found by FuzzToResult).
func TestOutOfRangeCodeIsMasked(t *testing.T) {
	res := errmap.ToResult(errs.New(errs.Code(200), "select * from users"), errmap.Call{Tool: "t", ID: "c"})
	text := res.Text
	if strings.Contains(text, "select") {
		t.Fatalf("message of an unknown code shown: %q", text)
	}
	if info := res.Info; info.Code != "internal" {
		t.Fatalf("unknown code not treated as internal: %+v", info)
	}
}
