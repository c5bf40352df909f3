package scripting_test

import (
	"os"
	"strings"
	"testing"
)

// docs/embedding.md shows example_embed_test.go whole, as it runs.
func TestEmbeddingDocShowsTheExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_embed_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```go\n")
	block, _, ok2 := strings.Cut(block, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/embedding.md has no ```go block")
	}
	if block != string(src) {
		t.Fatal("docs/embedding.md's program differs from lua/scripting/example_embed_test.go: copy the file into the page")
	}
}
