package sandbox

import (
	"fmt"
	"io"
	"os"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// SourceLimits bound what compiling one chunk may cost. gopher-lua's
// compiler is one Go call that no budget, memory limit or context can
// stop, and it recurses once per level of nesting, so every chunk is
// scanned first (a single pass over its tokens) and refused, with an error
// that names the chunk, the line and the limit, when it passes one of them.
// A field left 0 takes its default; NewState panics on a negative one.
type SourceLimits struct {
	// Bytes is the largest source, in bytes. Default DefaultSourceBytes.
	Bytes int
	// Depth is the deepest nesting. Each of these opens a level until its
	// end: a function, a block (do, while, for, if, repeat), each elseif
	// of an if, and a bracket ( [ {; and within one expression each binary
	// or unary operator and each field, index or call suffix adds one, as
	// the compiler recurses on `1+1+1` and on `a.b.c` too. Default
	// DefaultSourceDepth.
	Depth int
	// Work is how many steps compiling may take, counted before it starts:
	// 32 per token, 4096 per function (each one's code buffers), and the
	// lookups the compiler makes one by one: for each name, string and
	// number, as many steps as there are distinct ones before it in its
	// function, and for each name as many as the locals in scope. Ordinary
	// code counts about 30 steps a byte. Default DefaultSourceWork.
	Work int64
}

// Defaults of SourceLimits.
const (
	DefaultSourceBytes = 1 << 20
	DefaultSourceDepth = 200
	DefaultSourceWork  = 10_000_000
)

// The work of a token and of a function, in constant comparisons: lexing,
// parsing and compiling a token cost about 32; the compiler gives each
// function code buffers of about 12 KB.
const (
	tokenWork    = 32
	functionWork = 4096
)

const sourceLimitsKey = "metronome.sourcelimits"

// withDefaults fills the fields left 0.
func (s SourceLimits) withDefaults() SourceLimits {
	if s.Bytes == 0 {
		s.Bytes = DefaultSourceBytes
	}
	if s.Depth == 0 {
		s.Depth = DefaultSourceDepth
	}
	if s.Work == 0 {
		s.Work = DefaultSourceWork
	}
	return s
}

// installSourceLimits records L's source limits for LoadFile, load and
// loadstring.
func installSourceLimits(L *lua.LState, s SourceLimits) {
	ud := L.NewUserData()
	ud.Value = s.withDefaults()
	L.G.Registry.RawSetString(sourceLimitsKey, ud)
}

// sourceLimitsOf returns L's source limits; a state NewState did not make
// gets the defaults.
func sourceLimitsOf(L *lua.LState) SourceLimits {
	if ud, ok := L.G.Registry.RawGetString(sourceLimitsKey).(*lua.LUserData); ok {
		if s, ok := ud.Value.(SourceLimits); ok {
			return s
		}
	}
	return SourceLimits{}.withDefaults()
}

// SourceLimitError is the error for a chunk that passes one of its
// SourceLimits; its message reads "chunk:line: ...".
type SourceLimitError struct {
	Chunk string
	Line  int
	Limit string // "Bytes", "Depth" or "Work"
	Max   int64
}

func (e *SourceLimitError) Error() string {
	switch e.Limit {
	case "Bytes":
		return fmt.Sprintf("%s:%d: source longer than %v (the source size limit)", e.Chunk, e.Line, sizeLimit(e.Max))
	case "Depth":
		return fmt.Sprintf("%s:%d: source nested deeper than %d levels (the source depth limit)", e.Chunk, e.Line, e.Max)
	}
	return fmt.Sprintf("%s:%d: source would take more than %d steps to compile (the compile work limit)", e.Chunk, e.Line, e.Max)
}

// scanFrame is one open level: a function, a block or a bracket.
type scanFrame struct {
	weight int // levels it counts: 1, plus one per elseif
	chain  int // operators and suffixes of the expression being read in it
	loop   bool
	fn     *scanFunc // the function it belongs to
	decls  int       // locals it declares
	brkt   bool
}

// scanFunc is what the compiler keeps per function and looks up linearly.
type scanFunc struct {
	consts map[string]int // name, string or number -> index of its first sight
	gotos  int
}

// checkSource refuses src when compiling it would pass lim. A token the
// scanner cannot read ends the scan: the parser reports it.
func checkSource(src, chunkname string, lim SourceLimits) error {
	_, err := sourceWork(src, chunkname, lim)
	return err
}

// sourceWork returns the work of compiling src, as far as it is counted
// before a limit is passed.
func sourceWork(src, chunkname string, lim SourceLimits) (work int64, err error) {
	if len(src) > lim.Bytes {
		return 0, &SourceLimitError{chunkname, 1 + strings.Count(src[:lim.Bytes], "\n"), "Bytes", int64(lim.Bytes)}
	}
	sc := parse.NewScanner(strings.NewReader(src), chunkname)
	lx := &parse.Lexer{PrevTokenType: parse.TNil}
	main := &scanFunc{consts: map[string]int{}}
	frames := []scanFrame{{fn: main}}
	var (
		depth, visible int
		operand        bool // the last token ended an operand
		declaring      bool // names declare locals (after local, for, a parameter list's '(')
		localFn        bool // the next name is a local function's, declared outside it
		header         bool // in a function's header: its '(' opens the parameters
	)
	top := func() *scanFrame { return &frames[len(frames)-1] }
	// block returns the innermost frame that is not a bracket.
	block := func() *scanFrame {
		for i := len(frames) - 1; i > 0; i-- {
			if !frames[i].brkt {
				return &frames[i]
			}
		}
		return &frames[0]
	}
	endExpr := func() {
		f := top()
		depth -= f.chain
		f.chain = 0
	}
	push := func(f scanFrame) {
		if f.fn == nil {
			f.fn = top().fn
		}
		f.weight = 1
		frames = append(frames, f)
		depth++
	}
	for {
		tok, err := sc.Scan(lx)
		if err != nil || tok.Type == parse.EOF {
			return work, nil
		}
		lx.PrevTokenType = tok.Type
		work += tokenWork
		wasOperand, wasDeclaring, wasHeader := operand, declaring, header
		operand, declaring, header = false, false, false
		switch t := tok.Type; t {
		case parse.TIdent, parse.TNumber, parse.TString:
			switch {
			case t == parse.TString && wasOperand: // f "s": a call
				top().chain++
				depth++
			case wasOperand: // a new statement
				endExpr()
			}
			fn := top().fn
			key := tok.Str // names and strings share the constants
			if t == parse.TNumber {
				key = "\x00" + key
			}
			if i, ok := fn.consts[key]; ok {
				work += int64(i)
			} else {
				work += int64(len(fn.consts))
				fn.consts[key] = len(fn.consts)
			}
			if t == parse.TIdent {
				work += int64(visible)
				switch {
				case localFn:
					frames[len(frames)-2].decls++
					visible++
					localFn = false
				case wasDeclaring:
					block().decls++
					visible++
					declaring = true
				}
				header = wasHeader
			}
			operand = true
		case parse.TNil, parse.TTrue, parse.TFalse, parse.T3Comma:
			if wasOperand {
				endExpr()
			}
			operand = true
		case parse.TFunction:
			if wasOperand {
				endExpr()
			}
			work += functionWork
			localFn = wasDeclaring
			push(scanFrame{fn: &scanFunc{consts: map[string]int{}}})
			header = true
		case '(', '[', '{':
			if wasOperand {
				top().chain++
				depth++
			}
			push(scanFrame{brkt: true})
			declaring = t == '(' && wasHeader // the parameters
		case ')', ']', '}':
			if len(frames) > 1 && top().brkt {
				f := frames[len(frames)-1]
				depth -= f.weight + f.chain
				frames = frames[:len(frames)-1]
			}
			operand = true
		case parse.TEnd, parse.TUntil:
			if len(frames) > 1 && !top().brkt {
				f := frames[len(frames)-1]
				depth -= f.weight + f.chain
				visible -= f.decls
				work += int64(f.fn.gotos) // the block's gotos are looked at again
				frames = frames[:len(frames)-1]
			}
			operand = t == parse.TEnd
		case parse.TDo:
			endExpr()
			if f := top(); f.loop {
				f.loop = false
			} else {
				push(scanFrame{})
			}
		case parse.TWhile, parse.TFor, parse.TIf, parse.TRepeat:
			endExpr()
			push(scanFrame{loop: t == parse.TWhile || t == parse.TFor})
			declaring = t == parse.TFor
		case parse.TElseIf:
			endExpr()
			top().weight++
			depth++
		case parse.TLocal:
			endExpr()
			declaring = true
		case parse.TGoto:
			endExpr()
			top().fn.gotos++
		case parse.T2Colon: // a label resolves the gotos before it
			endExpr()
			work += int64(top().fn.gotos)
		case ',':
			endExpr()
			declaring = wasDeclaring
		case '.', ':':
			top().chain++
			depth++
			header = wasHeader
		case '-', '+', '*', '/', '%', '^', '#', parse.T2Comma, parse.TEqeq, parse.TNeq,
			'<', '>', parse.TLte, parse.TGte, parse.TAnd, parse.TOr, parse.TNot:
			top().chain++
			depth++
		default: // = ; then else in return break
			endExpr()
		}
		if depth > lim.Depth {
			return work, &SourceLimitError{chunkname, tok.Pos.Line, "Depth", int64(lim.Depth)}
		}
		if work > lim.Work {
			return work, &SourceLimitError{chunkname, tok.Pos.Line, "Work", lim.Work}
		}
	}
}

// ReadSource reads the source file at path, refusing one longer than L's
// source size limit with a *SourceLimitError.
func ReadSource(L *lua.LState, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	// One byte past the size limit is enough for checkSource to refuse it.
	src, err := io.ReadAll(io.LimitReader(f, int64(sourceLimitsOf(L).Bytes)+1))
	if err != nil {
		return "", err
	}
	if lim := sourceLimitsOf(L).Bytes; len(src) > lim {
		return "", &SourceLimitError{path, 1 + strings.Count(string(src[:lim]), "\n"), "Bytes", int64(lim)}
	}
	return string(src), nil
}
