package obs

// PendingRequestIDs is how many request ids the hooks hold; tests check
// that every answered call gave its id back.
func PendingRequestIDs(o *Observer) int { return o.calls.len() }
