package adaptercases

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/linecases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/observe"
)

// CheckNewLoggerIsJSONHandler: lines makes the hostile calls of
// linecases.Calls to a server logging to l, through buf, and returns what
// buf.Stable gives. The lines of observe.NewLogger are byte for byte
// those of slog.NewJSONHandler, of which there are at least min, and hold
// none of linecases.Secrets.
func CheckNewLoggerIsJSONHandler(t *testing.T, lines func(l *slog.Logger, buf *logbuf.Buffer) string, min int) {
	t.Helper()
	var ref, ours logbuf.Buffer
	want := lines(slog.New(slog.NewJSONHandler(&ref, nil)), &ref)
	got := lines(observe.NewLogger(observe.WithLogOutput(&ours), observe.WithLogFormat("json")), &ours)
	if n := strings.Count(want, "\n"); n < min {
		t.Fatalf("JSONHandler wrote %d lines for %d calls:\n%s", n, len(linecases.Calls()), want)
	}
	if got != want {
		t.Fatalf("NewLogger wrote\n%s\nJSONHandler\n%s", got, want)
	}
	for _, s := range linecases.Secrets {
		if strings.Contains(ours.String(), s) {
			t.Errorf("NewLogger's lines hold %q", s)
		}
	}
}
