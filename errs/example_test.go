package errs_test

import (
	"fmt"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
)

func ExampleToResult() {
	err := errs.New(errs.RateLimited, "weather-api quota reached", errs.RetryAfter(30*time.Second))
	res := errs.ToResult(err, errs.Call{Tool: "get_forecast", ID: "4f2a"})
	info, _ := errs.InfoOf(res.Structured())
	fmt.Println(res.Text)
	fmt.Println(info.Code, info.Retryable, info.RetryAfterSeconds)
	// Output:
	// weather-api quota reached; retry after 30s
	// rate_limited true 30
}

func ExampleCodeOf() {
	err := fmt.Errorf("lookup: %w", errs.Newf(errs.NotFound, "no city named %q", "Atlantis"))
	fmt.Println(errs.CodeOf(err), errs.CodeOf(err).Retryable())
	// Output: not_found false
}
