package errmap_test

import (
	"fmt"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

func ExampleToResult() {
	err := errs.New(errs.RateLimited, "weather-api quota reached", errs.RetryAfter(30*time.Second))
	res := errmap.ToResult(err, errmap.Call{Tool: "get_forecast", ID: "4f2a"})
	info, _ := errmap.InfoOf(res.Structured())
	fmt.Println(res.Text)
	fmt.Println(info.Code, info.Retryable, info.RetryAfterSeconds)
	// Output:
	// weather-api quota reached; retry after 30s
	// rate_limited true 30
}
