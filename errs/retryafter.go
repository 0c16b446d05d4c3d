package errs

import (
	"net/http"
	"strconv"
	"time"
)

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP
// date, relative to now. It reports false for an empty or unparsable
// value; a date in the past gives 0, true.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
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
