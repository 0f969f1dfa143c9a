package remote

import (
	"fmt"
	"os"

	"github.com/claimaudit/claimaudit/userfile"
)

// SecretFromEnv reads an API key from the environment variable name (via
// getenv, os.Getenv when nil). An empty or unset variable is an error
// unless name is defaultName, the conventional variable a server that
// needs no key leaves unset. who names the caller in errors ("openai
// verifier", "llm extractor"). Both OpenAI-compatible clients (the judge
// and the extractor) read their key this way.
func SecretFromEnv(getenv func(string) string, name, defaultName, who string) (string, error) {
	if name == "" {
		return "", nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	v := getenv(name)
	if v == "" && name != defaultName {
		return "", fmt.Errorf("%s: --api-key-env %s: the variable is empty or unset", who, name)
	}
	return v, nil
}

// ReadPrompt returns the prompt template in the file at path, or def when
// path is "". who names the caller in errors.
func ReadPrompt(path, def, who string) (string, error) {
	if path == "" {
		return def, nil
	}
	b, err := userfile.ReadFile(path, userfile.MaxSmall)
	if err != nil {
		return "", fmt.Errorf("%s: --prompt: %w", who, err)
	}
	return string(b), nil
}
