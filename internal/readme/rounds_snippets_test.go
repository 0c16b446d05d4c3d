package readme

import (
	"time"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// docs/authorization.md: replicas share the key of multi-round states.
func stateKey(p authz.Policy, key []byte) *wrap.Wrapper {
	w := wrap.New(wrap.WithAuthorization(p), wrap.WithStateKey(key))
	return w
}

// docs/long-running.md: the progress-aware timeout.
func progressTimeout() *wrap.Wrapper {
	w := wrap.New(wrap.WithProgressTimeout(30*time.Second, 10*time.Minute))
	return w
}
