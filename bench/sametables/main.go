// sametables A B: metrics, confusion, calibration and risk-coverage tables of two
// report folders equal row for row (run_instance/started_at masked).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/claimaudit/claimaudit/reports"
)

func same[T any](a, b, name string) bool {
	ra, err := reports.ReadParquet[T](filepath.Join(a, name))
	if err != nil {
		fmt.Println(err)
		return false
	}
	rb, err := reports.ReadParquet[T](filepath.Join(b, name))
	if err != nil {
		fmt.Println(err)
		return false
	}
	if len(ra) != len(rb) {
		fmt.Printf("%s: %d rows vs %d\n", name, len(ra), len(rb))
		return false
	}
	bad := 0
	for i := range ra {
		mask(&ra[i])
		mask(&rb[i])
		if !reflect.DeepEqual(ra[i], rb[i]) {
			if bad < 5 {
				fmt.Printf("%s row %d:\n  %+v\n  %+v\n", name, i, ra[i], rb[i])
			}
			bad++
		}
	}
	fmt.Printf("%s: %d rows, %d differ\n", name, len(ra), bad)
	return bad == 0
}

// mask zeroes a row's run_instance and started_at: the execution that
// wrote the table (a report over shards is an execution of its own, so
// two such reports never share them).
func mask[T any](row *T) {
	v := reflect.ValueOf(row).Elem()
	for _, name := range []string{"RunInstance", "StartedAt"} {
		if f := v.FieldByName(name); f.IsValid() && f.CanSet() {
			f.SetZero()
		}
	}
}

func main() {
	a, b := os.Args[1], os.Args[2]
	ok := same[reports.MetricRow](a, b, "metrics.parquet")
	ok = same[reports.ConfusionRow](a, b, "confusion.parquet") && ok
	ok = same[reports.CalibrationRow](a, b, "calibration.parquet") && ok
	ok = same[reports.RiskCoverageRow](a, b, "risk_coverage.parquet") && ok
	if !ok {
		os.Exit(1)
	}
}
