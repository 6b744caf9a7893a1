package bpx

// RaceEnabled tells the external tests whether the race detector runs.
const RaceEnabled = raceEnabled
