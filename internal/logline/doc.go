// Package logline is the logger behind obs.NewLogger: JSON lines, the bytes
// slog.JSONHandler writes for the same record, written by a hand-written
// encoder without its allocations; tint's coloured text on a terminal; an
// optional buffer that keeps a slow output off the caller's path. Its one
// way in is New; the observer writes its call lines through HandleAttrs
// and hands it CompactJSON and Appender values it writes as they are.
//
//	logger := logline.New(logline.Config{Output: os.Stderr})
//	defer logline.Flush(logger)
//
// logline imports redact, never obs. A logger of New is safe for
// concurrent use.
package logline
