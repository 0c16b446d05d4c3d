package errs_test

import (
	"fmt"
	"net/http"

	"github.com/mcpwrap/mcpwrap/errs"
)

func ExampleCodeOf() {
	err := fmt.Errorf("lookup: %w", errs.Newf(errs.NotFound, "no city named %q", "Atlantis"))
	fmt.Println(errs.CodeOf(err), errs.CodeOf(err).Retryable())
	// Output: not_found false
}

func ExampleFromStatus() {
	header := http.Header{"Retry-After": {"30"}}
	e := errs.From(errs.FromStatus("weather-api", http.StatusTooManyRequests, header))
	fmt.Println(e.Code(), e.Code().Retryable(), e.RetryAfter())
	fmt.Println(e.Message())
	// Output:
	// rate_limited true 30s
	// upstream weather-api answered HTTP 429 Too Many Requests
}
