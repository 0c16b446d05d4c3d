// Package observe gives every tool call a JSON log line, an OpenTelemetry
// span and metrics following the MCP semantic conventions.
//
// It is being built; see the project's issues.
package observe
