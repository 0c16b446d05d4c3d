package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"
)

// Checks collects start-up problems — a missing required environment
// variable, an unreadable or corrupt configuration file — so that all of
// them are reported at once, before the server serves anything:
//
//	var c process.Checks
//	key := c.Env("WEATHER_API_KEY")
//	base := c.EnvURL("WEATHER_API_URL")
//	c.JSONFile(*configPath, &conf)
//	c.MustPass(logger) // logs every problem and exits with ExitConfig
//
// The zero value is ready to use. A Checks is not safe for concurrent use;
// checks run in main, one after the other.
type Checks struct {
	// LookupEnv reads the settings; nil means os.LookupEnv. A server that
	// lets flags or a file override the environment passes a function
	// that reads them first.
	LookupEnv func(string) (string, bool)
	// exit ends the process in MustPass; nil means os.Exit (tests set it,
	// export_test.go).
	exit func(code int)

	problems []string
}

func (c *Checks) lookup(name string) (string, bool) {
	if c.LookupEnv != nil {
		return c.LookupEnv(name)
	}
	return os.LookupEnv(name)
}

// problem records a problem.
func (c *Checks) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// Check records err as a problem about what, if err is not nil, and reports
// whether err was nil.
func (c *Checks) Check(what string, err error) bool {
	if err != nil {
		c.problem("%s: %v", what, err)
	}
	return err == nil
}

// Env returns the value of a required environment variable; unset or empty
// is a problem. The value never appears in a problem, since it may be a
// secret.
func (c *Checks) Env(name string) string {
	v, ok := c.lookup(name)
	switch {
	case !ok:
		c.problem("environment variable %s is required but not set", name)
	case strings.TrimSpace(v) == "":
		c.problem("environment variable %s is required but empty", name)
	}
	return v
}

// EnvOr returns the value of an optional environment variable, or def when
// it is unset.
func (c *Checks) EnvOr(name, def string) string {
	if v, ok := c.lookup(name); ok {
		return v
	}
	return def
}

// EnvURL returns a required environment variable that must be an absolute
// http or https URL.
func (c *Checks) EnvURL(name string) *url.URL {
	v := c.Env(name)
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.problem("environment variable %s must be an absolute http(s) URL such as https://api.example.com", name)
		return nil
	}
	return u
}

// EnvDuration returns an optional environment variable parsed with
// time.ParseDuration, or def when it is unset; a malformed or negative
// value is a problem.
func (c *Checks) EnvDuration(name string, def time.Duration) time.Duration {
	v, ok := c.lookup(name)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < 0 {
		// The value is not quoted: a secret set in the wrong variable
		// must not reach the log.
		c.problem("environment variable %s is not a duration such as 5s or 1m30s", name)
		return def
	}
	return d
}

// File returns the contents of a required file; a missing or unreadable
// file is a problem.
func (c *Checks) File(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		c.problem("config file %s: %s", path, fileProblem(err))
		return nil
	}
	return b
}

// JSONFile decodes a required JSON file into v. A missing file, a syntax
// error (with its line and column), a wrong type or an unknown field is a
// problem.
func (c *Checks) JSONFile(path string, v any) {
	b := c.File(path)
	if b == nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("unexpected data after the top-level value")
	}
	if err != nil {
		c.decodeProblem(path, b, err)
	}
}

// decodeProblem reports err, from decoding the config file path holding
// b, with the line and column where it can tell them.
func (c *Checks) decodeProblem(path string, b []byte, err error) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(b, syn.Offset)
		c.problem("config file %s: line %d, column %d: %v", path, line, col, err)
	case errors.As(err, &typ):
		line, col := position(b, typ.Offset)
		// Only the kind of the value ("number", not "number 1234"): the
		// value may be a secret.
		kind, _, _ := strings.Cut(typ.Value, " ")
		c.problem("config file %s: line %d, column %d: field %q must be %s, got %s", path, line, col, typ.Field, typ.Type, kind)
	case errors.Is(err, io.EOF):
		c.problem("config file %s: empty", path)
	default:
		c.problem("config file %s: %v", path, err)
	}
}

func fileProblem(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "does not exist"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

func position(b []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

// Problems returns every problem found so far, in order.
func (c *Checks) Problems() []string { return append([]string(nil), c.problems...) }

// MustPass returns if every check passed. Otherwise it reports every
// problem — as one error line on logger, or as plain text on stderr when
// logger is nil — and exits with ExitConfig.
func (c *Checks) MustPass(logger *slog.Logger) {
	if len(c.problems) == 0 {
		return
	}
	if logger != nil {
		logger.LogAttrs(context.Background(), slog.LevelError, "start-up checks failed; exiting",
			slog.Any("problems", c.Problems()), slog.Int("exit_code", ExitConfig))
	} else {
		fmt.Fprintf(os.Stderr, "start-up checks failed (%d problem(s)); exiting with status %d:\n", len(c.problems), ExitConfig)
		for _, p := range c.problems {
			fmt.Fprintf(os.Stderr, "  - %s\n", p)
		}
	}
	exit := c.exit
	if exit == nil {
		exit = os.Exit
	}
	exit(ExitConfig)
}
