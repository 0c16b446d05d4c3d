package export

import "log/slog"

// Config names the service and says where export failures go. The zero
// Config takes the defaults.
type Config struct {
	// ServiceName is service.name when OTEL_SERVICE_NAME (or service.name
	// in OTEL_RESOURCE_ATTRIBUTES) does not set it; the default is the
	// executable's name.
	ServiceName string
	// ServiceVersion is service.version; none by default.
	ServiceVersion string
	// Logger receives export failures: once when an exporter starts
	// failing (with the cause and, for a backend that refuses a signal,
	// what to set instead) and once when it recovers, never per batch. Nil
	// means slog.Default().
	Logger *slog.Logger
}

type config struct {
	service, version string
	logger           *slog.Logger
}
