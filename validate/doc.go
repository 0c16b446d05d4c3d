// Package validate binds a tool call's arguments to a typed struct, checks
// them with go-playground/validator tags, and derives the tool's input
// schema from the same struct, so what tools/list advertises and what is
// enforced cannot drift apart.
//
//	type forecastArgs struct {
//		City  string `json:"city" validate:"required" description:"City name, e.g. Paris"`
//		Days  int    `json:"days" validate:"omitempty,min=1,max=14"`
//		Units string `json:"units" validate:"omitempty,oneof=metric imperial"`
//		Key   string `json:"api_key" validate:"omitempty,len=32" mcpwrap:"secret"`
//	}
//
//	var forecast = validate.MustNew[forecastArgs]()
//
//	tool := mcp.NewTool("forecast", forecast.ToolOption())
//	args, err := forecast.Bind(req) // err is an *errs.Error, code InvalidArgument
//
// The problems are reported at once, by JSON path ("filters[2].since",
// "address.zip"), in a sentence the model can act on:
//
//	parameter "days" must be between 1 and 14, got 30
//	parameter "days" must be an integer, got the string "three"
//	unknown parameter "cty"; did you mean "city"?
//
// and as errs.Violation values {parameter, rule, expected, got}, which
// errs.ToResult puts in the result's structuredContent. Parameters the
// struct does not have are rejected unless AllowUnknown is given.
//
// The cost of a bad call is bounded whatever it holds: at most
// errs.MaxViolations problems are listed, the rest are counted ("and at
// least 4096 more problems", errs.Error.Omitted) within a fixed budget,
// the rules are not run once decoding filled the list, keys are cut to 64
// bytes in paths, and in a call of more than a thousand values the
// elements of dive fields are checked in chunks that stop once the list
// is full. Objects and lists are read at most 64 levels deep (a recursive
// type is not decoded past that; rule "depth"), and a string longer than
// 64 KiB is not handed to a rule that parses or matches it (email, url,
// uuid, base64 …; rule "max"): both are reported as violations, valid or
// not. What still grows with the call is decoding it, which a valid call
// of the same size pays too.
//
// Struct tags: json names the parameter; validate holds the rules;
// description (or jsonschema, as mcp-go's generator reads it) becomes the
// schema's description; mcpwrap:"secret" marks a value that is never echoed
// in a message or Got (see Binder.SecretPaths and Binder.IsSecret).
//
// A field whose rules reject its zero value must be "required" or
// "omitempty": otherwise leaving it out would fail although the schema
// calls it optional, and New says so at start-up.
//
// The wrap package registers a typed handler in one line with wrap.Typed.
// A Binder holds its own validator instance; there is no package-level
// state, and a Binder is safe for concurrent use.
package validate
