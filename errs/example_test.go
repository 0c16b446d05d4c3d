package errs_test

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
)

func ExampleToResult() {
	err := errs.New(errs.RateLimited, "weather-api quota reached", errs.RetryAfter(30*time.Second))
	res := errs.ToResult(err, errs.Call{Tool: "get_forecast", ID: "4f2a"})
	info, _ := errs.InfoOf(res.Structured())
	fmt.Println(res.Text)
	fmt.Println(info.Code, info.Retryable, info.RetryAfterSeconds)
	// Output:
	// weather-api quota reached; retry after 30s
	// rate_limited true 30
}

func ExampleCodeOf() {
	err := fmt.Errorf("lookup: %w", errs.Newf(errs.NotFound, "no city named %q", "Atlantis"))
	fmt.Println(errs.CodeOf(err), errs.CodeOf(err).Retryable())
	// Output: not_found false
}

// brokenErr is a handler's error type whose methods dereference their
// receiver; a nil *brokenErr returned as an error is a typed nil.
type brokenErr struct{ msg string }

func (b *brokenErr) Error() string { return b.msg }
func (b *brokenErr) Unwrap() error { return fmt.Errorf("%s", b.msg) }

func ExampleGuard() {
	var typedNil *brokenErr
	g := errs.Guard(fmt.Errorf("load report: %w", io.ErrUnexpectedEOF))
	fmt.Println(g, errors.Is(g, io.ErrUnexpectedEOF))

	// A typed nil deep in a chain: errors.As and errors.Is on the guarded
	// error neither panic nor hand back the nil pointer.
	g = errs.Guard(errors.Join(io.EOF, typedNil))
	var b *brokenErr
	fmt.Println(errors.As(g, &b), errors.Is(g, io.EOF), errors.Unwrap(g) == nil)
	// Output:
	// load report: unexpected EOF true
	// false true true
}
