//go:build race

package auth_test

const raceEnabled = true
