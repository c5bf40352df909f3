package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/metronome-rt/metronome/temporal"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Options configures NewState. The zero value gives a sandboxed state that
// prints to os.Stdout and reads the wall clock.
type Options struct {
	// AllowIO opens io and the full os library (os.time, os.clock and
	// os.date still read Now and format in UTC).
	AllowIO bool
	// Stdout receives print. Default os.Stdout. The io library, when
	// allowed, writes to the process's real standard streams.
	Stdout io.Writer
	// Now is what os.time and os.date read. Default time.Now.
	Now func() time.Time
	// CPUClock is what os.clock returns, in seconds. Default: seconds of Now
	// since NewState.
	CPUClock func() float64
	// Seed int64: the seed of math.random; the same seed gives the same
	// sequence. math.randomseed(x) reseeds it, as Seed = x would.
	Seed int64

	// Budget is the wall time each main chunk run with PCall, callback,
	// test body and hook may take; a call inside another gets what is
	// left of the outer one when that is less. 0: no budget.
	Budget temporal.Duration
	// DrainBudget is the wall time one advance, update, step, next,
	// run-all, run-to-last or jump call (or a Go call run with Drain) may
	// take, across all the callbacks it runs. 0: no bound.
	DrainBudget temporal.Duration
	// MemoryLimit is how many bytes the Go heap may grow past its size at
	// NewState while the state's Lua runs under PCall, Drain or a
	// callback. 0: not watched.
	MemoryLimit int64
	// Context, when done, stops the state's Lua at its next instruction
	// with an "interrupted" error, and every later call at once.
	Context context.Context
	// Source bounds the size, nesting and compile work of every chunk the
	// state compiles: LoadFile, load and loadstring. Zero fields take the
	// defaults.
	Source SourceLimits
}

// NewState returns a state with the sandboxed standard library and no
// modules.
//
// The sandbox opens the base library without dofile and loadfile (load and
// loadstring take source text only, never binary chunks), string, table,
// math, coroutine, and os with time, clock and date only. os.date has no host
// zone: it formats in UTC, and os.time{...} reads its table as UTC.
// require finds package.preload entries only; package.path is ignored.
//
// NewState panics if a field of opts.Source is negative.
func NewState(opts Options) *lua.LState {
	if s := opts.Source; s.Bytes < 0 || s.Depth < 0 || s.Work < 0 {
		panic(fmt.Sprintf("sandbox.NewState: Options.Source: want fields >= 0 (0 for the default), got %+v", s))
	}
	env := &stdlib{opts: opts}
	if env.opts.Stdout == nil {
		env.opts.Stdout = os.Stdout
	}
	if env.opts.Now == nil {
		env.opts.Now = time.Now
	}
	if env.opts.CPUClock == nil {
		now, start := env.opts.Now, env.opts.Now()
		env.opts.CPUClock = func() float64 { return now().Sub(start).Seconds() }
	}

	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	libs := []openedLib{
		{lua.LoadLibName, lua.OpenPackage}, // package and base first, as OpenLibs does
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	}
	if opts.AllowIO {
		libs = append(libs, openedLib{lua.IoLibName, lua.OpenIo}, openedLib{lua.OsLibName, lua.OpenOs})
	}
	for _, lib := range libs {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}

	installPatterns(L, stringLimit(opts.MemoryLimit))
	installStringLimits(L, stringLimit(opts.MemoryLimit))
	env.sandboxBase(L)
	installResultLimits(L)
	installRandom(L, opts.Seed)
	env.installOS(L)
	installBudget(L, opts)
	installSourceLimits(L, opts.Source)
	return L
}

type openedLib struct {
	name string
	open lua.LGFunction
}

// LoadFile compiles the Lua source file at path into a function, like
// L.LoadFile, but refuses binary chunks and reports a syntax error the way
// runtime errors read: "path:line: message near 'token'".
func LoadFile(L *lua.LState, path string) (*lua.LFunction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One byte past the size limit is enough for checkSource to refuse it.
	src, err := io.ReadAll(io.LimitReader(f, int64(sourceLimitsOf(L).Bytes)+1))
	if err != nil {
		return nil, err
	}
	text := string(src)
	if strings.HasPrefix(text, "\x1b") {
		return nil, fmt.Errorf("%s: binary chunks are not supported: load Lua source", path)
	}
	if strings.HasPrefix(text, "#") {
		// A shebang line: drop it but keep its newline so line numbers hold.
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i:]
		} else {
			text = ""
		}
	}
	return Compile(L, text, path)
}

// Compile parses src, a chunk of Lua source named chunkname, into a
// function, once it is within L's source limits (Options.Source); a syntax
// error reads "chunkname:line: message near 'token'".
func Compile(L *lua.LState, src, chunkname string) (*lua.LFunction, error) {
	if err := checkSource(src, chunkname, sourceLimitsOf(L)); err != nil {
		return nil, err
	}
	return CompileTrusted(L, src, chunkname)
}

// CompileTrusted is Compile without the source limits, for source the
// operator chose rather than a script (a compiler the host loads).
func CompileTrusted(L *lua.LState, src, chunkname string) (*lua.LFunction, error) {
	fn, err := L.Load(strings.NewReader(src), chunkname)
	if err != nil {
		return nil, &chunkError{msg: chunkErrorMessage(chunkname, err), err: err}
	}
	return fn, nil
}

type chunkError struct {
	msg string
	err error
}

func (e *chunkError) Error() string { return e.msg }
func (e *chunkError) Unwrap() error { return e.err }

func chunkErrorMessage(chunkname string, err error) string {
	var api *lua.ApiError
	if errors.As(err, &api) && api.Cause != nil {
		err = api.Cause
	}
	var pe *parse.Error
	var ce *lua.CompileError
	switch {
	case errors.As(err, &pe) && pe.Pos.Line == parse.EOF:
		return fmt.Sprintf("%s: %s at end of file", chunkname, pe.Message)
	case errors.As(err, &pe):
		return fmt.Sprintf("%s:%d: %s near '%s'", chunkname, pe.Pos.Line, pe.Message, pe.Token)
	case errors.As(err, &ce):
		return fmt.Sprintf("%s:%d: %s", chunkname, ce.Line, ce.Message)
	}
	return strings.TrimSpace(err.Error())
}

// stdlib holds what the replaced library functions need.
type stdlib struct {
	opts Options
}

func (sb *stdlib) sandboxBase(L *lua.LState) {
	g := L.G.Global
	// dofile and loadfile read any file; _printregs writes to the real stdout.
	for _, name := range []string{"dofile", "loadfile", "_printregs"} {
		g.RawSetString(name, lua.LNil)
	}
	g.RawSetString("print", L.NewFunction(sb.print))
	g.RawSetString("pcall", L.NewFunction(safePCall))
	g.RawSetString("xpcall", L.NewFunction(safeXPCall))
	g.RawSetString("error", L.NewFunction(safeError))
	g.RawSetString("load", L.NewFunction(sbLoad))
	g.RawSetString("loadstring", L.NewFunction(sbLoadString))
	if orig, ok := g.RawGetString("tonumber").(*lua.LFunction); ok && orig.IsG {
		g.RawSetString("tonumber", L.NewFunction(tonumberExp(orig)))
	}
	sandboxPackage(L)
}

// sandboxPackage leaves require package.preload only: gopher-lua's file
// loader reads any file package.path names.
func sandboxPackage(L *lua.LState) {
	pkg, ok := L.GetGlobal("package").(*lua.LTable)
	if !ok {
		return
	}
	pkg.RawSetString("path", lua.LNil)
	pkg.RawSetString("cpath", lua.LNil)
	loaders, ok := pkg.RawGetString("loaders").(*lua.LTable)
	if !ok {
		return
	}
	preloadOnly := L.CreateTable(1, 0)
	preloadOnly.Append(loaders.RawGetInt(1)) // gopher-lua's preload searcher
	pkg.RawSetString("loaders", preloadOnly)
	// gopher-lua's require reads the loaders from the registry.
	L.SetField(L.Get(lua.RegistryIndex), "_LOADERS", preloadOnly)
}

// decimalExp is a decimal number with an exponent, as Lua 5.1 reads it.
var decimalExp = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+$`)

// tonumberExp wraps gopher-lua's tonumber, which reads "1e9" (an exponent
// after digits with no point) as nil, to read it as Lua 5.1 does: the
// Fennel compiler reads its number literals with tonumber.
func tonumberExp(orig *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if str, ok := L.Get(1).(lua.LString); ok && strings.ContainsAny(string(str), "eE") &&
			(L.GetTop() < 2 || L.Get(2) == lua.LNil || L.Get(2) == lua.LNumber(10)) {
			if t := strings.TrimSpace(string(str)); decimalExp.MatchString(t) {
				if f, err := strconv.ParseFloat(t, 64); err == nil || errors.Is(err, strconv.ErrRange) {
					L.Push(lua.LNumber(f))
					return 1
				}
			}
		}
		return orig.GFunction(L)
	}
}

func (sb *stdlib) print(L *lua.LState) int {
	var b strings.Builder
	for i, top := 1, L.GetTop(); i <= top; i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	b.WriteByte('\n')
	if _, err := io.WriteString(sb.opts.Stdout, b.String()); err != nil {
		raise(L, "print: %v", err)
	}
	return 0
}

// sbLoad is load(chunk [, chunkname [, mode [, env]]]): chunk is a string or
// a reader function, as in Lua 5.2; on failure it returns nil and a message.
func sbLoad(L *lua.LState) int {
	var src string
	chunkname := "<string>"
	switch chunk := L.Get(1).(type) {
	case lua.LString:
		src = string(chunk)
	case *lua.LFunction:
		chunkname = "<load>"
		var b strings.Builder
		limit := sourceLimitsOf(L).Bytes
		for b.Len() <= limit {
			L.Push(chunk)
			L.Call(0, 1)
			piece := L.Get(-1)
			L.Pop(1)
			if piece == lua.LNil {
				break
			}
			s, ok := piece.(lua.LString)
			if !ok {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
			if s == "" {
				break
			}
			b.WriteString(string(s))
		}
		src = b.String()
	default:
		L.ArgError(1, "string or function expected, got "+L.Get(1).Type().String())
	}
	chunkname = L.OptString(2, chunkname)
	mode := L.OptString(3, "bt")
	var env *lua.LTable
	if L.GetTop() >= 4 && L.Get(4) != lua.LNil {
		env = L.CheckTable(4)
	}
	return loadChunkText(L, src, chunkname, mode, env)
}

func sbLoadString(L *lua.LState) int {
	return loadChunkText(L, L.CheckString(1), L.OptString(2, "<string>"), "t", nil)
}

func loadChunkText(L *lua.LState, src, chunkname, mode string, env *lua.LTable) int {
	fail := func(msg string) int {
		L.Push(lua.LNil)
		L.Push(lua.LString(msg))
		return 2
	}
	if strings.HasPrefix(src, "\x1b") {
		return fail("attempt to load a binary chunk: only Lua source text can be loaded")
	}
	if !strings.Contains(mode, "t") {
		return fail(fmt.Sprintf("attempt to load a text chunk (mode is '%s')", mode))
	}
	// "@file" names a file, as in Lua, whose messages show "file" (the
	// Fennel compiler names chunks so).
	if len(chunkname) > 1 && chunkname[0] == '@' {
		chunkname = chunkname[1:]
	}
	fn, err := Compile(L, src, chunkname)
	if err != nil {
		return fail(err.Error())
	}
	if env != nil {
		fn.Env = env
	}
	L.Push(fn)
	return 1
}

// installOS gives os time, clock and date that read opts.Now in UTC; with
// AllowIO they replace the host-zone versions in the full library.
func (sb *stdlib) installOS(L *lua.LState) {
	osmod, ok := L.GetGlobal("os").(*lua.LTable)
	if !ok {
		osmod = L.NewTable()
		L.SetGlobal("os", osmod)
		L.SetField(L.GetField(L.Get(lua.RegistryIndex), "_LOADED"), "os", osmod)
	}
	osmod.RawSetString("time", L.NewFunction(sb.osTime))
	osmod.RawSetString("clock", L.NewFunction(sb.osClock))
	osmod.RawSetString("date", L.NewFunction(sb.osDate))
}

func (sb *stdlib) osClock(L *lua.LState) int {
	L.Push(lua.LNumber(sb.opts.CPUClock()))
	return 1
}

func (sb *stdlib) osTime(L *lua.LState) int {
	if L.GetTop() == 0 || L.Get(1) == lua.LNil {
		L.Push(lua.LNumber(sb.opts.Now().Unix()))
		return 1
	}
	tb := L.CheckTable(1)
	field := func(key string, def int, required bool) int {
		v := L.GetField(tb, key)
		if v == lua.LNil {
			if required {
				raise(L, "field '%s' missing in date table", key)
			}
			return def
		}
		n, ok := v.(lua.LNumber)
		if !ok || float64(n) != float64(int64(n)) {
			raise(L, "field '%s' is not an integer (got %s %s)", key, v.Type(), v.String())
		}
		if n > 1<<31-1 || n < -(1<<31) {
			raise(L, "field '%s' is out-of-bound", key)
		}
		return int(n)
	}
	sec, minute, hour := field("sec", 0, false), field("min", 0, false), field("hour", 12, false)
	day, month, year := field("day", 0, true), field("month", 0, true), field("year", 0, true)
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	L.Push(lua.LNumber(t.Unix()))
	return 1
}

func (sb *stdlib) osDate(L *lua.LState) int {
	format := L.OptString(1, "%c")
	t := sb.opts.Now().UTC()
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		n, ok := L.Get(2).(lua.LNumber)
		if !ok {
			L.TypeError(2, lua.LTNumber)
		}
		if float64(n) != float64(int64(n)) {
			L.ArgError(2, fmt.Sprintf("number has no integer representation: %v", n))
		}
		t = time.Unix(int64(n), 0).UTC()
	}
	// There is no host zone, so "!" (UTC) changes nothing.
	format = strings.TrimPrefix(format, "!")
	if format == "*t" {
		tb := L.CreateTable(0, 9)
		tb.RawSetString("year", lua.LNumber(t.Year()))
		tb.RawSetString("month", lua.LNumber(t.Month()))
		tb.RawSetString("day", lua.LNumber(t.Day()))
		tb.RawSetString("hour", lua.LNumber(t.Hour()))
		tb.RawSetString("min", lua.LNumber(t.Minute()))
		tb.RawSetString("sec", lua.LNumber(t.Second()))
		tb.RawSetString("wday", lua.LNumber(t.Weekday()+1))
		tb.RawSetString("yday", lua.LNumber(t.YearDay()))
		tb.RawSetString("isdst", lua.LFalse)
		L.Push(tb)
		return 1
	}
	s, err := osDateFormat(t, format)
	if err != nil {
		L.ArgError(1, err.Error())
	}
	L.Push(lua.LString(s))
	return 1
}

// osDateFormat formats t with the C99 conversions in the C locale.
func osDateFormat(t time.Time, format string) (string, error) {
	var b strings.Builder
	two := func(n int) { fmt.Fprintf(&b, "%02d", n) }
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", errors.New("invalid conversion specifier '%'")
		}
		spec := format[i]
		// The E and O modifiers select alternative forms; the C locale has none.
		if (spec == 'E' && i+1 < len(format) && strings.IndexByte("cCxXyY", format[i+1]) >= 0) ||
			(spec == 'O' && i+1 < len(format) && strings.IndexByte("deHImMSuUVwWy", format[i+1]) >= 0) {
			i++
			spec = format[i]
		}
		isoYear, isoWeek := t.ISOWeek()
		wday, yday := int(t.Weekday()), t.YearDay()-1
		hour12 := t.Hour() % 12
		if hour12 == 0 {
			hour12 = 12
		}
		switch spec {
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'c':
			fmt.Fprintf(&b, "%s %s %2d %02d:%02d:%02d %d", t.Weekday().String()[:3], t.Month().String()[:3],
				t.Day(), t.Hour(), t.Minute(), t.Second(), t.Year())
		case 'C':
			two(t.Year() / 100)
		case 'd':
			two(t.Day())
		case 'D', 'x':
			fmt.Fprintf(&b, "%02d/%02d/%02d", int(t.Month()), t.Day(), t.Year()%100)
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'F':
			fmt.Fprintf(&b, "%04d-%02d-%02d", t.Year(), int(t.Month()), t.Day())
		case 'g':
			two(isoYear % 100)
		case 'G':
			fmt.Fprintf(&b, "%d", isoYear)
		case 'H':
			two(t.Hour())
		case 'I':
			two(hour12)
		case 'j':
			fmt.Fprintf(&b, "%03d", yday+1)
		case 'm':
			two(int(t.Month()))
		case 'M':
			two(t.Minute())
		case 'n':
			b.WriteByte('\n')
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'r':
			ampm := "AM"
			if t.Hour() >= 12 {
				ampm = "PM"
			}
			fmt.Fprintf(&b, "%02d:%02d:%02d %s", hour12, t.Minute(), t.Second(), ampm)
		case 'R':
			fmt.Fprintf(&b, "%02d:%02d", t.Hour(), t.Minute())
		case 'S':
			two(t.Second())
		case 't':
			b.WriteByte('\t')
		case 'T', 'X':
			fmt.Fprintf(&b, "%02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
		case 'u':
			fmt.Fprintf(&b, "%d", (wday+6)%7+1)
		case 'U':
			two((yday + 7 - wday) / 7)
		case 'V':
			two(isoWeek)
		case 'w':
			fmt.Fprintf(&b, "%d", wday)
		case 'W':
			two((yday + 7 - (wday+6)%7) / 7)
		case 'y':
			two(t.Year() % 100)
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'z':
			b.WriteString("+0000")
		case 'Z':
			b.WriteString("UTC")
		case '%':
			b.WriteByte('%')
		default:
			return "", fmt.Errorf("invalid conversion specifier '%%%c'", spec)
		}
	}
	return b.String(), nil
}
