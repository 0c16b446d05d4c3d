package errbase

// Failures an SDK reports with its own error values: the one list of them.
// An SDK adapter (internal/mcpgoerr, wrap/gosdk) marks its SDK's errors
// with Mark; errs maps each kind to a code and a sentence (errs/classify.go).
var (
	// SessionEnded: the session with an upstream MCP server ended.
	SessionEnded error = &kind{"the MCP session ended"}
	// AuthRequired: an upstream MCP server requires authorization.
	AuthRequired error = &kind{"authorization required"}
	// InvalidParams: an MCP peer rejected the parameters (-32602).
	InvalidParams error = &kind{"invalid params"}
	// ResourceNotFound: an MCP peer has no such resource.
	ResourceNotFound error = &kind{"resource not found"}
	// Interrupted: an MCP request was interrupted.
	Interrupted error = &kind{"request interrupted"}
	// Transport: a failure of an SDK's client transport while talking to a
	// peer.
	Transport error = &kind{"transport error"}
)

// kind is one of the failures above.
type kind struct{ text string }

func (k *kind) Error() string { return k.text }

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

// Is matches the mark's kind.
func (m *marked) Is(target error) bool { return target == m.kind }
