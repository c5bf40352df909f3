package scripting

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/scripting/internal/luapattern"
)

// string.find, match, gmatch and gsub are gopher-lua v1.1.2's (stringlib.go,
// MIT License, Copyright (c) 2015 Yusuke Inuzuka), on a copy of its matcher
// that a budget can stop: a pattern such as ("a-"):rep(5) .. "b" backtracks
// for hours inside one builtin call, where the VM's context check never
// runs. Their results and errors are gopher-lua's.

// installPatterns replaces the pattern functions of the string library.
func installPatterns(L *lua.LState) {
	mod, ok := L.GetGlobal("string").(*lua.LTable)
	if !ok {
		return
	}
	mod.RawSetString("find", L.NewFunction(strFind))
	mod.RawSetString("match", L.NewFunction(strMatch))
	mod.RawSetString("gsub", L.NewFunction(strGsub))
	gmatch := L.NewClosure(strGmatch, L.NewFunction(strGmatchIter))
	mod.RawSetString("gmatch", gmatch)
	mod.RawSetString("gfind", gmatch)
}

// findPattern is luapattern.Find with the state's budget as its stop.
func findPattern(L *lua.LState, pattern string, src []byte, offset, limit int) []*luapattern.MatchData {
	mds, err := luapattern.Find(pattern, src, offset, limit, patternCheck(L))
	if err == luapattern.ErrStopped {
		raise(L, "%s", governorOf(L).message())
	}
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	return mds
}

func readOnlyBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func luaIndex2StringIndex(str string, i int, start bool) int {
	if start && i != 0 {
		i--
	}
	l := len(str)
	if i < 0 {
		i = l + i + 1
	}
	i = max(0, i)
	if !start && i > l {
		i = l
	}
	return i
}

func strFind(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	if len(pattern) == 0 {
		L.Push(lua.LNumber(1))
		L.Push(lua.LNumber(0))
		return 2
	}
	init := luaIndex2StringIndex(str, L.OptInt(3, 1), true)
	plain := false
	if L.GetTop() == 4 {
		plain = lua.LVAsBool(L.Get(4))
	}

	if plain {
		pos := strings.Index(str[init:], pattern)
		if pos < 0 {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(init+pos) + 1)
		L.Push(lua.LNumber(init + pos + len(pattern)))
		return 2
	}

	mds := findPattern(L, pattern, readOnlyBytes(str), init, 1)
	if len(mds) == 0 {
		L.Push(lua.LNil)
		return 1
	}
	md := mds[0]
	L.Push(lua.LNumber(md.Capture(0) + 1))
	L.Push(lua.LNumber(md.Capture(1)))
	for i := 2; i < md.CaptureLength(); i += 2 {
		if md.IsPosCapture(i) {
			L.Push(lua.LNumber(md.Capture(i)))
		} else {
			L.Push(lua.LString(str[md.Capture(i):md.Capture(i+1)]))
		}
	}
	return md.CaptureLength()/2 + 1
}

func strGsub(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl := L.CheckAny(3)
	limit := L.OptInt(4, -1)

	mds := findPattern(L, pat, readOnlyBytes(str), 0, limit)
	if len(mds) == 0 {
		L.SetTop(1)
		L.Push(lua.LNumber(0))
		return 2
	}
	switch lv := repl.(type) {
	case lua.LString:
		L.Push(lua.LString(strGsubStr(L, str, string(lv), mds)))
	case *lua.LTable:
		L.Push(lua.LString(strGsubTable(L, str, lv, mds)))
	case *lua.LFunction:
		L.Push(lua.LString(strGsubFunc(L, str, lv, mds)))
	}
	L.Push(lua.LNumber(len(mds)))
	return 2
}

type replaceInfo struct {
	Indicies []int
	String   string
}

func checkCaptureIndex(L *lua.LState, m *luapattern.MatchData, idx int) {
	if idx <= 2 {
		return
	}
	if idx >= m.CaptureLength() {
		L.RaiseError("invalid capture index")
	}
}

func capturedString(L *lua.LState, m *luapattern.MatchData, str string, idx int) string {
	checkCaptureIndex(L, m, idx)
	if idx >= m.CaptureLength() && idx == 2 {
		idx = 0
	}
	if m.IsPosCapture(idx) {
		return fmt.Sprint(m.Capture(idx))
	}
	return str[m.Capture(idx):m.Capture(idx+1)]
}

func strGsubDoReplace(str string, info []replaceInfo) string {
	offset := 0
	buf := []byte(str)
	for _, replace := range info {
		oldlen := len(buf)
		b1 := append([]byte(""), buf[0:offset+replace.Indicies[0]]...)
		b2 := []byte("")
		index2 := offset + replace.Indicies[1]
		if index2 <= len(buf) {
			b2 = append(b2, buf[index2:]...)
		}
		buf = append(b1, replace.String...)
		buf = append(buf, b2...)
		offset += len(buf) - oldlen
	}
	return string(buf)
}

func strGsubStr(L *lua.LState, str string, repl string, matches []*luapattern.MatchData) string {
	infoList := make([]replaceInfo, 0, len(matches))
	for _, match := range matches {
		start, end := match.Capture(0), match.Capture(1)
		sc := newFlagScanner('%', repl)
		for c, eos := sc.Next(); !eos; c, eos = sc.Next() {
			if !sc.ChangeFlag {
				if sc.HasFlag {
					if c >= '0' && c <= '9' {
						sc.AppendString(capturedString(L, match, str, 2*(int(c)-48)))
					} else {
						sc.AppendChar('%')
						sc.AppendChar(c)
					}
					sc.HasFlag = false
				} else {
					sc.AppendChar(c)
				}
			}
		}
		infoList = append(infoList, replaceInfo{[]int{start, end}, sc.String()})
	}
	return strGsubDoReplace(str, infoList)
}

func strGsubTable(L *lua.LState, str string, repl *lua.LTable, matches []*luapattern.MatchData) string {
	infoList := make([]replaceInfo, 0, len(matches))
	for _, match := range matches {
		idx := 0
		if match.CaptureLength() > 2 { // has captures
			idx = 2
		}
		var value lua.LValue
		if match.IsPosCapture(idx) {
			value = L.GetTable(repl, lua.LNumber(match.Capture(idx)))
		} else {
			value = L.GetField(repl, str[match.Capture(idx):match.Capture(idx+1)])
		}
		if !lua.LVIsFalse(value) {
			infoList = append(infoList, replaceInfo{[]int{match.Capture(0), match.Capture(1)}, lua.LVAsString(value)})
		}
	}
	return strGsubDoReplace(str, infoList)
}

func strGsubFunc(L *lua.LState, str string, repl *lua.LFunction, matches []*luapattern.MatchData) string {
	infoList := make([]replaceInfo, 0, len(matches))
	for _, match := range matches {
		start, end := match.Capture(0), match.Capture(1)
		L.Push(repl)
		nargs := 0
		if match.CaptureLength() > 2 { // has captures
			for i := 2; i < match.CaptureLength(); i += 2 {
				if match.IsPosCapture(i) {
					L.Push(lua.LNumber(match.Capture(i)))
				} else {
					L.Push(lua.LString(capturedString(L, match, str, i)))
				}
				nargs++
			}
		} else {
			L.Push(lua.LString(capturedString(L, match, str, 0)))
			nargs++
		}
		L.Call(nargs, 1)
		ret := L.Get(-1)
		L.Pop(1)
		if !lua.LVIsFalse(ret) {
			infoList = append(infoList, replaceInfo{[]int{start, end}, lua.LVAsString(ret)})
		}
	}
	return strGsubDoReplace(str, infoList)
}

type strMatchData struct {
	str     string
	pos     int
	matches []*luapattern.MatchData
}

func strGmatchIter(L *lua.LState) int {
	md := L.CheckUserData(1).Value.(*strMatchData)
	str := md.str
	matches := md.matches
	idx := md.pos
	md.pos++
	if idx == len(matches) {
		return 0
	}
	L.Push(L.Get(1))
	match := matches[idx]
	if match.CaptureLength() == 2 {
		L.Push(lua.LString(str[match.Capture(0):match.Capture(1)]))
		return 1
	}

	for i := 2; i < match.CaptureLength(); i += 2 {
		if match.IsPosCapture(i) {
			L.Push(lua.LNumber(match.Capture(i)))
		} else {
			L.Push(lua.LString(str[match.Capture(i):match.Capture(i+1)]))
		}
	}
	return match.CaptureLength()/2 - 1
}

func strGmatch(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	mds := findPattern(L, pattern, []byte(str), 0, -1)
	L.Push(L.Get(lua.UpvalueIndex(1)))
	ud := L.NewUserData()
	ud.Value = &strMatchData{str, 0, mds}
	L.Push(ud)
	return 2
}

func strMatch(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	offset := L.OptInt(3, 1)
	l := len(str)
	if offset < 0 {
		offset = l + offset + 1
	}
	offset--
	if offset < 0 {
		offset = 0
	}

	mds := findPattern(L, pattern, readOnlyBytes(str), offset, 1)
	if len(mds) == 0 {
		L.Push(lua.LNil)
		return 0
	}
	md := mds[0]
	nsubs := md.CaptureLength() / 2
	switch nsubs {
	case 1:
		L.Push(lua.LString(str[md.Capture(0):md.Capture(1)]))
		return 1
	default:
		for i := 2; i < md.CaptureLength(); i += 2 {
			if md.IsPosCapture(i) {
				L.Push(lua.LNumber(md.Capture(i)))
			} else {
				L.Push(lua.LString(str[md.Capture(i):md.Capture(i+1)]))
			}
		}
		return nsubs - 1
	}
}

// flagScanner is gopher-lua's (utils.go) for gsub's replacement string,
// with its start and end markers empty.
type flagScanner struct {
	flag       byte
	buf        []byte
	str        string
	Length     int
	Pos        int
	HasFlag    bool
	ChangeFlag bool
}

func newFlagScanner(flag byte, str string) *flagScanner {
	return &flagScanner{flag: flag, buf: make([]byte, 0, len(str)), str: str, Length: len(str)}
}

func (fs *flagScanner) AppendString(str string) { fs.buf = append(fs.buf, str...) }

func (fs *flagScanner) AppendChar(ch byte) { fs.buf = append(fs.buf, ch) }

func (fs *flagScanner) String() string { return string(fs.buf) }

func (fs *flagScanner) Next() (byte, bool) {
	c := byte('\000')
	fs.ChangeFlag = false
	if fs.Pos == fs.Length {
		return c, true
	}
	c = fs.str[fs.Pos]
	if c == fs.flag {
		if fs.Pos < (fs.Length-1) && fs.str[fs.Pos+1] == fs.flag {
			fs.HasFlag = false
			fs.AppendChar(fs.flag)
			fs.Pos += 2
			return fs.Next()
		} else if fs.Pos != fs.Length-1 {
			fs.ChangeFlag = true
			fs.HasFlag = true
		}
	}
	fs.Pos++
	return c, false
}
