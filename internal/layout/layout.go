// Package layout holds no code: its tests hold the house rules that
// ARCHITECTURE.md states, so that a change which breaks them fails CI
// instead of quietly blurring the map. The rules: the top-level packages
// import only downward (cmd → fleet → bot → config → checks → pins,
// sources → versions, web; internal anywhere), pins and sources never import
// each other, the rooms of bot import one way (publishing → planning →
// verifying, with bot/report shared and importing no room), and every
// package has an entry in ARCHITECTURE.md's code map.
package layout
