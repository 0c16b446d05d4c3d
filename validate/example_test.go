package validate_test

import (
	"errors"
	"fmt"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/validate"
)

func ExampleBinder_BindJSON() {
	type args struct {
		City string `json:"city" validate:"required"`
		Days int    `json:"days" validate:"omitempty,min=1,max=14"`
	}
	b := validate.MustNew[args]()
	_, err := b.BindJSON([]byte(`{"cty":"Paris","days":30}`))
	var e *errs.Error
	if errors.As(err, &e) {
		for _, v := range e.Violations() {
			fmt.Println(v.Message)
		}
	}
	a, _ := b.BindJSON([]byte(`{"city":"Paris","days":3}`))
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
			Password string `json:"password" mcp:"secret"`
		} `json:"accounts"`
	}
	b := validate.MustNew[args]()
	fmt.Println(b.SecretPaths(), b.IsSecret("accounts[2].password"), b.IsSecret("accounts[2].user"))
	// Output:
	// [accounts[*].password] true false
}
