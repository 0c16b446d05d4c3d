package wrap_test

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

type nilErr struct{ detail string }

func (e *nilErr) Error() string { return "failed: " + e.detail } // panics on a nil receiver

type panickyErr struct{}

func (panickyErr) Error() string { panic("Error method broke") }

// TestEveryRequestIsAnsweredAndLogged: a typed-nil error, an error whose
// Error method panics and a result that cannot be encoded used to drop the
// HTTP connection or go out as an empty 200 body logged as a success.
func TestEveryRequestIsAnsweredAndLogged(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("broken", "1.0.0", attached(wrap.New(wrap.WithLogger(logs.Logger()))))
	s.AddTool(mcp.NewTool("typed_nil"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var e *nilErr
		return nil, e
	})
	s.AddTool(mcp.NewTool("panicky_error"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, panickyErr{}
	})
	s.AddTool(mcp.NewTool("nan_result"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(map[string]any{"temp": math.NaN()}, "temp unknown"), nil
	})
	s.AddTool(mcp.NewTool("nan_meta"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := mcp.NewToolResultText("fine")
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{"score": math.Inf(1)}}
		return res, nil
	})
	s.AddTool(mcp.NewTool("structured_ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(map[string]any{"temp": 21.5}, "21.5"), nil
	})
	conn := testserver.StartHTTP(t, s)
	cases := []struct{ tool, cause string }{
		{"typed_nil", "<nil *wrap_test.nilErr>"},
		{"panicky_error", "<wrap_test.panickyErr.Error() panicked> the handler's error could not be read: Error method broke"},
		{"nan_result", "NaN"},
		{"nan_meta", "+Inf"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			conn.Wire.Reset()
			res, err := conn.Call(t.Context(), c.tool, nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			if info, _ := mcpgo.InfoOf(res); !res.IsError || info.Code != "internal" {
				t.Fatalf("want an internal isError result, got %+v", res)
			}
			for _, r := range conn.Wire.Responses() {
				if r.ReadErr != nil {
					t.Fatalf("the answer broke off: %v", r.ReadErr)
				}
			}
			lines, err := callLines(&logs, c.tool)
			if err != nil || len(lines) != 1 {
				t.Fatalf("want one log line, got %v (%v)", lines, err)
			}
			if cause, _ := lines[0]["cause"].(string); lines[0]["outcome"] != "internal" || !strings.Contains(cause, c.cause) {
				t.Fatalf("log line %v, want outcome internal and a cause naming %q", lines[0], c.cause)
			}
		})
	}
	res, err := conn.Call(t.Context(), "structured_ok", nil)
	if err != nil || res.IsError || res.StructuredContent == nil {
		t.Fatalf("an encodable structured result was changed: %v %+v", err, res)
	}
}

type weatherKeyArgs struct {
	City   string `json:"city" validate:"required"`
	APIKey string `json:"api_key" mcpwrap:"secret"`
	Pin    string `json:"code" mcpwrap:"secret"`
}

// TestSecretsNeverEchoedInErrorResults: a handler that puts an argument in
// its error message used to send a secret back to the model (and into the
// client's transcript) while the log line redacted it.
func TestSecretsNeverEchoedInErrorResults(t *testing.T) {
	const key, pin, token = "k-41f9e2d7c0", "8842", "sk-abcdefghijklmnopqrstuvwx"
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()))
	s := server.NewMCPServer("weather", "1.0.0", attached(w))
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("forecast"), func(_ context.Context, _ mcp.CallToolRequest, a weatherKeyArgs) (*mcp.CallToolResult, error) {
		return nil, errs.Newf(errs.NotFound, "no weather for %s with key %s and code %s", a.City, a.APIKey, a.Pin)
	}))
	s.AddTool(mcp.NewTool("plain"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.Newf(errs.PermissionDenied, "upstream refused %s (password=%s)", req.GetString("token", ""), req.GetString("password", ""))
	})
	conn := testserver.StartHTTP(t, s)
	res := conn.CallRaw(t, "forecast", `{"city":"Paris","api_key":"`+key+`","code":"`+pin+`"}`)
	sc, _ := json.Marshal(res.StructuredContent)
	for _, leak := range []string{key, pin} {
		if strings.Contains(firstText(res), leak) || strings.Contains(string(sc), leak) {
			t.Fatalf("secret %q sent back to the model: %q %s", leak, firstText(res), sc)
		}
	}
	if !strings.Contains(firstText(res), "no weather for Paris with key [REDACTED]") {
		t.Fatalf("the rest of the message was lost: %q", firstText(res))
	}
	res = conn.CallRaw(t, "plain", `{"token":"`+token+`","password":"hunter2!"}`)
	sc, _ = json.Marshal(res.StructuredContent)
	for _, leak := range []string{token, "hunter2!"} {
		if strings.Contains(firstText(res), leak) || strings.Contains(string(sc), leak) {
			t.Fatalf("secret %q sent back to the model: %q %s", leak, firstText(res), sc)
		}
	}
	if strings.Contains(logs.String(), key) || strings.Contains(logs.String(), token) {
		t.Fatalf("secret in the log: %s", logs.String())
	}
}

// hangingFiles serves, with the timeout given, tools whose handlers hang
// until the test ends: copy_file (unannotated), stat_file (read-only) and
// put_file (idempotent).
func hangingFiles(t *testing.T, timeout time.Duration) *testserver.Conn {
	t.Helper()
	release := make(chan struct{})
	hang := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return mcp.NewToolResultText("done"), nil
	}
	s := server.NewMCPServer("files", "1.0.0", attached(wrap.New(wrap.WithTimeout(timeout))))
	s.AddTool(mcp.NewTool("copy_file"), hang)
	s.AddTool(mcp.NewTool("stat_file", readOnly), hang)
	s.AddTool(mcp.NewTool("put_file", mcp.WithIdempotentHintAnnotation(true)), hang)
	conn := testserver.StartHTTP(t, s)
	t.Cleanup(func() { close(release) }) // before the server stops
	return conn
}

// TestTimeoutOfAWriteSaysSideEffectsArePossible: a timed-out write used to
// say only "may still complete", and a model repeated it.
func TestTimeoutOfAWriteSaysSideEffectsArePossible(t *testing.T) {
	conn := hangingFiles(t, 50*time.Millisecond)
	for tool, want := range map[string]string{"copy_file": "possible", "stat_file": "", "put_file": ""} {
		res, err := conn.Call(t.Context(), tool, nil)
		info, _ := mcpgo.InfoOf(res)
		if err != nil || info.Code != "timeout" || info.SideEffects != want {
			t.Fatalf("%s: %v %+v, want a timeout with sideEffects %q", tool, err, info, want)
		}
		if want == "possible" && !strings.Contains(info.Message, "may have happened") {
			t.Fatalf("%s: the message does not warn the model: %q", tool, info.Message)
		}
	}
}

// TestTimeoutOfAWriteIsNotRetryable: a timed-out write said retryable: true
// in structuredContent while its text said to check before calling it
// again.
func TestTimeoutOfAWriteIsNotRetryable(t *testing.T) {
	conn := hangingFiles(t, 20*time.Millisecond)
	for _, c := range []struct {
		tool      string
		retryable bool
	}{
		{"copy_file", false},
		{"stat_file", true},
	} {
		t.Run(c.tool, func(t *testing.T) {
			res, err := conn.Call(t.Context(), c.tool, nil)
			info, _ := mcpgo.InfoOf(res)
			if err != nil || info.Code != "timeout" {
				t.Fatalf("want a timeout: %v %+v", err, res)
			}
			checkFirst := strings.Contains(info.Message, "check before calling it again")
			if info.Retryable != c.retryable || checkFirst == c.retryable {
				t.Fatalf("retryable %v, sideEffects %q, text %q: want retryable %v, and the text to say check first only when not",
					info.Retryable, info.SideEffects, info.Message, c.retryable)
			}
		})
	}
}

type inviteArgs struct {
	Emails []string `json:"emails" validate:"dive,email"`
}

// TestOmittedViolationsSurviveTheSecretScrub: when the scrub removed a
// secret from one violation, the rebuilt error lost the count of the
// violations not listed, so the text said "and 11 more problems" while
// structuredContent said there were none.
func TestOmittedViolationsSurviveTheSecretScrub(t *testing.T) {
	w := wrap.New()
	s := server.NewMCPServer("mail", "1.0.0", attached(w))
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("invite"), func(context.Context, mcp.CallToolRequest, inviteArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("sent"), nil
	}))
	conn := testserver.StartHTTP(t, s)
	for _, c := range []struct {
		name   string
		secret string
	}{
		{"nothing to scrub", "not-an-address"},
		{"a secret scrubbed", "password=hunter2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			emails := make([]string, 31)
			for i := range emails {
				emails[i] = "bad" + strconv.Itoa(i)
			}
			emails[0] = c.secret
			args, _ := json.Marshal(inviteArgs{Emails: emails})
			res := conn.CallRaw(t, "invite", string(args))
			info, ok := mcpgo.InfoOf(res)
			if !ok || info.Code != "invalid_argument" {
				t.Fatalf("want invalid_argument, got %+v", res)
			}
			if strings.Contains(firstText(res), "hunter2") {
				t.Fatalf("secret sent back: %q", firstText(res))
			}
			if got, want := len(info.Violations)+info.OmittedViolations, len(emails); got != want {
				t.Fatalf("listed %d + omittedViolations %d = %d, want %d (text %q)",
					len(info.Violations), info.OmittedViolations, got, want, info.Message)
			}
		})
	}
}
