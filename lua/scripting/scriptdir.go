package scripting

import (
	"errors"
	"path/filepath"
	"strings"
)

// errLeavesScriptDir is why require refuses a file that a symbolic link
// leads out of the script folder.
var errLeavesScriptDir = errors.New("it is a link to a file outside the script's folder; modules load only from the script's folder")

// inScriptDir reports nil when path, a file below dir, resolves (links
// followed) to a file below dir resolved. moduleBase keeps names from
// climbing out; a link in the folder could still lead anywhere.
func inScriptDir(dir, path string) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	realPath, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(realDir, realPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return errLeavesScriptDir
	}
	return nil
}

// maxModuleName bounds what require searches for: longer names name no
// file, and gopher-lua's "module NAME not found" would echo them whole.
const maxModuleName = 255
