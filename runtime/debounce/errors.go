package debounce

import "fmt"

// OptionError reports a bad argument of New: "debounce.New: ForceMax:
// want a duration >= ForceMin (2s), got 1s". The call changed nothing.
type OptionError struct {
	Func   string // the function, "New"
	Option string // the Config field, or "clock" or "fn"
	Want   string // what was expected
	Got    any    // what was given
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("debounce.%s: %s: want %s, got %v", e.Func, e.Option, e.Want, e.Got)
}
