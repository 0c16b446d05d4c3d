package errbase_test

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// brokenErr is a handler's error type whose methods dereference their
// receiver; a nil *brokenErr returned as an error is a typed nil.
type brokenErr struct{ msg string }

func (b *brokenErr) Error() string { return b.msg }
func (b *brokenErr) Unwrap() error { return fmt.Errorf("%s", b.msg) }

func ExampleGuard() {
	var typedNil *brokenErr
	g := errbase.Guard(fmt.Errorf("load report: %w", io.ErrUnexpectedEOF))
	fmt.Println(g, errors.Is(g, io.ErrUnexpectedEOF))

	// A typed nil deep in a chain: errors.As and errors.Is on the guarded
	// error neither panic nor hand back the nil pointer.
	g = errbase.Guard(errors.Join(io.EOF, typedNil))
	var b *brokenErr
	fmt.Println(errors.As(g, &b), errors.Is(g, io.EOF), errors.Unwrap(g) == nil)
	// Output:
	// load report: unexpected EOF true
	// false true true
}
