// Package errbase is what errs shares with mcpwrap's other packages without
// making it part of errs' public vocabulary: the failures an MCP SDK reports
// (kinds an SDK adapter attaches with Mark, so that errs classifies them
// without importing the SDK), the nil-safe inspection of an error handed to
// an SDK (Guard), and the parsing of a Retry-After header. errs imports it;
// it imports nothing of mcpwrap. All of its functions are safe for
// concurrent use.
package errbase
