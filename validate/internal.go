package validate

import (
	"reflect"

	"github.com/mcpwrap/mcpwrap/internal/binding"
)

// The adapters bind the SDK's decoded and raw arguments together, check a
// handler's typed result and read a prompt's arguments through
// internal/binding; the functions are registered here because that package
// cannot import this one. b is a *Binder[T] of some T: the assertion to
// binderCore finds its type-independent part.
func init() {
	binding.BindFunc = func(b, dst, args any, raw []byte) error {
		return b.(binderCore).inner().bind(reflect.ValueOf(dst).Elem(), args, raw)
	}
	binding.CheckFunc = func(b, v any) error {
		c := b.(binderCore).inner()
		d := decoder{c: c}
		c.check(&d, reflect.ValueOf(v).Elem())
		return c.result(&d)
	}
	binding.PromptArgumentsFunc = func(b any) []binding.PromptArgument {
		return b.(binderCore).inner().promptArguments()
	}
}

// binderCore is implemented by every *Binder[T].
type binderCore interface{ inner() *core }

func (b *Binder[T]) inner() *core { return b.c }
