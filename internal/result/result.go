// Package result is what the adapters' tool results (call.Result,
// call.Sizer) do the same way whatever the SDK: the joined text of the
// contents for a log line, the texts mapped (the chain's scrubbing), the size
// as sent and the cut within a budget. An adapter gives its SDK's content
// type through a Kind; the logic is written once, here.
package result

import (
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/jsonsize"
)

// Kind is what the helpers need of one SDK's content type C. An adapter
// implements it with an empty struct, so calling the helpers allocates
// nothing of their own.
type Kind[C any] interface {
	// Text returns the text of a text content.
	Text(c C) (string, bool)
	// WithText returns a copy of the text content c holding s (never c
	// itself changed: it is the handler's).
	WithText(c C, s string) C
	// Size returns a content's size as sent; ok is false for a kind it does
	// not know (then n is a small content's).
	Size(c C) (n int, ok bool)
	// NewText returns a text content holding s.
	NewText(s string) C
}

// Status is the call.Status of a result that asks for input or has isError.
func Status(needsInput, isError bool) call.Status {
	switch {
	case needsInput:
		return call.InputRequired
	case isError:
		return call.ToolError
	}
	return call.Success
}

// Text joins the texts of the text contents with newlines.
func Text[C any, K Kind[C]](k K, contents []C) string {
	var b strings.Builder
	for _, c := range contents {
		s, ok := k.Text(c)
		if !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	return b.String()
}

// MapText returns a copy of contents with f applied to each text, or nil
// when f changed none (the caller keeps its result as it is).
func MapText[C any, K Kind[C]](k K, contents []C, f func(string) string) []C {
	var out []C
	for i, c := range contents {
		s, ok := k.Text(c)
		if !ok {
			continue
		}
		ns := f(s)
		if ns == s {
			continue
		}
		if out == nil {
			out = append([]C(nil), contents...)
		}
		out[i] = k.WithText(c, ns)
	}
	return out
}

// Measure is the size as sent of a result with contents and structured
// content: both are walked, not encoded, so a result is not encoded twice
// (here and by the SDK). When some content is of a kind Kind does not know,
// or other is set (the result has fields only encoding sizes), it encodes
// the result once with encode and takes the larger size. The error is why
// the SDK could not send it, or a nil content.
func Measure[C any, K Kind[C]](k K, contents []C, structured any, other bool, encode func() ([]byte, error)) (int, error) {
	size, known := 0, true
	for i, c := range contents {
		if v := reflect.ValueOf(c); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
			// The SDK sends null, which no client reads as a content.
			return 0, errors.New("content " + strconv.Itoa(i) + " is nil")
		}
		n, ok := k.Size(c)
		size += n
		known = known && ok
	}
	if structured != nil {
		n, err := jsonsize.Value(structured)
		if err != nil {
			return 0, err
		}
		size += n
	}
	if other || !known {
		b, err := encode()
		if err != nil {
			return 0, err
		}
		return max(size, len(b)), nil
	}
	return size, nil
}

// Cut returns contents within budget with a text content holding note
// last: a text that does not fit is cut (in the middle for an error, whose
// cause is usually at its end), binary data that does not fit is left out
// whole and counted in the note.
func Cut[C any, K Kind[C]](k K, contents []C, budget int, note string, isError bool) []C {
	left := budget - len(note)
	cut := jsonsize.CutText
	if isError {
		cut = jsonsize.CutMiddle
	}
	out := make([]C, 0, len(contents)+1)
	dropped := 0
	for _, c := range contents {
		n, _ := k.Size(c)
		if s, ok := k.Text(c); ok {
			if n > left {
				s = cut(s, left)
				c, n = k.WithText(c, s), len(s)
			}
		} else if n > left {
			dropped++
			continue
		}
		if n == 0 && left <= 0 {
			continue
		}
		left -= n
		out = append(out, c)
	}
	if dropped > 0 {
		note += " (" + strconv.Itoa(dropped) + " binary content(s) left out)"
	}
	return append(out, k.NewText(note))
}
