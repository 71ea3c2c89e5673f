// Package secret reads a secret that configuration names but does not
// hold: from an environment variable, or from a file.
package secret

import (
	"fmt"
	"os"
	"strings"
)

// Read is the secret in the environment variable env, or else in the file
// at path (its surrounding white space trimmed); envField and fileField
// name the settings in errors. An empty secret is an error.
func Read(env, path, envField, fileField string) (string, error) {
	if env != "" {
		s := os.Getenv(env)
		if s == "" {
			return "", fmt.Errorf("%s: $%s is empty", envField, env)
		}
		return s, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", fileField, err)
	}
	if s := strings.TrimSpace(string(b)); s != "" {
		return s, nil
	}
	return "", fmt.Errorf("%s: %s is empty", fileField, path)
}
