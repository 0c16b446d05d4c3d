package observe_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/observe"
)

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	t.Setenv(observe.EnvLogLevel, "warn")
	l := observe.NewLogger(observe.WithLogOutput(&buf))
	l.Info("hidden")
	l.Warn("shown", "k", 1)
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil || m["msg"] != "shown" {
		t.Fatalf("want one JSON line at warn, got %q (%v)", buf.String(), err)
	}
	buf.Reset()
	t.Setenv(observe.EnvLogFormat, "text")
	l = observe.NewLogger(observe.WithLogOutput(&buf), observe.WithLogLevel(slog.LevelDebug))
	l.Debug("colourful", "k", 1)
	if json.Valid(buf.Bytes()) || !strings.Contains(buf.String(), "colourful") || !strings.Contains(buf.String(), "k=1") {
		t.Fatalf("want tint text, got %q", buf.String())
	}
}
