package wrap_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
)

// TestPromptLimiterKeyAsDocumented: a limit for one prompt is keyed
// "prompts/get " + the prompt's name ("prompts/get ok"), as Limiter's doc says
// now; it said "prompts/get " + " " + name, two spaces, a key no prompts/get
// ever has. A real mcp-go server and client get the prompt "ok" twice, then
// the prompt "bad": only the second "ok" is refused, and only with a
// one-prompt limit keyed as documented.
func TestPromptLimiterKeyAsDocumented(t *testing.T) {
	const refused = "allows 1 call per minute"
	cases := []struct {
		name, key string
		limited   bool
	}{
		{"prompts/get + name", "prompts/get " + "ok", true},
		{"the key spelled out", "prompts/get ok", true},
		{"two spaces match no prompt", "prompts/get " + " " + "ok", false},
		{"the method alone matches no prompt", "prompts/get", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lim := limit.New(limit.Rate{Limit: 1000, Per: time.Minute}, limit.WithTool(c.key, limit.Rate{Limit: 1, Per: time.Minute}))
			conn := testserver.StartHTTP(t, notesServer(t, attached(wrap.New(wrap.WithLimit(lim)))))
			if err := getPrompt(conn.Client, "ok"); err != nil {
				t.Fatalf("first get: %v", err)
			}
			err := getPrompt(conn.Client, "ok")
			if got := err != nil && strings.Contains(err.Error(), refused); got != c.limited {
				t.Errorf("second get of %q under the key %q: %v; want limited %v", "ok", c.key, err, c.limited)
			}
			if !c.limited && err != nil {
				t.Errorf("second get: %v", err)
			}
			if err := getPrompt(conn.Client, "bad"); err == nil || strings.Contains(err.Error(), refused) {
				t.Errorf("another prompt: %v, want its own error, not the limit", err)
			}
		})
	}
}
