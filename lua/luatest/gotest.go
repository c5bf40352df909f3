package luatest

import (
	"path/filepath"
	"testing"
)

// RunGo runs every *_test.lua under dir (as Find finds them) as Go subtests:
// t.Run(file relative to dir), then t.Run(test name) for each test. A
// failure is t.Error with the report block (file:line first), a skip is
// t.Skip, and t:log lines go to t.Log.
func RunGo(t *testing.T, dir string, factory Factory) {
	t.Helper()
	runGo(goT{t}, dir, factory)
}

// tester is the part of *testing.T that runGo uses, so tests can record it.
type tester interface {
	Helper()
	Error(args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
	Log(args ...any)
	Run(name string, f func(tester)) bool
}

type goT struct{ *testing.T }

func (t goT) Run(name string, f func(tester)) bool {
	return t.T.Run(name, func(t *testing.T) { f(goT{t}) })
}

func runGo(t tester, dir string, factory Factory) {
	t.Helper()
	files, err := Find(dir)
	if err != nil {
		t.Fatalf("luatest: %v", err)
		return
	}
	if len(files) == 0 {
		t.Fatalf("luatest: no *_test.lua files under %s", dir)
		return
	}
	for _, file := range files {
		name, err := filepath.Rel(dir, file)
		if err != nil {
			name = file
		}
		t.Run(filepath.ToSlash(name), func(t tester) {
			s, failed := openSuite(file, factory)
			if failed != nil {
				t.Error(failed.String())
				return
			}
			defer s.close()
			for i := range s.tests {
				t.Run(s.tests[i].name, func(t tester) {
					report(t, s.run(i))
				})
			}
		})
	}
}

func report(t tester, r Result) {
	for _, l := range r.Logs {
		t.Log(l)
	}
	switch r.Status {
	case Fail:
		r.Logs = nil
		t.Error(r.String())
	case Skip:
		t.Skip(r.Message)
	}
}
