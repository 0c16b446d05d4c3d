package errmap

import "github.com/mcpwrap/mcpwrap/errs"

// Codes returns every errs code, in declaration order; a test checks the
// list against errs' closed set.
func Codes() []errs.Code {
	return []errs.Code{errs.Internal, errs.InvalidArgument, errs.NotFound, errs.PermissionDenied, errs.Conflict,
		errs.Unavailable, errs.Timeout, errs.RateLimited, errs.Canceled, errs.Fatal, errs.ResultTooLarge}
}
