package rules

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/label"
)

// The names a claim states: capitalised runs joined by connectors, without
// sentence openers, units, months, or a lone capitalised first word when
// the claim names something else.
func TestNames(t *testing.T) {
	for text, want := range map[string][]string{
		"Linarlin Medical Centre has 1,630 beds.":                                       {"linarlin medical centre"},
		"In 2023, nitrate levels in Kalo Lake averaged 14.4 mg/L.":                      {"kalo lake"},
		"The census of 2022 counted 310,000 residents in Ithneith Falls.":               {"ithneith falls"},
		"Tesbrihal Institute of Technology enrolled 16,600 students in 2023.":           {"tesbrihal institute of technology"},
		"International students made up 35% of enrolment at Vesu College in 2022.":      {"vesu college"},
		"Mimivor had 127,000 residents in 2023.":                                        {"mimivor"},
		"In March 2022, Kira Tesbrizen became mayor of Quavor Harbour.":                 {"kira tesbrizen", "quavor harbour"},
		"Several studies have shown the association of non-coding RNAs with apoptosis.": {"rnas"},
		"the fee is $150.": nil,
	} {
		if got := names(text); !slices.Equal(got, want) {
			t.Errorf("names(%q) = %q, want %q", text, got, want)
		}
	}
}

// A name is mentioned as a whole: not as part of a longer name on either
// side, in any case, beside punctuation and possessives.
func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		text, name string
		want       bool
	}{
		{"Linlohal Medical Centre has 1,210 beds.", "linarlin medical centre", false},
		{"Mimivor Falls had 98,000 residents.", "mimivor", false},
		{"In 2023, nitrate levels in Kadan Kalo Lake averaged 33.8 mg/L.", "kalo lake", false},
		{"The University of Oxford was founded early.", "oxford", false},
		{"In 2023, nitrate levels in Kalo Lake averaged 14.4 mg/L.", "kalo lake", true},
		{"Mimivor's population grew; Mimivor had 127,000 residents.", "mimivor", true},
		{"The lake (Kalo Lake) is deep.", "kalo lake", true},
		{"KALO LAKE is deep.", "kalo lake", true},
		{"Mimivor. Falls are common there.", "mimivor", true},
	} {
		if got := mentions(wordsOfText(tc.text), tc.name); got != tc.want {
			t.Errorf("mentions(%q, %q) = %v, want %v", tc.text, tc.name, got, tc.want)
		}
	}
}

// Different entities that share name words do not conflict (other
// entities, other numbers, other kinds of names); one entity given two
// values by two documents does, whichever ranks first, and with or
// without the claim's structured fields.
func TestConflictSameEntityOnly(t *testing.T) {
	all, _ := Parse("all")
	o := Options{Enabled: all, Effect: EffectOverride}
	for _, tc := range []struct {
		name      string
		claim     claims.Claim
		a, b      string
		want      label.Label
		wantFlags []string
	}{
		{"two medical centres", claims.Claim{Text: "Linarlin Medical Centre has 1,630 beds."},
			"Linarlin Medical Centre has 1,630 beds.", "Linlohal Medical Centre has 1,210 beds.", label.Supported, nil},
		{"a town and its falls", claims.Claim{Text: "Mimivor had 127,000 residents in 2023."},
			"Mimivor had 127,000 residents in 2023.", "Mimivor Falls had 98,000 residents in 2023.", label.Supported, nil},
		{"a lake inside a longer name", claims.Claim{Text: "In 2023, nitrate levels in Kalo Lake averaged 14.4 mg/L."},
			"In 2023, nitrate levels in Kalo Lake averaged 14.4 mg/L.", "In 2023, nitrate levels in Kadan Kalo Lake averaged 33.8 mg/L.", label.Supported, nil},
		{"two institutes, a year", claims.Claim{Text: "Arhal Harbour received its town charter in 1642."},
			"Arhal Harbour received its town charter in 1642.", "Arhal Bay Harbour received its town charter in 1701.", label.Supported, nil},
		{"one hospital, two values", claims.Claim{Text: "Halka Medical Centre has 1,340 beds."},
			"Halka Medical Centre has 1,340 beds.", "Halka Medical Centre has 1,100 beds.", label.Insufficient, []string{FlagConflict}},
		{"one hospital, two values, the other first", claims.Claim{Text: "Halka Medical Centre has 1,340 beds."},
			"Halka Medical Centre has 1,100 beds.", "Halka Medical Centre has 1,340 beds.", label.Insufficient, []string{FlagConflict}},
		{"one bridge, two years", claims.Claim{Text: "The Harlow bridge opened in 1850."},
			"The Harlow bridge opened in 1850.", "The Harlow bridge opened in 1870.", label.Insufficient, []string{FlagConflict}},
		{"a pronoun after the name", claims.Claim{Text: "Halka Medical Centre has 1,340 beds."},
			"Halka Medical Centre has 1,340 beds.", "Halka Medical Centre opened in 1990. It has 1,100 beds.", label.Insufficient, []string{FlagConflict}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, deciding := range []int{0, 1} {
				in := Input{Claim: tc.claim, Passages: []Passage{passage("a", tc.a), passage("b", tc.b)}, Label: label.Supported, Deciding: deciding}
				r := Apply(in, o)
				if r.Label != tc.want || !slices.Equal(r.Flags, tc.wantFlags) {
					t.Errorf("deciding %d: got %q %v, want %q %v", deciding, r.Label, r.Flags, tc.want, tc.wantFlags)
				}
			}
		})
	}
}

// keptWords is wordsOfText whichever texts were read before: texts read
// twice, and more distinct texts than the memo holds.
func TestKeptWordsAreTheTextsWords(t *testing.T) {
	texts := []string{"Lake Orrin is 40 metres deep.", "It opened in 1911; O'Neil and Coster-Waldau spoke.", "mg/L of Lake Orrin"}
	for i := range keptWordsSize + 10 {
		texts = append(texts, fmt.Sprintf("Plant %d of Acme Corp made %d tonnes.", i, i*3))
	}
	texts = append(texts, texts[:5]...)
	for _, s := range texts {
		if got, want := keptWords(s), wordsOfText(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: kept %+v, want %+v", s, got, want)
		}
	}
}
