package scripting

import (
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"pgregory.net/rapid"

	"github.com/metronome-rt/metronome/internal/schedmodel"
)

// luaSystem drives runtime-scheduler from Lua with Lua callbacks, for the
// same property the Go scheduler is checked with.
type luaSystem struct{ L *lua.LState }

const propertyPrelude = `
Temporal = require "temporal"
local RS = require "runtime-scheduler"
T0 = Temporal.instant.parse("2000-01-01T00:00:00Z")
s = RS.create{ clock = Temporal.clock.fixed(T0) }
handles, log = {}, {}
function elapsed() return (s:now() - T0)["total-ns"](s:now() - T0) end
function schedule(delay, interval, spawn)
  local id
  local function cb()
    log[#log + 1] = ("%d@%d"):format(id, elapsed())
    if spawn > 0 then schedule(spawn, 0, 0) end
  end
  local h
  if interval > 0 then
    h = s:schedule_every{ interval = Temporal.duration{ nanoseconds = interval }, callback = cb }
  else
    h = s:schedule_once{ delay = Temporal.duration{ nanoseconds = delay }, callback = cb }
  end
  id = h.id
  handles[id] = h
  return id
end
function pending()
  local ids = {}
  for i, j in ipairs(s:list()) do ids[i] = j.id end
  return ids
end
`

func newLuaSystem(t *rapid.T) *luaSystem {
	L := NewState(Options{})
	if err := L.DoString(propertyPrelude); err != nil {
		t.Fatal(err)
	}
	return &luaSystem{L}
}

func (l *luaSystem) do(format string, args ...any) {
	if err := l.L.DoString(fmt.Sprintf(format, args...)); err != nil {
		panic(err)
	}
}

func (l *luaSystem) ids(global string) []uint64 {
	var out []uint64
	l.L.GetGlobal(global).(*lua.LTable).ForEach(func(_, v lua.LValue) {
		out = append(out, uint64(v.(lua.LNumber)))
	})
	return out
}

func (l *luaSystem) Schedule(delay, interval, spawn int64) uint64 {
	l.do("last = schedule(%d, %d, %d)", delay, interval, spawn)
	return uint64(l.L.GetGlobal("last").(lua.LNumber))
}
func (l *luaSystem) Cancel(id uint64)  { l.do("handles[%d]:cancel()", id) }
func (l *luaSystem) Clear()            { l.do("s:clear()") }
func (l *luaSystem) Advance(ns int64)  { l.do("s:advance(Temporal.duration{ nanoseconds = %d })", ns) }
func (l *luaSystem) Update(ms float64) { l.do("s:update(%v)", ms) }
func (l *luaSystem) Pending() []uint64 { l.do("ids = pending()"); return l.ids("ids") }
func (l *luaSystem) Trace() []string {
	var out []string
	l.L.GetGlobal("log").(*lua.LTable).ForEach(func(_, v lua.LValue) { out = append(out, v.String()) })
	return out
}

func TestLuaSchedulerMatchesReferenceModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sys := newLuaSystem(t)
		defer sys.L.Close()
		schedmodel.Check(t, sys)
	})
}
