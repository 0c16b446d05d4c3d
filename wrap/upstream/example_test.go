package upstream_test

import (
	"context"
	"errors"
	"fmt"
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
	fmt.Println(errors.Is(err, upstream.ErrOpen), errs.From(err).Message(), h.Stats().State)
	// Output:
	// true could not connect to upstream weather-api: connection refused
	// true upstream weather-api is unavailable open
}
