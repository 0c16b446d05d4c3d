package export

import "log/slog"

// Option configures Setup. Options are applied once, in Setup.
type Option func(*config)

type config struct {
	service, version string
	logger           *slog.Logger
}

// WithServiceName sets service.name when OTEL_SERVICE_NAME (or service.name
// in OTEL_RESOURCE_ATTRIBUTES) does not; the default is the executable's
// name.
func WithServiceName(name string) Option { return func(c *config) { c.service = name } }

// WithServiceVersion sets service.version.
func WithServiceVersion(v string) Option { return func(c *config) { c.version = v } }

// WithLogger sets where export failures are reported: once when an
// exporter starts failing (with the cause and, for a backend that refuses a
// signal, what to set instead) and once when it recovers, never per batch.
// Without it (or with nil) slog.Default() is used.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }
