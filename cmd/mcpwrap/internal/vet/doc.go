// Package vet is the analysis suite behind `mcpwrap vet`: it finds the tool,
// resource and prompt handlers of mcp-go and go-sdk servers by their types
// and reports what will go wrong for the model or the operator before the
// server runs.
//
// The checks, one analyzer each (the name is the one //mcpwrap:ignore takes):
//
//	errtext    an error's text returned as a successful result
//	nilresult  return nil, nil from a handler
//	masked     a plain fmt.Errorf/errors.New reaching a tool handler's return, which mcpwrap masks
//	ctxlost    the handler's ctx not passed on (http.Get, Query, context.Background, time.Sleep in a loop)
//	gopanic    a goroutine started from a handler without a deferred recover
//	exit       log.Fatal*, os.Exit reachable from a handler
//	stdout     stdout writes reachable from handlers of a program that serves stdio
//	secret     a secret-named variable or field formatted into an error or result text
//	panic      what can panic (panic, constant index, nil map write, assertion without ok) in a handler nothing recovers
//	perrequest wrap.New inside a per-request server factory: build the Wrapper once
//
// Findings in same-package helpers up to four calls deep are reported at the
// helper's line. The command in cmd/mcpwrap runs Analyzers either over
// packages it loads (`mcpwrap vet ./...`) or under go vet
// (`go vet -vettool=$(command -v mcpwrap) ./...`).
package vet
