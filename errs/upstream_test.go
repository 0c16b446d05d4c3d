package errs_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
)

// TestFromUpstreamNamesTheUpstream: the sentence of a classified error
// names the upstream in its own words, with no trace of the generic
// "the upstream service" phrasing, and keeps From's code and cause.
func TestFromUpstreamNamesTheUpstream(t *testing.T) {
	refused := func() error {
		_, err := (&http.Client{}).Get("http://" + closedAddr(t) + "/")
		return err
	}()
	hung := func() error {
		ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		c := &http.Client{Timeout: 20 * time.Millisecond}
		_, err = c.Get("http://" + ln.Addr().String() + "/")
		return err
	}()
	deadline, cancel := context.WithTimeout(t.Context(), 0)
	defer cancel()
	<-deadline.Done()
	for _, tc := range []struct {
		name string
		err  error
		code errs.Code
		want string
	}{
		{"refused", refused, errs.Unavailable, "upstream weather-api refused the connection"},
		{"did_not_answer", hung, errs.Timeout, "upstream weather-api did not answer in time"},
		{"deadline", fmt.Errorf("get: %w", deadline.Err()), errs.Timeout, "upstream weather-api did not answer in time"},
		{"host_name", &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, errs.Unavailable,
			"the host name of upstream weather-api could not be resolved"},
		{"session_ended", mcpgoerr.Mark(transport.ErrSessionTerminated), errs.Unavailable, "the session with upstream weather-api ended"},
		{"canceled", context.Canceled, errs.Canceled, "the request was cancelled before the tool finished"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := errs.FromUpstream("weather-api", tc.err)
			if e.Code() != tc.code || e.Message() != tc.want || !errors.Is(e, tc.err) {
				t.Fatalf("FromUpstream = %v (message %q), want code %v, message %q", e, e.Message(), tc.code, tc.want)
			}
			if generic := errs.From(tc.err); generic.Code() != e.Code() {
				t.Fatalf("From says %v, FromUpstream %v", generic.Code(), e.Code())
			}
			if strings.Contains(e.Message(), "the upstream service") {
				t.Fatalf("message %q keeps the generic phrasing", e.Message())
			}
		})
	}
}

func TestFromUpstreamKeepsAnErrorThatIsAlreadyClassified(t *testing.T) {
	own := errs.New(errs.Unavailable, "the forecast service is in maintenance", errs.RetryAfter(time.Minute))
	if got := errs.FromUpstream("weather-api", fmt.Errorf("get: %w", own)); got != own {
		t.Fatalf("FromUpstream = %v, want the *Error in the chain", got)
	}
	if errs.FromUpstream("weather-api", nil) != nil {
		t.Fatal("FromUpstream(nil) is not nil")
	}
	// Without a name the sentence is From's.
	if got, want := errs.FromUpstream("", context.DeadlineExceeded).Message(), errs.From(context.DeadlineExceeded).Message(); got != want {
		t.Fatalf("unnamed: %q, want %q", got, want)
	}
}

// TestFromStatusErrorSaysItOnce: the message of a FromStatus error is
// worded from its cause, so Error() — the text of retry events and of the
// fatal line — said "rate_limited: upstream weather-api answered HTTP 429
// Too Many Requests: upstream weather-api answered HTTP 429".
func TestFromStatusErrorSaysItOnce(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
	}{
		{429, "rate_limited: upstream weather-api answered HTTP 429 Too Many Requests"},
		{503, "unavailable: upstream weather-api answered HTTP 503 Service Unavailable"},
		{599, "unavailable: upstream weather-api answered HTTP 599"}, // no status text
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			err := errs.FromStatus("weather-api", tc.status, nil)
			if got := err.Error(); got != tc.want {
				t.Fatalf("Error() = %q, want %q", got, tc.want)
			}
			if got := fmt.Errorf("get forecast: %w", err).Error(); got != "get forecast: "+tc.want {
				t.Fatalf("wrapped: %q", got)
			}
			if _, status, ok := errs.HTTPCause(err); !ok || status != tc.status {
				t.Fatalf("the cause is lost: %v", err)
			}
		})
	}
	// A cause that says something else is still appended.
	if got, want := errs.Wrap(errs.Unavailable, errors.New("dial tcp: refused"), "upstream down").Error(),
		"unavailable: upstream down: dial tcp: refused"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
}
