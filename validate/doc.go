// Package validate binds a call's arguments to a typed struct, checks them
// with go-playground/validator tags, and derives the tool's input schema
// from the same struct, so what tools/list advertises and what is enforced
// cannot drift apart.
//
//	type forecastArgs struct {
//		City string `json:"city" validate:"required" description:"City name, e.g. Paris"`
//		Days int    `json:"days" validate:"omitempty,min=1,max=14"`
//		Key  string `json:"api_key" validate:"omitempty,len=32" mcpwrap:"secret"`
//	}
//
//	b := validate.MustNew[forecastArgs]()
//	schema := b.Schema()            // the tool's input schema
//	args, err := b.BindJSON(data)   // err is an *errs.Error, code InvalidArgument
//
// The usual way in is through an adapter (mcpgo.Typed, gosdk.AddTool),
// which binds inside wrap's chain. Every problem is reported at once, by
// JSON path ("filters[2].since", "address.zip"), in a sentence the model
// can act on:
//
//	parameter "days" must be between 1 and 14, got 30
//	unknown parameter "cty"; did you mean "city"?
//
// and as errs.Violation values, which the error result lists in its
// structuredContent. Unknown parameters are rejected unless AllowUnknown is
// given; WithRule adds a rule of your own. The cost of a bad call is bounded
// whatever it holds: at most 20 problems are listed and
// the rest counted, keys are cut to 64 bytes in paths, values nest at most
// 64 levels, a string over 64 KiB is not given to a pattern rule (email,
// url, …), and checking stops once the list is full.
//
// Tags: json names the parameter, validate holds the rules, description
// becomes the schema's description, mcpwrap:"secret" marks a value never
// echoed (Binder.IsSecret). A field whose rules reject its zero value must
// be "required" or "omitempty"; New says so at start-up. A Binder holds its
// own validator; there is no package-level state, and a Binder is safe for
// concurrent use.
package validate
