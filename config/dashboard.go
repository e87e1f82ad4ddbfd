package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultDashboardTitle is the title of the dashboard issue when the
// configuration names none.
const DefaultDashboardTitle = "pinbot dashboard"

// DefaultDashboardLabels are the dashboard issue's labels when the
// configuration names none. The first label is how pinbot finds the issue
// again cheaply (one listing of the issues that carry it); with none it is
// found by GitHub's issue search alone.
var DefaultDashboardLabels = []string{"pinbot"}

// GitHub's limits on an issue's title and a label's name.
const (
	maxTitle = 256
	maxLabel = 50
)

// Dashboard configures the pin dashboard, the one issue `pinbot run` keeps
// up to date (dashboard: {title: ..., labels: [...]}); dashboard: false
// turns it off (Config.DashboardOn).
type Dashboard struct {
	// Title is the issue's title (default DefaultDashboardTitle).
	Title string `yaml:"title"`
	// Labels are given to the issue (default DefaultDashboardLabels; an
	// empty list gives none).
	Labels []string `yaml:"labels"`
}

// Validate checks the title and the labels against GitHub's rules.
func (d *Dashboard) Validate() error {
	if d.Title != "" && (strings.TrimSpace(d.Title) == "" || strings.ContainsAny(d.Title, "\r\n") || utf8.RuneCountInString(d.Title) > maxTitle) {
		return fmt.Errorf("title: expected one line of at most %d characters, found %q", maxTitle, d.Title)
	}
	for i, l := range d.Labels {
		// The issue listing takes labels comma-separated: a comma would
		// split the label that finds the issue.
		if strings.TrimSpace(l) == "" || strings.ContainsAny(l, ",\r\n") || utf8.RuneCountInString(l) > maxLabel {
			return fmt.Errorf("labels[%d]: %q is not a label name (one line of at most %d characters, no comma)", i, l, maxLabel)
		}
	}
	return nil
}

// DashboardIssue returns the dashboard's settings with the defaults applied,
// and whether the dashboard is on (it is unless dashboard: false).
func (c *Config) DashboardIssue() (Dashboard, bool) {
	d := c.Dashboard
	if d.Title == "" {
		d.Title = DefaultDashboardTitle
	}
	if d.Labels == nil {
		d.Labels = DefaultDashboardLabels
	}
	return d, c.DashboardOn == nil || *c.DashboardOn
}
