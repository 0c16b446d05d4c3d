package validate_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/validate"
)

func ExampleBinder_Bind() {
	type args struct {
		City string `json:"city" validate:"required"`
		Days int    `json:"days" validate:"omitempty,min=1,max=14"`
	}
	b := validate.MustNew[args]()
	_, err := b.Bind([]byte(`{"cty":"Paris","days":30}`))
	var e *errs.Error
	if errors.As(err, &e) {
		for _, v := range e.Violations() {
			fmt.Println(v.Message)
		}
	}
	a, _ := b.Bind([]byte(`{"city":"Paris","days":3}`))
	fmt.Println(a.City, a.Days)
	// Output:
	// parameter "city" is required
	// unknown parameter "cty"; did you mean "city"?
	// parameter "days" must be between 1 and 14, got 30
	// Paris 3
}

func ExampleBinder_Schema() {
	type args struct {
		City  string `json:"city" validate:"required" description:"City name"`
		Units string `json:"units" validate:"omitempty,oneof=metric imperial"`
	}
	fmt.Println(string(validate.MustNew[args]().Schema()))
	// Output:
	// {"additionalProperties":false,"properties":{"city":{"description":"City name","type":"string"},"units":{"anyOf":[{"const":""},{"enum":["metric","imperial"]}],"type":"string"}},"required":["city"],"type":"object"}
}

func ExampleBinder_IsSecret() {
	type args struct {
		Accounts []struct {
			User     string `json:"user"`
			Password string `json:"password" mcpwrap:"secret"`
		} `json:"accounts"`
	}
	b := validate.MustNew[args]()
	fmt.Println(b.SecretPaths(), b.IsSecret("accounts[2].password"), b.IsSecret("accounts[2].user"))
	// Output:
	// [accounts[*].password] true false
}

func ExampleWithRule() {
	type args struct {
		Slug string `json:"slug" validate:"required,slug"`
	}
	isSlug := func(fl validator.FieldLevel) bool {
		return strings.Trim(fl.Field().String(), "abcdefghijklmnopqrstuvwxyz-") == ""
	}
	b := validate.MustNew[args](validate.WithRule("slug", isSlug, `a lowercase slug like "my-page"`))
	_, err := b.Bind([]byte(`{"slug":"My Page"}`))
	fmt.Println(err)
	// Output:
	// invalid_argument: parameter "slug" must be a lowercase slug like "my-page", got "My Page"
}

// New checks the struct's tags once, when the binder is built: a rule the
// validator does not know is an error here, not at the first call.
func ExampleNew() {
	type good struct {
		City string `json:"city" validate:"required"`
	}
	type bad struct {
		City string `json:"city" validate:"required,citty"`
	}
	if _, err := validate.New[bad](); err != nil {
		fmt.Println(err)
	}
	b, err := validate.New[good]()
	if err != nil {
		panic(err)
	}
	a, err := b.Bind([]byte(`{"city":"Rome"}`))
	fmt.Println(a.City, err)
	// Output:
	// validate: validate_test.bad: invalid validate tag: Undefined validation function 'citty' on field 'City'
	// Rome <nil>
}
