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

	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// classify maps a standard error to a code and a sentence that is safe to
// show the model: it names the kind of failure, never addresses, paths or
// the upstream's own text.
func classify(err error) (Code, string) {
	code, r := classifyReason(err)
	return code, phrasings[r].generic
}

// reason is why a standard error failed, kept apart from its sentence so
// that FromUpstream can phrase the same reason with the upstream's name.
type reason uint8

const (
	reasonNone reason = iota
	reasonCanceled
	reasonTimedOut
	reasonRefused
	reasonReset
	reasonClosed
	reasonUnreachable
	reasonSessionEnded
	reasonAuthRequired
	reasonInvalidParams
	reasonResourceNotFound
	reasonInterrupted
	reasonNotFound
	reasonPermission
	reasonSlow
	reasonHostName
	reasonUnexpectedEOF
	reasonRequestFailed
	reasonBadURL
)

// phrasings gives each reason its sentence: generic (for From) and, when
// the reason concerns the upstream, the named form (for FromUpstream),
// before + the upstream's name + after.
var phrasings = [...]struct{ generic, before, after string }{
	reasonNone:             {},
	reasonCanceled:         {generic: "the request was cancelled before the tool finished"},
	reasonTimedOut:         {"the operation timed out", "upstream ", " did not answer in time"},
	reasonRefused:          {"the upstream service refused the connection", "upstream ", " refused the connection"},
	reasonReset:            {"the connection to the upstream service was reset", "the connection to upstream ", " was reset"},
	reasonClosed:           {"the connection to the upstream service was closed", "the connection to upstream ", " was closed"},
	reasonUnreachable:      {"the upstream service is unreachable", "upstream ", " is unreachable"},
	reasonSessionEnded:     {"the session with the upstream MCP server ended", "the session with upstream ", " ended"},
	reasonAuthRequired:     {"the upstream MCP server requires authorization", "upstream ", " requires authorization"},
	reasonInvalidParams:    {"the upstream MCP server rejected the parameters", "upstream ", " rejected the parameters"},
	reasonResourceNotFound: {"the upstream resource was not found", "the resource was not found on upstream ", ""},
	reasonInterrupted:      {"the upstream request was interrupted", "the request to upstream ", " was interrupted"},
	reasonNotFound:         {generic: "not found"},
	reasonPermission:       {generic: "permission denied"},
	reasonSlow:             {"the upstream service did not answer in time", "upstream ", " did not answer in time"},
	reasonHostName:         {"the upstream host name could not be resolved", "the host name of upstream ", " could not be resolved"},
	reasonUnexpectedEOF:    {"the upstream service closed the connection unexpectedly", "upstream ", " closed the connection unexpectedly"},
	reasonRequestFailed:    {"the request to the upstream service failed", "the request to upstream ", " failed"},
	reasonBadURL:           {generic: "an argument cannot be part of a URL (an invalid escape, a control character or a bad host); nothing was sent"},
}

// phrase returns the reason's sentence naming the upstream, or the generic
// one when the reason does not concern the upstream or name is empty.
func (r reason) phrase(name string) string {
	p := phrasings[r]
	if name == "" || p.before == "" {
		return p.generic
	}
	return p.before + name + p.after
}

// classifyReason maps a standard error to a code and the reason for it:
// first the sentinels its chain may match, in order, then the types it may
// hold.
func classifyReason(err error) (Code, reason) {
	if err == nil {
		return Internal, reasonNone
	}
	for _, s := range sentinelReasons {
		for _, target := range s.targets {
			if errors.Is(err, target) {
				return s.code, s.reason
			}
		}
	}
	return classifyTyped(err)
}

// sentinelReasons are the errors classifyReason matches with errors.Is, in
// the order it tries them.
var sentinelReasons = [...]struct {
	targets []error
	code    Code
	reason  reason
}{
	{[]error{context.Canceled}, Canceled, reasonCanceled},
	{[]error{context.DeadlineExceeded}, Timeout, reasonTimedOut},
	{[]error{syscall.ECONNREFUSED}, Unavailable, reasonRefused},
	{[]error{syscall.ECONNRESET}, Unavailable, reasonReset},
	{[]error{syscall.EPIPE, syscall.ECONNABORTED}, Unavailable, reasonClosed},
	{[]error{syscall.EHOSTUNREACH, syscall.ENETUNREACH}, Unavailable, reasonUnreachable},
	{[]error{errbase.SessionEnded}, Unavailable, reasonSessionEnded},
	{[]error{errbase.AuthRequired}, PermissionDenied, reasonAuthRequired},
	{[]error{errbase.InvalidParams}, InvalidArgument, reasonInvalidParams},
	{[]error{errbase.ResourceNotFound}, NotFound, reasonResourceNotFound},
	{[]error{errbase.Interrupted}, Canceled, reasonInterrupted},
	{[]error{fs.ErrNotExist}, NotFound, reasonNotFound},
	{[]error{fs.ErrPermission}, PermissionDenied, reasonPermission},
}

// classifyTyped maps an error that matched no sentinel by the types in its
// chain.
func classifyTyped(err error) (Code, reason) {
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return Timeout, reasonSlow
	}
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		return Unavailable, reasonHostName
	case badCertificate(err):
		return Internal, reasonNone
	case badURL(err):
		// The URL could not be built, mostly from the call's arguments:
		// nothing reached the upstream, and repeating the call cannot help.
		return InvalidArgument, reasonBadURL
	case !onConnection(err):
		return Internal, reasonNone
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Unavailable, reasonUnexpectedEOF
	}
	return Unavailable, reasonRequestFailed
}

// badCertificate reports whether err is a TLS certificate the client
// rejected: a fault of the deployment, not of the upstream's availability.
func badCertificate(err error) bool {
	var certErr *x509.CertificateInvalidError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	return errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr)
}

// badURL reports whether err is a URL that could not be parsed or escaped.
func badURL(err error) bool {
	var ue *url.Error
	var esc url.EscapeError
	var host url.InvalidHostError
	return (errors.As(err, &ue) && ue.Op == "parse") || errors.As(err, &esc) || errors.As(err, &host)
}

// onConnection reports whether err happened while talking to a peer: a
// *url.Error (net/http client), *net.OpError, or an SDK transport error
// (marked with errbase.Transport).
func onConnection(err error) bool {
	var ue *url.Error
	var oe *net.OpError
	return errors.As(err, &ue) || errors.As(err, &oe) || errors.Is(err, errbase.Transport)
}

// httpError is the cause recorded by FromStatus: which upstream answered
// which status.
type httpError struct {
	upstream string
	status   int
}

// Error returns e.g. "upstream weather-api answered HTTP 503".
func (e *httpError) Error() string {
	return "upstream " + e.upstream + " answered HTTP " + strconv.Itoa(e.status)
}

// CodeForStatus maps an upstream HTTP status to a code. 2xx and 3xx map to
// Internal (they are not failures; callers check first).
func CodeForStatus(status int) Code {
	if c, ok := statusCodes[status]; ok {
		return c
	}
	if status > 500 && status < 600 && status != http.StatusNotImplemented {
		return Unavailable
	}
	return Internal
}

// statusCodes are the codes of the HTTP statuses that say more than their
// class.
var statusCodes = map[int]Code{
	http.StatusBadRequest:            InvalidArgument,
	http.StatusUnprocessableEntity:   InvalidArgument,
	http.StatusRequestEntityTooLarge: InvalidArgument,
	http.StatusRequestURITooLong:     InvalidArgument,
	http.StatusUnsupportedMediaType:  InvalidArgument,
	http.StatusUnauthorized:          PermissionDenied,
	http.StatusForbidden:             PermissionDenied,
	http.StatusProxyAuthRequired:     PermissionDenied,
	http.StatusNotFound:              NotFound,
	http.StatusGone:                  NotFound,
	http.StatusConflict:              Conflict,
	http.StatusPreconditionFailed:    Conflict,
	http.StatusLocked:                Conflict,
	http.StatusRequestTimeout:        Timeout,
	http.StatusGatewayTimeout:        Timeout,
	http.StatusTooManyRequests:       RateLimited,
	http.StatusBadGateway:            Unavailable,
	http.StatusServiceUnavailable:    Unavailable,
}

// FromStatus turns an upstream's HTTP answer into an error, or nil for a
// status below 400. upstream names the service for the model ("weather-api").
// A Retry-After header (seconds or an HTTP date) is kept for 429 and 503.
func FromStatus(upstream string, status int, header http.Header) error {
	if status < 400 {
		return nil
	}
	code := CodeForStatus(status)
	cause := &httpError{upstream: upstream, status: status}
	msg := "upstream " + upstream + " answered HTTP " + strconv.Itoa(status)
	if t := http.StatusText(status); t != "" {
		msg += " " + t
	}
	var ra time.Duration
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		ra, _ = errbase.ParseRetryAfter(header.Get("Retry-After"), time.Now())
	}
	return Wrap(code, cause, msg, RetryAfter(ra))
}
