package loop_test

import (
	"testing"

	"go.uber.org/goleak"
)

// SimpleHost and the thread source start goroutines: fail if a test leaves
// one behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
