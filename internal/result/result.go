// Package result is what the adapters' tool results (call.Result,
// call.Sizer) do the same way whatever the SDK: the joined text of the
// contents for a log line, the texts mapped (the chain's scrubbing), the size
// as sent and the cut within a budget. An adapter gives its SDK's content
// type through a Kind; the logic is written once, here.
package result

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
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
	size, known, err := contentsSize(k, contents)
	if err != nil {
		return 0, err
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

// contentsSize is the JSON size of contents, and whether k knew it for
// every one.
func contentsSize[C any, K Kind[C]](k K, contents []C) (size int, known bool, err error) {
	known = true
	for i, c := range contents {
		if v := reflect.ValueOf(c); !v.IsValid() || errbase.NilValue(v) {
			// The SDK sends null, which no client reads as a content.
			return 0, false, errors.New("content " + strconv.Itoa(i) + " is nil")
		}
		n, ok := k.Size(c)
		size += n
		known = known && ok
	}
	return size, known, nil
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

// SDK is what Of needs of one SDK's tool result type R, whose contents are
// of type C. An adapter implements it with an empty struct.
type SDK[R, C any] interface {
	Kind[C]
	// Contents returns the result's contents.
	Contents(r *R) []C
	// WithContents returns a copy of r holding contents.
	WithContents(r *R, contents []C) *R
	// NeedsInput reports a multi round-trip result asking for input.
	NeedsInput(r *R) bool
	// IsError reports the result's isError.
	IsError(r *R) bool
	// Structured returns its structured content, nil for none.
	Structured(r *R) any
	// Other reports fields only encoding sizes (input requests, a _meta
	// Meta does not return).
	Other(r *R) bool
	// Meta returns the fields of the result's _meta, which are sized by
	// walking them (a cached answer's age must not make every answer be
	// encoded twice).
	Meta(r *R) map[string]any
	// WithStructured returns a copy of r holding structured content v.
	WithStructured(r *R, v any) *R
	// WithMeta returns a copy of r whose _meta holds v under key.
	WithMeta(r *R, key string, v any) *R
}

// Of is an SDK's tool result as the chain sees it (call.Result and
// call.Sizer). It is one pointer, so storing it in a call.Result costs no
// allocation.
type Of[R, C any, S SDK[R, C]] struct{ R *R }

// Status says what kind of answer the result is.
func (t Of[R, C, S]) Status() call.Status {
	var s S
	return Status(s.NeedsInput(t.R), s.IsError(t.R))
}

// Check reports why the SDK could not send the result (see Measure).
func (t Of[R, C, S]) Check() error {
	_, err := t.Measure()
	return err
}

// Text joins the texts of the result's text contents.
func (t Of[R, C, S]) Text() string {
	var s S
	return Text(s, s.Contents(t.R))
}

// MapText returns the result with f applied to every text, as a copy when
// anything changed.
func (t Of[R, C, S]) MapText(f func(string) string) call.Result {
	var s S
	out := MapText(s, s.Contents(t.R), f)
	if out == nil {
		return t
	}
	return Of[R, C, S]{s.WithContents(t.R, out)}
}

// Measure is the result's size as sent and whether the SDK can send it.
// A structured content made of maps, slices, strings, numbers and booleans
// (what a handler decodes or builds) is walked, not encoded, so a result is
// not encoded twice (here and by the SDK); anything else is encoded once.
func (t Of[R, C, S]) Measure() (int, error) {
	var s S
	other := s.Other(t.R)
	n, err := Measure(s, s.Contents(t.R), s.Structured(t.R), other,
		func() ([]byte, error) { return json.Marshal(t.R) })
	if err != nil || other {
		return n, err // encoded whole, _meta included
	}
	if m := s.Meta(t.R); len(m) > 0 {
		k, err := jsonsize.Value(m)
		if err != nil {
			if _, jerr := json.Marshal(t.R); jerr != nil {
				err = jerr // its words name the value (+Inf)
			}
			return 0, err
		}
		n += k + len(`,"_meta":`)
	}
	return n, nil
}

// Cut returns the result within budget (see call.Sizer): its structured
// content left out, its contents cut.
func (t Of[R, C, S]) Cut(budget int, note string) call.Result {
	var s S
	r := t.R
	if s.Structured(r) != nil {
		r = s.WithStructured(r, nil)
	}
	return Of[R, C, S]{s.WithContents(r, Cut(s, s.Contents(r), budget, note, s.IsError(r)))}
}

// Structured returns the result's structured content (call.Editor).
func (t Of[R, C, S]) Structured() any {
	var s S
	return s.Structured(t.R)
}

// WithStructured returns a copy of the result holding v as its structured
// content (call.Editor).
func (t Of[R, C, S]) WithStructured(v any) call.Result {
	var s S
	return Of[R, C, S]{s.WithStructured(t.R, v)}
}

// AppendText returns a copy of the result with a text content holding txt
// last (call.Editor).
func (t Of[R, C, S]) AppendText(txt string) call.Result {
	var s S
	c := s.Contents(t.R)
	return Of[R, C, S]{s.WithContents(t.R, append(c[:len(c):len(c)], s.NewText(txt)))}
}

// Encode returns the result as JSON (call.Keeper).
func (t Of[R, C, S]) Encode() ([]byte, error) { return json.Marshal(t.R) }

// WithMeta returns a copy of the result whose _meta holds v under key
// (call.Keeper).
func (t Of[R, C, S]) WithMeta(key string, v any) call.Result {
	var s S
	return Of[R, C, S]{s.WithMeta(t.R, key, v)}
}

// Value is a result the chain passes on as it is — a resource's contents,
// a prompt, another method's result: a success with no text to scrub.
type Value[T any] struct{ V T }

// Status is call.Success.
func (Value[T]) Status() call.Status { return call.Success }

// Check is nil: there is nothing to check.
func (Value[T]) Check() error { return nil }

// Text is empty: there is no text to scrub.
func (Value[T]) Text() string { return "" }

// MapText returns v as it is.
func (v Value[T]) MapText(func(string) string) call.Result { return v }

// ErrorText is an error result the chain built, as the observer sees it.
type ErrorText string

// Status is call.ToolError.
func (t ErrorText) Status() call.Status { return call.ToolError }

// Check is nil: the chain built it.
func (t ErrorText) Check() error { return nil }

// Text is the result's text.
func (t ErrorText) Text() string { return string(t) }

// MapText is the result with f applied to its text.
func (t ErrorText) MapText(f func(string) string) call.Result { return ErrorText(f(string(t))) }
