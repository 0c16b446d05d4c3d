package errbase

// Failures an SDK reports with its own error values. An SDK adapter
// (internal/mcpgoerr, wrap/gosdk) marks its SDK's errors with Mark; errs
// maps each kind to a code and a sentence.
//
// errs imports nothing of mcpwrap, so it cannot name these values: it
// recognises a kind by its name. errors.Is(err, target) matches a kind (or
// an error marked with it) when target has a method MCPFailureKind
// returning the same name, as errs' own kinds do. The names are that
// contract (errs/marks.go holds the other side).
var (
	// SessionEnded: the session with an upstream MCP server ended.
	SessionEnded error = &kind{"session_ended", "the MCP session ended"}
	// AuthRequired: an upstream MCP server requires authorization.
	AuthRequired error = &kind{"auth_required", "authorization required"}
	// InvalidParams: an MCP peer rejected the parameters (-32602).
	InvalidParams error = &kind{"invalid_params", "invalid params"}
	// ResourceNotFound: an MCP peer has no such resource.
	ResourceNotFound error = &kind{"resource_not_found", "resource not found"}
	// Interrupted: an MCP request was interrupted.
	Interrupted error = &kind{"interrupted", "request interrupted"}
	// Transport: a failure of an SDK's client transport while talking to a
	// peer.
	Transport error = &kind{"transport", "transport error"}
)

// kind is one of the failures above.
type kind struct{ name, text string }

func (k *kind) Error() string { return k.text }

// MCPFailureKind names the kind (see the contract above).
func (k *kind) MCPFailureKind() string { return k.name }

// Is matches another value of the same kind: errs' own.
func (k *kind) Is(target error) bool { return sameKind(k.name, target) }

// namedKind is what a kind of any package has: its name.
type namedKind interface{ MCPFailureKind() string }

func sameKind(name string, target error) bool {
	t, ok := target.(namedKind)
	return ok && t.MCPFailureKind() == name
}

// Mark returns err, unchanged in text and chain, also matching kind (one of
// the kinds above) with errors.Is. Mark(nil, kind) is nil.
func Mark(err, kind error) error {
	if err == nil {
		return nil
	}
	return &marked{err: Usable(err), kind: kind}
}

type marked struct{ err, kind error }

func (m *marked) Error() string { return m.err.Error() }
func (m *marked) Unwrap() error { return m.err }

// Is matches the mark's kind, by identity or by name.
func (m *marked) Is(target error) bool {
	if target == m.kind {
		return true
	}
	k, ok := m.kind.(namedKind)
	return ok && sameKind(k.MCPFailureKind(), target)
}
