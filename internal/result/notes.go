package result

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwrap/mcpwrap/internal/redact"
)

// CutNote tells the model what was cut and, when the tool has a parameter
// to ask for less with (call.Info.Paging), which. An error result keeps its
// head and its tail (call.Sizer), and the note says so.
func CutNote(size, limit int, isError, structured bool, paging string) string {
	from, to := ByteSizes(size, limit)
	what := "the result"
	if isError {
		what = "this error"
	}
	note := "[mcpwrap: " + what + " was cut from " + from + " to " + to + " to fit the model's context"
	if structured {
		note += "; its structured content was left out"
	}
	switch {
	case isError:
		note += "; its middle was left out"
	case paging != "":
		note += "; ask for less with the " + strconv.Quote(paging) + " parameter"
	}
	return note + "]"
}

// ByteSizes writes two sizes for a person, as precisely as it takes for
// them to differ: "4.2 MiB" and "1 MiB", "1.5 KiB" and "1 KiB", "1048601
// bytes" and "1048576 bytes".
func ByteSizes(a, b int) (string, string) {
	for prec := range 3 {
		if x, y := byteSize(a, prec), byteSize(b, prec); x != y {
			return x, y
		}
	}
	return strconv.Itoa(a) + " bytes", strconv.Itoa(b) + " bytes"
}

// byteSize writes n in its unit (MiB, KiB, bytes) with prec more decimals
// than the plainest form; at prec 2, always in bytes.
func byteSize(n, prec int) string {
	unit := func(div float64, name string, decimals int) string {
		s := strconv.FormatFloat(float64(n)/div, 'f', decimals, 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s + " " + name
	}
	switch {
	case prec >= 2 || n < 1<<10:
		return strconv.Itoa(n) + " bytes"
	case n >= 1<<20:
		return unit(1<<20, "MiB", 1+2*prec)
	}
	return unit(1<<10, "KiB", 3*prec)
}

// maxPublicText caps the text of an error shown through
// wrap.WithPublicErrors.
const maxPublicText = 4 << 10

// CapText keeps the head and the tail of a long text, where an error's
// cause usually is.
func CapText(s string) string {
	if len(s) <= maxPublicText {
		return s
	}
	const tail = 1 << 10
	head := redact.RuneCut(s, maxPublicText-tail)
	from := len(s) - tail
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return s[:head] + " […" + strconv.Itoa(from-head) + " bytes left out…] " + s[from:]
}
