package claims

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzValidateClaimsAndGold feeds arbitrary bytes as a claims file and a
// gold file: the validator never panics, a file it accepts has every
// claim counted, and it agrees with the map-based validator it replaced
// (errors, counts, labels, evidence, claims; strict and lenient).
func FuzzValidateClaimsAndGold(f *testing.F) {
	f.Add([]byte(`{"id":"c1","text":"Revenue rose 12% in 2023.","qualifiers":{"quantity":12}}`+"\n"), []byte(`{"claim_id":"c1","label":"supported","evidence":["s1"]}`+"\n"))
	f.Add([]byte("\xEF\xBB\xBF{\"id\":\"x\\ud800\",\"text\":\"t\"}\n{\"id\":\"x\",\"text\":\"\"}"), []byte(`{"claim_id":"x","label":"nope"}`))
	f.Add([]byte(`{"id":"c","text":"t","normalization":{"value":1e999},"cite":["a","a"],"label":"supported"}`), []byte("\n\n"))
	f.Fuzz(func(t *testing.T, claims, gold []byte) {
		dir := t.TempDir()
		cp, gp := filepath.Join(dir, "claims.jsonl"), filepath.Join(dir, "gold.jsonl")
		if err := os.WriteFile(cp, claims, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(gp, gold, 0o644); err != nil {
			t.Fatal(err)
		}
		v := NewValidator(false)
		if err := v.ReadFile(context.Background(), "claims", cp); err != nil {
			return
		}
		if err := v.ReadFile(context.Background(), "gold", gp); err != nil {
			return
		}
		n, _ := v.Counts()
		if n < 0 {
			t.Fatalf("negative claim count %d", n)
		}
		for id, ev := range v.GoldEvidence() {
			if len(ev) == 0 {
				t.Fatalf("claim %q: empty evidence list kept", id)
			}
		}
		compareValidators(t, claims, gold, false)
		compareValidators(t, claims, gold, true)
	})
}
