package wrap_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the suite if a goroutine outlives it: retry waits, timeout
// drains and fatal-exit goroutines must all end. HTTP keep-alive connections
// are ignored: internal/testserver stops its server with a graceful
// Shutdown, which leaves connections that never sent a request open until
// their idle timeout; they belong to net/http, not to the chain.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
	)
}
