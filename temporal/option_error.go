package temporal

import "fmt"

// OptionError reports a bad argument, in Go terms: "ScheduleOnce: delay:
// want a duration >= 0, got -PT0.000000001S". Every package of the
// runtime returns this one type for a refused argument, and the call that
// returned it changed nothing.
type OptionError struct {
	Method string // the function or method, e.g. "ScheduleOnce" or "debounce.New"
	Param  string // its parameter or option, e.g. "delay" or "Config.ForceMax"
	Want   string // what was expected
	Got    any    // what was given
	Err    error  // why Got was refused, when a check elsewhere said so
}

func (e *OptionError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Method, e.Param, e.Err)
	}
	return fmt.Sprintf("%s: %s: want %s, got %v", e.Method, e.Param, e.Want, e.Got)
}

func (e *OptionError) Unwrap() error { return e.Err }
