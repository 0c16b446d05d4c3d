package process

// SetExit replaces os.Exit in c.MustPass.
func SetExit(c *Checks, exit func(int)) { c.exit = exit }
