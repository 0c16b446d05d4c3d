package errs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
)

// closedAddr returns the address of a port that nobody listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// resetAddr returns an address whose server resets every connection.
func resetAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 1)
			_, _ = c.Read(buf) // wait until the client has written
			_ = c.(*net.TCPConn).SetLinger(0)
			_ = c.Close()
		}
	}()
	return ln.Addr().String()
}

// hangupServer closes every connection without answering: the client sees EOF.
func hangupServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = c.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func slowServer(t *testing.T) string {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv.URL
}

func statusServer(t *testing.T, status int, header map[string]string) *http.Response {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp
}

func TestCodeOfRealFailures(t *testing.T) {
	cases := []struct {
		name string
		err  func(t *testing.T) error
		want errs.Code
	}{
		{"dial to a closed port", func(t *testing.T) error {
			_, err := net.Dial("tcp", closedAddr(t))
			return err
		}, errs.Unavailable},
		{"http get to a closed port", func(t *testing.T) error {
			_, err := http.Get("http://" + closedAddr(t))
			return err
		}, errs.Unavailable},
		{"connection reset", func(t *testing.T) error {
			c, err := net.Dial("tcp", resetAddr(t))
			if err != nil {
				return err
			}
			defer c.Close()
			if _, err := c.Write([]byte("x")); err != nil {
				return err
			}
			_, err = c.Read(make([]byte, 1))
			return err
		}, errs.Unavailable},
		{"server hangs up without answering (EOF)", func(t *testing.T) error {
			_, err := http.Get(hangupServer(t))
			return err
		}, errs.Unavailable},
		{"context deadline on a slow upstream", func(t *testing.T) error {
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, slowServer(t), nil)
			_, err := http.DefaultClient.Do(req)
			return err
		}, errs.Timeout},
		{"http.Client timeout (net.Error)", func(t *testing.T) error {
			_, err := (&http.Client{Timeout: 50 * time.Millisecond}).Get(slowServer(t))
			return err
		}, errs.Timeout},
		{"cancelled context", func(t *testing.T) error {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, slowServer(t), nil)
			_, err := http.DefaultClient.Do(req)
			return err
		}, errs.Canceled},
		{"mcp-go client to a closed port", func(t *testing.T) error {
			c, err := client.NewStreamableHttpClient("http://" + closedAddr(t) + "/mcp")
			if err != nil {
				return err
			}
			defer c.Close()
			if err := c.Start(t.Context()); err != nil {
				return err
			}
			_, err = c.Initialize(t.Context(), mcp.InitializeRequest{})
			return err
		}, errs.Unavailable},
		{"mcp-go session terminated", func(*testing.T) error {
			return mcpgoerr.Mark(fmt.Errorf("call upstream: %w", transport.ErrSessionTerminated)) // as the mcp-go adapter marks it
		}, errs.Unavailable},
		{"missing file", func(*testing.T) error {
			_, err := os.Open("/definitely/not/here")
			return err
		}, errs.NotFound},
		{"upstream 429", func(t *testing.T) error {
			r := statusServer(t, 429, map[string]string{"Retry-After": "3"})
			return errs.FromStatus("api", r.StatusCode, r.Header)
		}, errs.RateLimited},
		{"upstream 503", func(t *testing.T) error {
			r := statusServer(t, 503, nil)
			return errs.FromStatus("api", r.StatusCode, r.Header)
		}, errs.Unavailable},
		{"a plain error", func(*testing.T) error { return errors.New("boom") }, errs.Internal},
		{"our error, wrapped twice", func(*testing.T) error {
			return fmt.Errorf("a: %w", fmt.Errorf("b: %w", errs.New(errs.NotFound, "no such city")))
		}, errs.NotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err(t)
			if err == nil {
				t.Fatal("the failure did not happen")
			}
			if got := errs.CodeOf(err); got != tc.want {
				t.Fatalf("CodeOf(%v) = %s, want %s", err, got, tc.want)
			}
			res := errmap.ToResult(err, errmap.Call{Tool: "t", ID: "c1"})
			text := res.Text
			if strings.Contains(text, "127.0.0.1") || strings.Contains(text, "/definitely") {
				t.Fatalf("the model's text leaks an address or path: %q", text)
			}
		})
	}
}

func TestFromStatus(t *testing.T) {
	cases := []struct {
		status     int
		header     map[string]string
		want       errs.Code
		retryAfter time.Duration
	}{
		{200, nil, 0, 0},
		{400, nil, errs.InvalidArgument, 0},
		{401, nil, errs.PermissionDenied, 0},
		{403, nil, errs.PermissionDenied, 0},
		{404, nil, errs.NotFound, 0},
		{405, nil, errs.Internal, 0},
		{408, nil, errs.Timeout, 0},
		{409, nil, errs.Conflict, 0},
		{422, nil, errs.InvalidArgument, 0},
		{429, map[string]string{"Retry-After": "7"}, errs.RateLimited, 7 * time.Second},
		{429, nil, errs.RateLimited, 0},
		{500, nil, errs.Internal, 0},
		{502, nil, errs.Unavailable, 0},
		{503, map[string]string{"Retry-After": "2"}, errs.Unavailable, 2 * time.Second},
		{504, nil, errs.Timeout, 0},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			r := statusServer(t, tc.status, tc.header)
			err := errs.FromStatus("weather-api", r.StatusCode, r.Header)
			if tc.status < 400 {
				if err != nil {
					t.Fatalf("status %d is not an error, got %v", tc.status, err)
				}
				return
			}
			e := errs.From(err)
			if e.Code() != tc.want || e.RetryAfter() != tc.retryAfter {
				t.Fatalf("got %s retry-after %v, want %s %v", e.Code(), e.RetryAfter(), tc.want, tc.retryAfter)
			}
			if upstream, status, ok := errs.HTTPCause(err); !ok || status != tc.status || upstream != "weather-api" {
				t.Fatalf("cause lost: %v", err)
			}
		})
	}
}

func TestCodeAndCauseSurviveWrapping(t *testing.T) {
	err := fmt.Errorf("lookup: %w", errs.Newf(errs.NotFound, "no city %q", "x"))
	if errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("CodeOf(wrapped NotFound) = %s", errs.CodeOf(err))
	}
	var e *errs.Error
	if !errors.As(err, &e) || e.Code() != errs.NotFound || e.Message() != `no city "x"` {
		t.Fatalf("errors.As(wrapped NotFound) = %v", e)
	}
	if errs.CodeOf(errs.New(errs.RateLimited, "")) != errs.RateLimited {
		t.Fatal("an error's code is wrong")
	}
	cause := errors.New("root")
	if !errors.Is(errs.Wrap(errs.Internal, cause, ""), cause) {
		t.Fatal("Unwrap does not reach the cause")
	}
	// ErrNotSent and a typed error agree: a classified error whose cause
	// is marked not sent matches it.
	notSent := errs.Wrap(errs.Unavailable, fmt.Errorf("dial: %w", errs.ErrNotSent), "upstream down")
	if !errors.Is(fmt.Errorf("call: %w", notSent), errs.ErrNotSent) || errs.CodeOf(notSent) != errs.Unavailable {
		t.Fatal("ErrNotSent lost behind a classified error")
	}
}

func TestCodeNamesRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range errmap.Codes() {
		s := c.String()
		if seen[s] {
			t.Fatalf("duplicate name %s", s)
		}
		seen[s] = true
		var back errs.Code
		if err := back.UnmarshalText([]byte(s)); err != nil || back != c {
			t.Fatalf("UnmarshalText(%q) = %v, %v", s, back, err)
		}
	}
	if len(seen) < 9 {
		t.Fatalf("want at least the nine codes of the design, got %d", len(seen))
	}
}

// TestCodeText: a Code marshals as its name and back, like outbound.Outcome;
// an unknown name is an error, not a silent Internal.
func TestCodeText(t *testing.T) {
	for _, c := range errmap.Codes() {
		b, err := json.Marshal(map[string]errs.Code{"code": c})
		if err != nil || string(b) != `{"code":"`+c.String()+`"}` {
			t.Fatalf("Marshal(%v) = %s, %v", c, b, err)
		}
		var back map[string]errs.Code
		if err := json.Unmarshal(b, &back); err != nil || back["code"] != c {
			t.Fatalf("Unmarshal(%s) = %v, %v", b, back, err)
		}
	}
	var c errs.Code
	if err := c.UnmarshalText([]byte("nonsense")); err == nil {
		t.Fatal("an unknown code name was accepted")
	}
}

// TestURLThatCannotBeBuiltIsTheCallersFault: a URL that cannot be built
// from the arguments (an invalid escape, a control character) was answered
// as an upstream outage that "retrying later may help"; nothing was sent.
func TestURLThatCannotBeBuiltIsTheCallersFault(t *testing.T) {
	for _, raw := range []string{"repos/%zz/go/releases/latest", "repos/a\x00b/go/issues/1", "http://[::1"} {
		_, err := url.Parse(raw)
		if err == nil {
			t.Fatalf("%q parsed", raw)
		}
		e := errs.From(fmt.Errorf("failed to get latest release: %w", err))
		if e.Code() != errs.InvalidArgument || e.Code().Retryable() || !strings.Contains(e.Message(), "cannot be part of a URL") {
			t.Errorf("%q: %s %q", raw, e.Code(), e.Message())
		}
	}
	// A request that was sent and failed stays an upstream failure.
	_, err := http.Get("http://127.0.0.1:1/")
	if errs.CodeOf(err) != errs.Unavailable {
		t.Errorf("refused request: %s", errs.CodeOf(err))
	}
}
