// Package obs is the engine of a Wrapper's telemetry: the Observer the
// chain and the SDK adapters report each request to (Start, Recording.End,
// Began and Answered for the requests an SDK answers itself), which writes
// the call's one log line, span and metrics. What the line and the span may
// hold is internal/redact's to decide; NewLogger's lines are written by
// internal/logline. Users reach it through wrap.WithLogger,
// wrap.WithTelemetry and the observe package, whose options are funcs over
// Config and LoggerConfig.
//
// obs imports errs, redact and logline, never validate or wrap. An
// Observer is safe for concurrent use.
package obs
