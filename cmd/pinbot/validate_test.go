package main

import (
	"strings"
	"testing"

	"github.com/pinbot-dev/pinbot/internal/corpus"
)

// TestConfigValidatedAtLoad: every value of the configuration is checked
// when it loads: a bad one is exit 2 with file:line:column and the key,
// before any request to a package source, for every command that loads it.
func TestConfigValidatedAtLoad(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"unknown source", "packages:\n  numba:\n    require: [pypi, pypy]\n",
			`.pinbot.yml:3:21: packages.numba.require[1]: unknown source "pypy"`},
		{"unknown probe preset", "packages:\n  numba:\n    probes:\n      - preset: numba-unique-id\n",
			`.pinbot.yml:4:17: packages.numba.probes[0].preset: unknown preset "numba-unique-id"`},
		{"unknown symbols preset", "packages:\n  tensorflow:\n    symbols: {preset: tf-protobuf}\n",
			`.pinbot.yml:3:23: packages.tensorflow.symbols.preset: unknown preset "tf-protobuf"`},
		{"conda subdir that cannot exist", "packages:\n  numba:\n    platforms: [linux-64, osx-64-arm]\n",
			`.pinbot.yml:3:27: packages.numba.platforms[1]: "osx-64-arm" is not a conda platform`},
		{"wheel platform that cannot exist", "packages:\n  tensorflow:\n    symbols:\n      wheel: {platform: musllinux_1_2_amd64}\n",
			`.pinbot.yml:4:25: packages.tensorflow.symbols.wheel.platform: platform "musllinux_1_2_amd64"`},
		{"cap strategy", "packages:\n  numba:\n    cap: sideways\n",
			`.pinbot.yml:3:10: packages.numba.cap: unknown cap strategy "sideways"`},
		{"yanked", "packages:\n  numba:\n    yanked: ignore\n",
			`.pinbot.yml:3:13: packages.numba.yanked: unknown value "ignore" (expected one of: report, follow)`},
		{"pypi api", "sources:\n  pypi:\n    api: xmlrpc\n",
			`.pinbot.yml:3:10: sources.pypi.api: unknown value "xmlrpc" (expected one of: json, simple)`},
		{"notify event", "notify:\n  on: [failure, prs]\n",
			`.pinbot.yml:2:17: notify.on[1]: unknown event "prs"`},
		{"on-failure", "pull-requests:\n  packages:\n    numba: {on-failure: ignore}\n",
			`.pinbot.yml:3:25: pull-requests.packages.numba.on-failure: unknown value "ignore"`},
		{"probe constraints", "packages:\n  numba:\n    probe-environment: {constraints: pinned}\n",
			`.pinbot.yml:3:38: packages.numba.probe-environment.constraints: unknown value "pinned"`},
		{"symbols artifact", "packages:\n  tensorflow:\n    symbols: {preset: tensorflow-protobuf, artifact: sdist}\n",
			`.pinbot.yml:3:54: packages.tensorflow.symbols.artifact: expected wheel or conda, found "sdist"`},
		{"probe expect", "packages:\n  numba:\n    probes:\n      - {path: numba.core, expect: module-ish}\n",
			`.pinbot.yml:4:36: packages.numba.probes[0].expect: unknown kind "module-ish"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.file("pyproject.toml", corpus.Read(t, "pymc-devs__pytensor__pyproject.toml"))
			e.file(".pinbot.yml", []byte(tt.config))
			for _, args := range [][]string{{"check", "--dir", e.dir}, {"run", "--dir", e.dir, "--dry-run"}} {
				code, out, stderr := e.run(args...)
				if code != 2 || out != "" || !strings.Contains(stderr, tt.want) {
					t.Errorf("%v: exit %d, want 2\nstdout %s\nstderr %s\nwant %s", args, code, out, stderr, tt.want)
				}
			}
			if reqs := e.pypi.Requests(); len(reqs) > 0 {
				t.Errorf("requests before the configuration was checked: %v", reqs)
			}
		})
	}
}
