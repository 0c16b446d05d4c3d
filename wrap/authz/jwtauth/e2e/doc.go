// Package e2e holds the end-to-end tests of authorization: real access
// tokens from Ory Hydra (internal/hydratest; .ci/run starts it), verified
// by jwtauth in front of real mcp-go and go-sdk servers, called by their
// real clients. It is a module of its own so that the SDKs the tests use
// are no requirement of jwtauth's.
package e2e
