package chart_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/chart"
)

// svgElements parses svg as XML and counts its elements by name, and
// collects its text.
func svgElements(t *testing.T, svg []byte) (map[string]int, string) {
	t.Helper()
	counts := make(map[string]int)
	var text strings.Builder
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return counts, text.String()
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			counts[tok.Name.Local]++
		case xml.CharData:
			text.Write(tok)
			text.WriteString("\n")
		}
	}
}

func TestChartWriteSVG(t *testing.T) {
	series := []chart.Series{
		{Name: `<script>alert("x")</script>`, Points: []chart.Point{{1, 100}, {10, 900}, {100, 4000}}},
		{Name: "Tom & Jerry's", Points: []chart.Point{{2, 0.5}, {20, 7}}},
		{Name: "single", Points: []chart.Point{{50, 50}}},
	}
	tests := []struct {
		name       string
		logX, logY bool
		wantLabels []string // tick labels that must appear
	}{
		{"linear", false, false, []string{"0", "20", "100", "1000", "4000"}},
		{"log x", true, false, []string{"1", "10", "100"}},
		{"log both", true, true, []string{"0.1", "1", "10", "100", "1000", "10000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chart.Chart{
				Title: "Throughput <by> connections", XLabel: "connections", YLabel: "req/s",
				LogX: tt.logX, LogY: tt.logY, Series: series,
			}
			var buf bytes.Buffer
			if err := c.WriteSVG(&buf); err != nil {
				t.Fatal(err)
			}
			counts, text := svgElements(t, buf.Bytes())
			if counts["svg"] != 1 || counts["script"] != 0 {
				t.Errorf("elements %v: want one svg and no script", counts)
			}
			if counts["circle"] != 6 {
				t.Errorf("%d circles, want one per point (6)", counts["circle"])
			}
			lines := strings.Split(text, "\n")
			for _, want := range append([]string{c.Title, c.XLabel, c.YLabel, series[0].Name, series[1].Name, series[2].Name}, tt.wantLabels...) {
				if !slices.Contains(lines, want) {
					t.Errorf("no text %q in the SVG", want)
				}
			}
		})
	}
}

func TestChartDistinctColours(t *testing.T) {
	var c chart.Chart
	for i := range 15 {
		c.Series = append(c.Series, chart.Series{Name: string(rune('a' + i)), Points: []chart.Point{{float64(i), 1}}})
	}
	var buf bytes.Buffer
	if err := c.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	colours := make(map[string]bool)
	d := xml.NewDecoder(&buf)
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			t.Fatal("a one-point series has a polyline")
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "g" {
			for _, a := range se.Attr {
				if a.Name.Local == "stroke" && a.Value != "#ddd" {
					colours[a.Value] = true
				}
			}
		}
	}
	if len(colours) != len(c.Series) {
		t.Errorf("%d distinct series colours for %d series", len(colours), len(c.Series))
	}
}

func TestChartRejectsBadData(t *testing.T) {
	points := func(ps ...chart.Point) []chart.Series { return []chart.Series{{Name: "s", Points: ps}} }
	tests := []struct {
		name  string
		chart chart.Chart
	}{
		{"no series", chart.Chart{}},
		{"empty series", chart.Chart{Series: []chart.Series{{Name: "empty"}}}},
		{"zero on log x", chart.Chart{LogX: true, Series: points(chart.Point{0, 1})}},
		{"negative on log y", chart.Chart{LogY: true, Series: points(chart.Point{1, -1})}},
		{"NaN", chart.Chart{Series: points(chart.Point{math.NaN(), 1})}},
		{"infinity", chart.Chart{Series: points(chart.Point{1, math.Inf(1)})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tt.chart.WriteSVG(&buf); err == nil {
				t.Error("WriteSVG succeeded")
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", buf.Len())
			}
		})
	}
}
