package obs

import (
	"log/slog"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// Authz is the authorization decision of one request, for its log line
// (the group "authz"), its span (mcpwrap.authz.*) and the denial metric.
// It holds no token and no claim: the subject (or its hash) and scopes.
type Authz struct {
	// Decision is allowed, denied, hidden, confirmed, declined or
	// unconfirmed (allowed without the confirmation the client could not
	// give).
	Decision string
	// Reason says why a request was not allowed: undeclared, scope,
	// read_only, check, declined, unconfirmable.
	Reason  string
	Subject string
	// Required, Granted and Missing are scopes.
	Required, Granted, Missing []string
}

// The decisions that are not an allowed call.
const (
	DecisionDenied   = "denied"
	DecisionHidden   = "hidden"
	DecisionDeclined = "declined"
)

// Denied reports whether the request was not allowed to run.
func (a *Authz) Denied() bool {
	switch a.Decision {
	case DecisionDenied, DecisionHidden, DecisionDeclined:
		return true
	}
	return false
}

func (a *Authz) logAttr() slog.Attr {
	attrs := make([]slog.Attr, 0, 6)
	attrs = append(attrs, slog.String("decision", a.Decision))
	if a.Reason != "" {
		attrs = append(attrs, slog.String("reason", a.Reason))
	}
	attrs = append(attrs, slog.String("subject", a.Subject))
	if a.Required != nil {
		attrs = append(attrs, slog.Any("required", a.Required))
	}
	attrs = append(attrs, slog.Any("granted", nonNil(a.Granted)))
	if len(a.Missing) > 0 {
		attrs = append(attrs, slog.Any("missing", a.Missing))
	}
	return slog.Attr{Key: semconv.KeyAuthz, Value: slog.GroupValue(attrs...)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (a *Authz) spanAttrs() []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String(semconv.AttrAuthzDecision, a.Decision),
		attribute.String(semconv.AttrAuthzSubject, a.Subject),
		attribute.StringSlice(semconv.AttrAuthzGranted, nonNil(a.Granted)),
	}
	if a.Reason != "" {
		attrs = append(attrs, attribute.String(semconv.AttrAuthzReason, a.Reason))
	}
	if a.Required != nil {
		attrs = append(attrs, attribute.StringSlice(semconv.AttrAuthzRequired, a.Required))
	}
	if len(a.Missing) > 0 {
		attrs = append(attrs, attribute.StringSlice(semconv.AttrAuthzMissing, a.Missing))
	}
	return attrs
}
