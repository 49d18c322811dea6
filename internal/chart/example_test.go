package chart_test

import (
	"log"
	"os"

	"github.com/retwis/retwis/internal/chart"
)

func ExampleChart_WriteSVG() {
	c := chart.Chart{
		Title:  "Throughput by connections",
		XLabel: "connections",
		YLabel: "requests per second",
		LogX:   true,
		Series: []chart.Series{
			{Name: "GET /", Points: []chart.Point{{1, 3100}, {10, 14200}, {100, 16800}}},
			{Name: "POST /post", Points: []chart.Point{{1, 1900}, {10, 8100}, {100, 9300}}},
		},
	}
	f, err := os.Create("throughput.svg")
	if err != nil {
		log.Fatal(err)
	}
	if err := c.WriteSVG(f); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
