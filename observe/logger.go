package observe

import (
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/lmittmann/tint"
	"golang.org/x/term"
)

// Environment variables read by NewLogger.
const (
	// EnvLogLevel sets the level: debug, info, warn or error (slog's names,
	// with offsets such as "warn+2" allowed). The default is info.
	EnvLogLevel = "MCPWRAP_LOG_LEVEL"
	// EnvLogFormat forces the format: json or text. The default is json
	// unless the output is a terminal.
	EnvLogFormat = "MCPWRAP_LOG_FORMAT"
)

// LoggerOption configures NewLogger.
type LoggerOption func(*loggerConfig)

type loggerConfig struct {
	w      io.Writer
	format string
	level  slog.Leveler
	getenv func(string) string
}

// LogTo sets where lines go (os.Stderr by default: on stdio servers stdout
// carries the protocol).
func LogTo(w io.Writer) LoggerOption { return func(c *loggerConfig) { c.w = w } }

// LogFormat forces "json" or "text" (colour, via tint), overriding
// EnvLogFormat and the terminal check.
func LogFormat(f string) LoggerOption { return func(c *loggerConfig) { c.format = f } }

// LogLevel sets the level, overriding EnvLogLevel.
func LogLevel(l slog.Leveler) LoggerOption { return func(c *loggerConfig) { c.level = l } }

// LogEnv replaces os.Getenv, for tests.
func LogEnv(getenv func(string) string) LoggerOption {
	return func(c *loggerConfig) { c.getenv = getenv }
}

// NewLogger returns the logger to give to WithLogger: JSON lines
// (slog.JSONHandler) when the output is not a terminal — in production and
// under a process manager — and tint's coloured text when it is. Level and
// format come from EnvLogLevel and EnvLogFormat unless set by options.
func NewLogger(opts ...LoggerOption) *slog.Logger {
	c := loggerConfig{w: os.Stderr, getenv: os.Getenv}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.level == nil {
		var lvl slog.Level
		if v := strings.TrimSpace(c.getenv(EnvLogLevel)); v != "" {
			if err := lvl.UnmarshalText([]byte(v)); err != nil {
				lvl = slog.LevelInfo
			}
		}
		c.level = lvl
	}
	format := c.format
	if format == "" {
		format = strings.ToLower(strings.TrimSpace(c.getenv(EnvLogFormat)))
	}
	if format == "" {
		format = "json"
		if isTerminal(c.w) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(tint.NewTextHandler(c.w, &tint.Options{Level: c.level, TimeFormat: time.TimeOnly, NoColor: !isTerminal(c.w)}))
	}
	return slog.New(slog.NewJSONHandler(c.w, &slog.HandlerOptions{Level: c.level}))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
