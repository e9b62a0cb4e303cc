package rng

import "errors"

// ErrInvalid is wrapped by every error this package returns for an invalid parameter
// (NaN, ±Inf, out of range, or mismatched lengths), so callers can test with errors.Is.
var ErrInvalid = errors.New("invalid parameter")
