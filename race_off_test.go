//go:build !race

package bpx

const raceEnabled = false
