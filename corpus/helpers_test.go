package corpus

import (
	"bytes"
	"encoding/json"
)

// jsonLine encodes v as one JSONL line (with newline).
func jsonLine(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.String(), err
}
