package errmap_test

import (
	"testing"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

// TestHandedErrorsSurviveInspection: what errs hands an SDK (Guard, and the
// RPCError of a classified error) survives errors.As for every target type,
// errors.Is and Unwrap, whatever the handler's error was. RPCError used to
// unwrap to a typed nil, on which mcp-go's errors.As for a resource's or
// prompt's error dereferenced nil.
func TestHandedErrorsSurviveInspection(t *testing.T) {
	var nilRPC *errs.Error
	for _, c := range errcases.Cases(30, 200) {
		t.Run(c.Name, func(t *testing.T) {
			err := func() (err error) {
				defer func() {
					if recover() != nil {
						err = nil // the handler itself panicked building it (fmt.Errorf reads its operands)
					}
				}()
				return c.Err()
			}()
			handed := map[string]error{
				"Guard":  errbase.Guard(err),
				"RPC":    errmap.ToJSONRPC(errs.Wrap(errs.Internal, err, ""), errmap.Request{Prompt: "p"}),
				"Shown":  errmap.ToJSONRPC(errs.Wrap(errs.Internal, err, ""), errmap.Request{Prompt: "p", Shown: "shown"}),
				"NilRPC": errmap.ToJSONRPC(nilRPC, errmap.Request{URI: "x://y"}),
			}
			for name, h := range handed {
				if h == nil {
					continue
				}
				for _, bad := range errcases.Probe(h) {
					t.Errorf("%s: %s", name, bad)
				}
			}
		})
	}
}
