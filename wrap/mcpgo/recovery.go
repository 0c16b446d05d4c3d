package mcpgo

import (
	"errors"
	"reflect"
	"strings"
)

// mcp-go's server.WithRecovery and server.WithResourceRecovery recover a
// handler's panic themselves, inside the chain, and return it as a plain
// error, "panic recovered in <tool> tool handler: <value>" (<URI> resource
// handler for a resource): the chain would show the model the panic's
// text as a tool's error and log it as one, without the masking a panic
// gets. recovered finds such an error, and the handler the adapter hands
// the chain panics again with it, so the chain's recovery makes of it what
// it makes of any panic (masked, outcome panic; the stack is the adapter's,
// mcp-go dropped the handler's). TestRecoveredPanicSentencesOfMCPGo fails
// when an mcp-go upgrade changes the sentences.

// recoveredPanic is the value the adapter panics with: what mcp-go's
// recovery said.
type recoveredPanic struct{ text string }

func (p recoveredPanic) String() string {
	return "recovered by mcp-go's WithRecovery, stack lost: " + p.text
}

// errorString is the type errors.New and fmt.Errorf without %w return.
var errorString = reflect.TypeOf(errors.New(""))

// recovered reports whether err is mcp-go's recovery of a panic in the
// handler of name ("tool" or "resource").
func recovered(err error, kind, name string) (recoveredPanic, bool) {
	if reflect.TypeOf(err) != errorString {
		return recoveredPanic{}, false
	}
	s := err.Error()
	if !strings.HasPrefix(s, "panic recovered in "+name+" "+kind+" handler: ") {
		return recoveredPanic{}, false
	}
	return recoveredPanic{text: s}, true
}
