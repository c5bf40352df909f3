package sandbox

import (
	lua "github.com/yuin/gopher-lua"
)

// LookUp returns t[name], the method of a table callback (a facet's
// update), looked up on L's main thread outside any protected call: an
// __index that raises an error makes it an error as the callback's own
// are, whose traceback ends with the lookup.
func (c *Callbacks) LookUp(L *lua.LState, t *lua.LTable, name string) (lua.LValue, error) {
	if v := t.RawGetString(name); v != lua.LNil || t.Metatable == lua.LNil {
		return v, nil // no metamethod can run
	}
	if c.lookup == nil {
		c.lookup = L.NewFunction(func(L *lua.LState) int {
			L.Push(L.GetField(L.Get(1), L.CheckString(2)))
			return 1
		})
	}
	L.Push(c.lookup)
	L.Push(t)
	L.Push(lua.LString(name))
	prevFn, prevName := c.fn, c.method
	c.fn, c.method = c.lookup, name
	err := c.p.pcall(L, 2, 1, c.handler)
	c.fn, c.method = prevFn, prevName
	if err != nil {
		return lua.LNil, c.unwrap(err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v, nil
}
