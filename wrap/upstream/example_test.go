package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// A dial that fails opens the breaker: the next calls fail fast, with a
// message that names the upstream and says when to come back.
func ExampleHolder() {
	down := errs.New(errs.Unavailable, "connection refused")
	h := upstream.New("weather-api", func(context.Context) (*http.Client, error) { return nil, down })
	defer h.Close()

	_, err := h.Get(context.Background())
	fmt.Println(errors.Is(err, upstream.ErrDial), errs.From(err).Message())
	_, err = h.Get(context.Background())
	fmt.Println(errors.Is(err, upstream.ErrOpen), errors.Is(err, errs.ErrNotSent), errs.From(err).Message(), h.Stats().State)
	// Output:
	// true could not connect to upstream weather-api: connection refused
	// true true upstream weather-api is unavailable open
}

// Do is Get and Done around one call; the error it returns names the
// upstream, and the failed call marked the client broken.
func ExampleHolder_Do() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	url := "http://" + ln.Addr().String() + "/forecast"
	_ = ln.Close() // nothing listens there any more: connections are refused

	h := upstream.New("weather-api", func(context.Context) (*http.Client, error) { return &http.Client{}, nil })
	defer h.Close()
	err := h.Do(context.Background(), func(ctx context.Context, c *http.Client) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
	fmt.Println(errs.CodeOf(err), errs.From(err).Message(), h.Stats().Broken)
	// Output:
	// unavailable upstream weather-api refused the connection 1
}
