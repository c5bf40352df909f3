package sandbox

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/internal/clip"
)

// Describe renders a Lua value for an error message: its type and, for
// scalars, the value itself ("number 1.5", "string \"x\"", "nil").
func Describe(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LNumber:
		return "number " + FormatNumber(float64(v))
	case lua.LString:
		return "string " + clip.Quote(string(v))
	case lua.LBool:
		return "boolean " + v.String()
	case *lua.LNilType:
		return "nil"
	}
	return v.Type().String()
}

// FormatNumber prints integral floats without an exponent and others with
// the shortest exact-enough form, unlike gopher-lua's %.14g.
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprint(f)
}
