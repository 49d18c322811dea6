// Package chart draws line charts as standalone SVG, with linear or
// logarithmic axes: the growth curves of `retwis bench`.
package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Point is one data point of a Series.
type Point struct{ X, Y float64 }

// Series is one line of a chart.
type Series struct {
	Name   string
	Points []Point // drawn in this order
}

// Chart describes a line chart.
type Chart struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool // logarithmic axis, ticks at powers of 10
	Series                []Series
}

// Chart geometry, in SVG user units (pixels).
const (
	chartW, chartH = 800, 480
	padLeft        = 80  // Y tick labels and the Y label
	padRight       = 200 // the legend
	padTop         = 50  // the title
	padBottom      = 60  // X tick labels and the X label
)

// palette is Tableau 10: distinct hues of similar weight, readable on white.
var palette = []string{
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
}

// WriteSVG draws c as a self-contained SVG document: no scripts and no
// fonts beyond the viewer's sans-serif, so it can be opened directly in a
// browser or embedded in a page. Hovering a point shows its values. It
// returns an error, having written nothing, if c has no series, a series
// has no points, or a value is not finite or not positive on a log axis.
func (c Chart) WriteSVG(w io.Writer) error {
	x, y, err := c.axes()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %[1]d %[2]d" font-family="sans-serif" font-size="12">`+"\n", chartW, chartH)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="30" text-anchor="middle" font-size="16" font-weight="bold">%s</text>`+"\n",
		(padLeft+chartW-padRight)/2, esc(c.Title))
	writeAxes(&b, x, y, c.XLabel, c.YLabel)
	for i, s := range c.Series {
		writeSeries(&b, s, color(i), x, y)
		writeLegendEntry(&b, i, s.Name, color(i))
	}
	b.WriteString("</svg>\n")
	_, err = w.Write(b.Bytes())
	return err
}

// axes validates the data and fits an axis to each dimension.
func (c Chart) axes() (x, y axis, err error) {
	if len(c.Series) == 0 {
		return x, y, errors.New("loadtest: chart has no series")
	}
	xs, ys := []float64{}, []float64{}
	for _, s := range c.Series {
		if len(s.Points) == 0 {
			return x, y, fmt.Errorf("loadtest: series %q has no points", s.Name)
		}
		for _, p := range s.Points {
			if err := checkValue(p.X, c.LogX); err != nil {
				return x, y, fmt.Errorf("loadtest: series %q: x: %w", s.Name, err)
			}
			if err := checkValue(p.Y, c.LogY); err != nil {
				return x, y, fmt.Errorf("loadtest: series %q: y: %w", s.Name, err)
			}
			xs, ys = append(xs, p.X), append(ys, p.Y)
		}
	}
	// The Y axis starts at zero when it can: a chart of throughput that
	// starts at 4000 makes a 5% difference look like a doubling.
	x = newAxis(xs, c.LogX, false, padLeft, chartW-padRight)
	y = newAxis(ys, c.LogY, true, chartH-padBottom, padTop)
	return x, y, nil
}

func checkValue(v float64, log bool) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%v is not finite", v)
	case log && v <= 0:
		return fmt.Errorf("%v is not positive, on a log axis", v)
	}
	return nil
}

func color(i int) string {
	if i < len(palette) {
		return palette[i]
	}
	// Past the palette, step round the colour wheel by the golden angle,
	// which keeps successive hues far apart.
	return fmt.Sprintf("hsl(%.0f, 60%%, 45%%)", math.Mod(float64(i)*137.508, 360))
}

// writeAxes draws the grid, tick labels, frame and axis labels.
func writeAxes(b *bytes.Buffer, x, y axis, xLabel, yLabel string) {
	top, bottom := y.pixHi, y.pixLo
	left, right := x.pixLo, x.pixHi
	b.WriteString(`<g stroke="#ddd">` + "\n")
	for _, t := range x.ticks {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", x.pos(t.v), top, x.pos(t.v), bottom)
	}
	for _, t := range y.ticks {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", left, y.pos(t.v), right, y.pos(t.v))
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n",
		left, top, right-left, bottom-top)
	b.WriteString(`<g fill="#333">` + "\n")
	for _, t := range x.ticks {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x.pos(t.v), bottom+18, t.label)
	}
	for _, t := range y.ticks {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", left-6, y.pos(t.v), t.label)
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", (left+right)/2, chartH-15, esc(xLabel))
	fmt.Fprintf(b, `<text transform="translate(20 %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (top+bottom)/2, esc(yLabel))
}

// writeSeries draws s as a line through circles, each with a tooltip.
// A single point is a circle alone.
func writeSeries(b *bytes.Buffer, s Series, color string, x, y axis) {
	fmt.Fprintf(b, `<g stroke="%s" fill="%[1]s">`+"\n", color)
	if len(s.Points) > 1 {
		var pts strings.Builder
		for _, p := range s.Points {
			fmt.Fprintf(&pts, "%.1f,%.1f ", x.pos(p.X), y.pos(p.Y))
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke-width="2"/>`+"\n", strings.TrimSpace(pts.String()))
	}
	for _, p := range s.Points {
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3.5"><title>%s: %s, %s</title></circle>`+"\n",
			x.pos(p.X), y.pos(p.Y), esc(s.Name), formatValue(p.X), formatValue(p.Y))
	}
	b.WriteString("</g>\n")
}

// writeLegendEntry draws entry i of the legend, right of the plot. The
// swatch is a line, not a circle, so that circles are data points only.
func writeLegendEntry(b *bytes.Buffer, i int, name, color string) {
	left := float64(chartW - padRight + 20)
	top := float64(padTop + 10 + 22*i)
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n", left, top, left+24, top, color)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" dominant-baseline="middle">%s</text>`+"\n", left+32, top, esc(name))
}

// esc escapes s for XML text and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

// formatValue formats a data value for a tooltip: short, but exact for
// the integers a benchmark mostly produces.
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
