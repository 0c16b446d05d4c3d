// Package errbase is what mcpwrap's packages share about errors without
// making it part of errs' public vocabulary: the failures an MCP SDK reports
// (kinds an SDK adapter attaches with Mark, so that errs classifies them
// without importing the SDK), the one typed-nil guard (IsNil, NilValue,
// Usable) and the nil-safe inspection of an error handed to an SDK (Guard),
// and the parsing of a Retry-After header. It is a leaf: it imports nothing
// of mcpwrap, so errs may import it and stay the vocabulary every other
// package imports. All of its functions are safe for concurrent use.
package errbase
