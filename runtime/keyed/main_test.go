package keyed_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The scheduler's goroutines end with Close: fail if a test leaves one.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
