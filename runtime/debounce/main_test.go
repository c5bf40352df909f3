package debounce

import (
	"testing"

	"go.uber.org/goleak"
)

// Real-time debouncers run callbacks on timer goroutines: fail if a test
// leaves one behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
