package sandbox

import (
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// BenchmarkPatterns runs typical pattern work in a sandboxed state
// ("ours") and in stock gopher-lua's ("gopher-lua").
func BenchmarkPatterns(b *testing.B) {
	words := strings.Repeat("alpha 12 beta, gamma 3456; delta 7 ", 300) // ~10 KB
	text := "  \t" + words[:1000] + " \n "                              // ~1 KB
	cases := []struct{ name, subject, body string }{
		{"trim-1KB", text, `return (string.match(s, "^%s*(.-)%s*$"))`},
		{"find-digits-1KB", text, `local n, i = 0, 1
			while true do
				local _, e = string.find(s, "%d+", i)
				if not e then return n end
				n, i = n + 1, e + 1
			end`},
		{"gmatch-digits-1KB", text, `local n = 0 for _ in string.gmatch(s, "%d+") do n = n + 1 end return n`},
		{"gsub-words-10KB", words, `return (string.gsub(s, "%w+", "<%0>"))`},
	}
	for _, c := range cases {
		for _, st := range []struct {
			name string
			new  func() *lua.LState
		}{
			{"ours", func() *lua.LState { return NewState(Options{}) }},
			{"gopher-lua", func() *lua.LState { return lua.NewState() }},
		} {
			b.Run(c.name+"/"+st.name, func(b *testing.B) {
				L := st.new()
				defer L.Close()
				L.SetGlobal("s", lua.LString(c.subject))
				if err := L.DoString("function bench() " + c.body + " end"); err != nil {
					b.Fatal(err)
				}
				fn := L.GetGlobal("bench")
				b.SetBytes(int64(len(c.subject)))
				b.ResetTimer()
				for range b.N {
					if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}); err != nil {
						b.Fatal(err)
					}
					L.Pop(1)
				}
			})
		}
	}
}
