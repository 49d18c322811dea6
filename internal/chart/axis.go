package chart

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// axis maps data values onto one pixel dimension of a chart.
type axis struct {
	log          bool
	lo, hi       float64 // the data range; log10 of it on a log axis
	pixLo, pixHi float64 // where lo and hi are drawn; pixHi < pixLo for Y
	ticks        []tick
}

// tick is a labelled value on an axis.
type tick struct {
	v     float64
	label string
}

// newAxis fits an axis to vals, which must be finite (and positive if
// log), rounding its ends out to ticks. zero asks for a linear axis to
// include 0.
func newAxis(vals []float64, log, zero bool, pixLo, pixHi float64) axis {
	a := axis{log: log, pixLo: pixLo, pixHi: pixHi}
	lo, hi := slices.Min(vals), slices.Max(vals)
	if log {
		a.lo, a.hi, a.ticks = logTicks(lo, hi)
	} else {
		if zero {
			lo, hi = min(lo, 0), max(hi, 0)
		}
		a.lo, a.hi, a.ticks = linearTicks(lo, hi)
	}
	return a
}

// pos returns the pixel coordinate of v.
func (a axis) pos(v float64) float64 {
	if a.log {
		v = math.Log10(v)
	}
	return a.pixLo + (v-a.lo)/(a.hi-a.lo)*(a.pixHi-a.pixLo)
}

// logTicks spans lo..hi (> 0) with whole decades, returning the range
// as exponents and a tick per decade, or per few decades if there are
// too many to label.
func logTicks(lo, hi float64) (float64, float64, []tick) {
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	if first == last {
		last++ // a single value, or all values one power of 10
	}
	// At most ten intervals, so that labels do not collide; the range
	// ends on a tick.
	step := (last - first + 9) / 10
	last = first + (last-first+step-1)/step*step
	var ticks []tick
	for e := first; e <= last; e += step {
		ticks = append(ticks, tick{math.Pow(10, float64(e)), powerOf10(e)})
	}
	return float64(first), float64(last), ticks
}

// powerOf10 labels 10^e as a plain number where that stays short.
func powerOf10(e int) string {
	if e < -3 || e > 6 {
		return fmt.Sprintf("1e%d", e)
	}
	return strconv.FormatFloat(math.Pow(10, float64(e)), 'f', -1, 64)
}

// linearTicks rounds lo..hi out to multiples of a "nice" step (1, 2 or 5
// times a power of 10) giving about five intervals, and returns the new
// range and a tick per step.
func linearTicks(lo, hi float64) (float64, float64, []tick) {
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	exp := math.Floor(math.Log10((hi - lo) / 5))
	mag := math.Pow(10, exp)
	step, stepExp := mag*10, exp+1
	for _, m := range []float64{1, 2, 5} {
		if (hi-lo)/(m*mag) <= 6 {
			step, stepExp = m*mag, exp
			break
		}
	}
	first, last := math.Floor(lo/step), math.Ceil(hi/step)
	// Multiplying integers by the step, rather than adding it up, avoids
	// labels like 0.30000000000000004; decimals trims what is left.
	decimals := max(0, int(-stepExp))
	var ticks []tick
	for i := first; i <= last; i++ {
		v := i * step
		ticks = append(ticks, tick{v, strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return first * step, last * step, ticks
}
