package sandbox

import (
	"testing"

	"go.uber.org/goleak"
)

// The package promises no goroutines: fail if a test leaves one behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
