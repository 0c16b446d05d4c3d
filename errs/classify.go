package errs

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// classify maps a standard error to a code and a sentence that is safe to
// show the model: it names the kind of failure, never addresses, paths or
// the upstream's own text.
func classify(err error) (Code, string) {
	switch {
	case err == nil:
		return Internal, ""
	case errors.Is(err, context.Canceled):
		return Canceled, "the request was cancelled before the tool finished"
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout, "the operation timed out"
	case errors.Is(err, syscall.ECONNREFUSED):
		return Unavailable, "the upstream service refused the connection"
	case errors.Is(err, syscall.ECONNRESET):
		return Unavailable, "the connection to the upstream service was reset"
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return Unavailable, "the connection to the upstream service was closed"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return Unavailable, "the upstream service is unreachable"
	case errors.Is(err, transport.ErrSessionTerminated):
		return Unavailable, "the session with the upstream MCP server ended"
	case errors.Is(err, transport.ErrAuthorizationRequired), errors.Is(err, transport.ErrOAuthAuthorizationRequired):
		return PermissionDenied, "the upstream MCP server requires authorization"
	case errors.Is(err, mcp.ErrInvalidParams):
		return InvalidArgument, "the upstream MCP server rejected the parameters"
	case errors.Is(err, mcp.ErrResourceNotFound):
		return NotFound, "the upstream resource was not found"
	case errors.Is(err, mcp.ErrRequestInterrupted):
		return Canceled, "the upstream request was interrupted"
	case errors.Is(err, fs.ErrNotExist):
		return NotFound, "not found"
	case errors.Is(err, fs.ErrPermission):
		return PermissionDenied, "permission denied"
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return Timeout, "the upstream service did not answer in time"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return Unavailable, "the upstream host name could not be resolved"
	}
	var certErr *x509.CertificateInvalidError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) {
		return Internal, ""
	}
	if onConnection(err) {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return Unavailable, "the upstream service closed the connection unexpectedly"
		}
		return Unavailable, "the request to the upstream service failed"
	}
	return Internal, ""
}

// onConnection reports whether err happened while talking to a peer: a
// *url.Error (net/http client), *net.OpError, or an mcp-go transport error.
func onConnection(err error) bool {
	var ue *url.Error
	var oe *net.OpError
	var te *transport.Error
	return errors.As(err, &ue) || errors.As(err, &oe) || errors.As(err, &te)
}

// HTTPError is the cause recorded by FromStatus: which upstream answered
// which status.
type HTTPError struct {
	Upstream   string
	StatusCode int
}

// Error returns e.g. "upstream weather-api answered HTTP 503".
func (e *HTTPError) Error() string {
	return "upstream " + e.Upstream + " answered HTTP " + strconv.Itoa(e.StatusCode)
}

// CodeForStatus maps an upstream HTTP status to a code. 2xx and 3xx map to
// Internal (they are not failures; callers check first).
func CodeForStatus(status int) Code {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge,
		http.StatusRequestURITooLong, http.StatusUnsupportedMediaType:
		return InvalidArgument
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
		return PermissionDenied
	case http.StatusNotFound, http.StatusGone:
		return NotFound
	case http.StatusConflict, http.StatusPreconditionFailed, http.StatusLocked:
		return Conflict
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return Timeout
	case http.StatusTooManyRequests:
		return RateLimited
	case http.StatusBadGateway, http.StatusServiceUnavailable:
		return Unavailable
	}
	if status > 500 && status < 600 && status != http.StatusNotImplemented {
		return Unavailable
	}
	return Internal
}

// FromStatus turns an upstream's HTTP answer into an error, or nil for a
// status below 400. upstream names the service for the model ("weather-api").
// A Retry-After header (seconds or an HTTP date) is kept for 429 and 503.
func FromStatus(upstream string, status int, header http.Header) error {
	if status < 400 {
		return nil
	}
	code := CodeForStatus(status)
	cause := &HTTPError{Upstream: upstream, StatusCode: status}
	msg := "upstream " + upstream + " answered HTTP " + strconv.Itoa(status)
	if t := http.StatusText(status); t != "" {
		msg += " " + t
	}
	var ra time.Duration
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		ra, _ = ParseRetryAfter(header.Get("Retry-After"), time.Now())
	}
	return Wrap(code, cause, msg, RetryAfter(ra))
}

// ParseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date,
// relative to now. It reports false for an empty or unparsable value; a date
// in the past gives 0, true.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		const maxSecs = int64(365 * 24 * time.Hour / time.Second)
		return time.Duration(min(secs, maxSecs)) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
