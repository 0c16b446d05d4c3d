package wrap

import (
	"context"
	"strconv"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// Resources and prompts have no isError result: a failure is a JSON-RPC
// error (errmap.ToJSONRPC). They go through the same layers as tools, under
// the names the layers know them by (ForTool and Limiter document them):
//
//   - resourcesRead for every resources/read (ForTool("resources/read",
//     WithTimeout(d)) sets the timeout of resource reads),
//   - promptsGet + the prompt's name for a prompts/get: "prompts/get
//     summarize" (a prefix ending with the space, not the MCP method,
//     which authz.Request.Method calls "prompts/get").
const (
	resourcesRead = "resources/read"
	promptsGet    = "prompts/get "
)

// layerName is the name a request is known by to the layers (timeouts,
// bulkhead, the log line's tool for tools).
func layerName(req *call.Request) string {
	switch req.Kind {
	case call.Resource:
		return resourcesRead
	case call.Prompt:
		return promptsGet + req.Name
	}
	return req.Name
}

// finishRequest is finish for a resources/read or a prompts/get.
func finishRequest(ctx context.Context, cfg *config, rec *record, req *call.Request, o *outcome) answer {
	if a, done := settled(ctx, rec, o); done {
		return a
	}
	if o.err == nil {
		rec.outcome = obs.OutcomeSuccess
		rec.log(ctx)
		return answer{Result: o.res}
	}
	rq := requestOf(cfg, rec, req)
	if d := cfg.timeoutFor(); d > 0 && o.panic == nil && o.err.Code() == errs.Timeout && time.Since(rec.begin) >= d {
		o.err = errs.Wrap(errs.Timeout, o.err.Unwrap(), subjectOf(rq)+" timed out after "+d.String()+"; it may still complete upstream")
	}
	rec.failed(o)
	var rpc *errmap.RPCError
	if o.public {
		rec.public = true
		rq.Shown = publicText(o.err, req, cfg)
		rpc = errmap.ToJSONRPC(o.err, rq)
	} else {
		rpc = errmap.ToJSONRPC(result.ScrubError(o.err, cfg.red, req.Args, req.Header), rq)
	}
	rec.rpcCode = rpc.Code
	rec.log(ctx)
	cfg.triggerFatal(rec, o.err)
	return answer{RPC: rpc}
}

// requestOf is what the JSON-RPC error of a failed request names: the
// resource (its URI redacted) or the prompt.
func requestOf(cfg *config, rec *record, req *call.Request) errmap.Request {
	rq := errmap.Request{Modern: req.Modern, CallID: rec.id(), Attempts: int(rec.attempts)}
	if req.Kind == call.Resource {
		rq.URI = cfg.red.URI(req.Name)
	} else {
		rq.Prompt = req.Name
	}
	return rq
}

// subjectOf is the subject of a failed request's timeout message.
func subjectOf(rq errmap.Request) string {
	if rq.Prompt != "" {
		return "prompt " + strconv.Quote(rq.Prompt)
	}
	return "reading resource " + strconv.Quote(rq.URI)
}
