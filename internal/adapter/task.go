package adapter

import (
	"context"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Task is a tools/call an SDK runs as an MCP task. The chain decided at
// its creation whether it runs (authorization, the rate limit, the
// bulkhead, the per-caller bound of tasks); the adapter reports what the
// SDK did with it and runs the work. Its methods are safe for concurrent
// use.
type Task interface {
	// Created says the SDK created the task under id: the creation's log
	// line (outcome task_created) and span end.
	Created(ctx context.Context, id string)
	// NotCreated says the SDK answered the call with err instead
	// (call.ProtocolError): the line says so, and what the task held is
	// given back. The work never runs.
	NotCreated(ctx context.Context, err error)
	// Run runs the work through the inner layers with the task's budget
	// and returns its answer; ctx must not end with the creating request.
	// It returns context.Canceled too when Cancel ended the work.
	Run(ctx context.Context, req *call.Request, h call.Handler) (call.Answer, error)
	// Cancel ends the work, now or as soon as it starts.
	Cancel()
	// Release gives back what the task holds when the adapter cannot run
	// its work (the SDK runs it outside the chain).
	Release()
}

// StartTask runs the layers of w's chain that decide whether req runs,
// for a call the SDK is about to run as a task whose TTL is ttl (0:
// none). When they refuse it, ok is false and answer is what the call
// would be answered in place: the SDK must not create the task.
var StartTask func(ctx context.Context, w any, req *call.Request, ttl time.Duration) (t Task, answer call.Answer, ok bool)
