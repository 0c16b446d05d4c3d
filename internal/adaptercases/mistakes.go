package adaptercases

import (
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
)

// Mistake is one call of TestClientMistakesAreWarnings: Call makes it, and
// the log line whose Key ("tool", "prompt", "resource") is Name must say
// WARN with the client-side Code.
type Mistake struct {
	Key, Name, Code string
	Call            func() error
}

// CheckClientMistakes: a client's mistake (an unknown name, invalid
// parameters) is answered with a JSON-RPC error (malformed says what is
// wrong with one, "" when nothing) and logged in logs once, at WARN, with
// its client-side code and jsonrpc_code -32602.
func CheckClientMistakes(t *testing.T, logs *logbuf.Buffer, malformed func(error) string, mistakes []Mistake) {
	t.Helper()
	for _, m := range mistakes {
		if err := m.Call(); err == nil || malformed(err) != "" {
			t.Errorf("%s %s: answered %v, want a JSON-RPC error", m.Key, m.Name, err)
		}
		lines, err := logs.Find(m.Key, m.Name)
		if err != nil || len(lines) != 1 {
			t.Errorf("%s %s: %d log lines (%v), want 1:\n%s", m.Key, m.Name, len(lines), err, logs.String())
			continue
		}
		if l := lines[0]; l["level"] != "WARN" || l["code"] != m.Code || l["jsonrpc_code"] != float64(-32602) {
			t.Errorf("%s %s: logged level=%v code=%v jsonrpc_code=%v, want WARN %s -32602", m.Key, m.Name, l["level"], l["code"], l["jsonrpc_code"], m.Code)
		}
	}
}
