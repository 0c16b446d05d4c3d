package errmap

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
)

// clientStatus finds, in an error's text, an HTTP status that says the
// request was refused for a reason the model can act on: "404 Not Found",
// "HTTP 429", "status code: 403", "returned 409". The status text, or a
// word naming it a status, must be next to the number, so that "found 404
// files" is no status.
var clientStatus = regexp.MustCompile(`(?i)\b(?:(40[1349]|410|429)\s+(?:unauthorized|forbidden|not found|conflict|gone|too many requests)` +
	`|(?:http(?:/[0-9.]+)?|status(?:\s*code)?|response code|returned|answered)[\s:=]+(40[1349]|410|429))\b`)

// StatusIn is the errs code of the well-known client error status in
// text (401 and 403: permission denied, 404 and 410: not found, 409:
// conflict, 429: rate limited), Internal when it names none.
func StatusIn(text string) errs.Code {
	if !strings.Contains(text, "40") && !strings.Contains(text, "41") && !strings.Contains(text, "42") {
		return errs.Internal
	}
	m := clientStatus.FindStringSubmatch(text)
	if m == nil {
		return errs.Internal
	}
	n, _ := strconv.Atoi(m[1] + m[2])
	return errs.CodeForStatus(n)
}
