// Package errbase is what mcpwrap's packages share about errors without
// making it part of errs' public vocabulary: the failures an MCP SDK reports
// (kinds an SDK adapter attaches with Mark, so that errs classifies them
// without importing the SDK; errs recognises them by name, see kinds.go),
// the nil-safe inspection of an error handed to an SDK (Guard), and the
// parsing of a Retry-After header. It imports nothing of mcpwrap, and errs
// does not import it. All of its functions are safe for concurrent use.
package errbase
