package wrap

import (
	"context"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
)

// The SDK adapters (wrap/mcpgo, wrap/gosdk) run a Wrapper's chain, give a
// tool its own chain and connect the SDK's hooks to the Wrapper's observer;
// a server's code must not, so these are not methods of Wrapper but
// functions in package internal/adapter, set here.
func init() {
	adapter.Chain = func(w any) adapter.Serve { return w.(*Wrapper).serveAll }
	adapter.Tool = func(w any, name string, info call.Info, bound bool, opts any) adapter.Serve {
		cfg := w.(*Wrapper).toolChain(name, info, bound, opts.([]Option))
		return func(ctx context.Context, req *call.Request, h call.Handler) call.Answer {
			return serve(ctx, req, h, cfg)
		}
	}
	adapter.Own = func(w any, name string) bool {
		_, ok := w.(*Wrapper).chains.Load(name)
		return ok
	}
	adapter.Observer = func(w any) *obs.Observer { return w.(*Wrapper).cfg.observer }
	adapter.Policy = func(w any) *policy.Engine { return w.(*Wrapper).cfg.policy }
	adapter.Keeps = func(w any) bool { return w.(*Wrapper).cfg.caches.On() }
	adapter.Changed = func(w any, kind call.Kind) {
		name := "" // a tool's answers may read what other tools are: all go
		if kind == call.Resource {
			name = resourcesRead
		}
		w.(*Wrapper).Forget(context.Background(), name)
	}
	adapter.StartTask = func(ctx context.Context, w any, req *call.Request, ttl time.Duration) (adapter.Task, call.Answer, bool) {
		t, a, ok := w.(*Wrapper).startTask(ctx, req, ttl)
		if !ok {
			return nil, a, false
		}
		return t, a, true
	}
}
