package errmap_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// FuzzToResult feeds arbitrary codes, messages, causes and retry-after values
// through the one error->result mapping: it must never panic, always build a
// well-formed isError result whose structuredContent survives a JSON round
// trip, stay under errmap.MaxResultBytes whatever the message and violations
// hold, and never show a masked code's message or any cause text.
func FuzzToResult(f *testing.F) {
	f.Add(uint8(0), "db down", "password=hunter2", int64(0), "get", "c1", 1)
	f.Add(uint8(1), `parameter "days" must be between 1 and 14, got 30`, "", int64(0), "forecast", "", 0)
	f.Add(uint8(7), "quota", "429", int64(1500), "", "x", 3)
	f.Add(uint8(9), "config corrupt", "/etc/secret.yaml", int64(-5), "t", "id", 2)
	f.Add(uint8(200), "\x00\xff", "\n", int64(1<<62), "\"", "\\", -1)
	f.Add(uint8(1), "", "<&>", int64(0), "forecast", "c", 4095)
	f.Add(uint8(1), "\x02 a long message", "", int64(0), "t", "", 30)
	f.Fuzz(func(t *testing.T, code uint8, msg, cause string, retryMs int64, tool, id string, attempts int) {
		// Reach the caps whatever the fuzzer found: an even first byte makes
		// the message 64 KiB long, and attempts also picks how many
		// violations (up to 4 095) the error carries.
		if len(msg) > 0 && msg[0]%2 == 0 {
			msg = strings.Repeat(msg, 1+(64<<10)/len(msg))
		}
		vs := make([]errs.Violation, uint(attempts)%4096)
		for i := range vs {
			vs[i] = errs.Violation{Parameter: tool + strconv.Itoa(i), Rule: id, Expected: msg, Got: cause, Message: msg}
		}
		var err error = errs.Wrap(errs.Code(code), errors.New(cause), msg, errs.RetryAfter(time.Duration(retryMs)*time.Millisecond),
			errs.Violations(vs...), errs.Omitted(attempts))
		if code%3 == 0 {
			err = fmt.Errorf("wrapped: %w", err)
		}
		// The result as the mcp-go adapter sends it.
		res := mcpgoerr.Result(errmap.ToResult(err, errmap.Call{Tool: tool, ID: id, Attempts: attempts}))
		if res == nil || !res.IsError || len(res.Content) != 1 {
			t.Fatalf("malformed result %+v", res)
		}
		text := res.Content[0].(mcp.TextContent).Text
		if text == "" {
			t.Fatal("empty text for the model")
		}
		raw, jerr := json.Marshal(res)
		if jerr != nil {
			t.Fatalf("result does not marshal: %v", jerr)
		}
		if len(raw) > errmap.MaxResultBytes {
			t.Fatalf("result is %d bytes, over %d", len(raw), errmap.MaxResultBytes)
		}
		var back mcp.CallToolResult
		if jerr := json.Unmarshal(raw, &back); jerr != nil {
			t.Fatalf("result does not unmarshal: %v", jerr)
		}
		info, ok := mcpgo.InfoOf(&back)
		if !ok || info.Message != text {
			t.Fatalf("structured info lost in the round trip: %+v", info)
		}
		if !errs.Code(code).Public() && len(msg) > 3 && strings.Contains(text, msg) && !strings.Contains("internal error in tool the server log fatal shutting down do not retry call id"+tool+id, msg) {
			t.Fatalf("masked message shown: %q in %q", msg, text)
		}
	})
}
