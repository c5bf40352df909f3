package sandbox

import (
	"fmt"
	"testing"
)

func TestSizeLimitNames(t *testing.T) {
	for n, want := range map[sizeLimit]string{1 << 30: "1 GiB", 3 << 30: "3 GiB", 1536 << 20: "1536 MiB", 64 << 10: "64 KiB", 1000: "1000 B", 1<<30 + 1: "1073741825 B"} {
		if got := fmt.Sprint(n); got != want {
			t.Errorf("sizeLimit(%d) = %q, want %q", int64(n), got, want)
		}
	}
}
