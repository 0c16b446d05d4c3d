package errs

// failureKind is a failure an MCP SDK reports with its own error values (a
// session that ended, an authorization required…). An SDK adapter marks
// its SDK's errors with such a kind (mcpwrap's internal/errbase.Mark, used
// by the mcp-go and go-sdk adapters) so that errs classifies them without
// importing the SDK. errs imports nothing of mcpwrap, so it does not know
// the marks' types: a mark matches a kind of errs through errors.Is by the
// kind's name, which both sides return from MCPFailureKind. The names are
// that contract; internal/errbase's tests and the adapters' check it.
type failureKind string

// The kinds errs classifies (see classify).
const (
	kindSessionEnded     failureKind = "session_ended"
	kindAuthRequired     failureKind = "auth_required"
	kindInvalidParams    failureKind = "invalid_params"
	kindResourceNotFound failureKind = "resource_not_found"
	kindInterrupted      failureKind = "interrupted"
	kindTransport        failureKind = "transport"
)

func (k failureKind) Error() string { return "MCP failure " + string(k) }

// MCPFailureKind names the kind, for the marks' Is methods.
func (k failureKind) MCPFailureKind() string { return string(k) }
